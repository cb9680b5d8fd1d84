import { isToolError } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { compileQuery } from './query.js';

describe('compileQuery', () => {
  it('escapes literals and keeps a byte needle for case-sensitive literal prefiltering', () => {
    const q = compileQuery({
      query: 'a.b(c)',
      regex: false,
      caseSensitive: true,
      wholeWord: false,
    });
    expect(q.literal).toBe(true);
    expect(q.needle?.toString()).toBe('a.b(c)');
    expect(new RegExp(q.source, q.flags).test('xa.b(c)')).toBe(true);
    expect(new RegExp(q.source, q.flags).test('axb(c)')).toBe(false);
    expect(
      compileQuery({ query: 'x', regex: false, caseSensitive: false, wholeWord: false }).needle,
    ).toBeUndefined();
  });

  it('uses Unicode mode when possible and falls back to legacy syntax', () => {
    expect(
      compileQuery({ query: '\\p{L}+', regex: true, caseSensitive: true, wholeWord: false }).flags,
    ).toContain('u');
    const legacy = compileQuery({
      query: 'a\\-b',
      regex: true,
      caseSensitive: true,
      wholeWord: false,
    });
    expect(legacy.flags).not.toContain('u');
    expect(legacy.literal).toBe(false);
  });

  it('reports a malformed pattern as INVALID_REGEX with the engine message', () => {
    try {
      compileQuery({ query: '(unclosed', regex: true, caseSensitive: false, wholeWord: false });
      expect.unreachable();
    } catch (e) {
      expect(isToolError(e) && e.code).toBe('INVALID_REGEX');
      expect(isToolError(e) && e.message).toMatch(/Invalid regular expression/);
      expect(isToolError(e) && e.details?.engine_message).toMatch(/Unterminated group/);
    }
  });

  it('rules out files by their bytes only when they cannot match a literal', () => {
    const ci = compileQuery({
      query: 'Zan.th',
      regex: false,
      caseSensitive: false,
      wholeWord: false,
    });
    const re = new RegExp(ci.source, ci.flags);
    for (const text of ['xx zAN.TH yy', 'é ZAN.th ü', 'zan.th']) {
      expect(ci.mayMatch?.(Buffer.from(text, 'utf8'))).toBe(true);
      re.lastIndex = 0;
      expect(re.test(text)).toBe(true);
    }
    for (const text of ['zanxth', 'zan.t h', 'Zàn.th', '']) {
      expect(ci.mayMatch?.(Buffer.from(text, 'utf8'))).toBe(false);
      re.lastIndex = 0;
      expect(re.test(text)).toBe(false);
    }
    const cs = compileQuery({ query: 'Zan', regex: false, caseSensitive: true, wholeWord: true });
    expect(cs.mayMatch?.(Buffer.from('a Zan b'))).toBe(true);
    expect(cs.mayMatch?.(Buffer.from('a zan b'))).toBe(false);
  });

  it('keeps files whose KELVIN SIGN or LONG S folds onto a letter of a case-insensitive query', () => {
    // /iu matches U+212A as k and U+017F as s: the byte check must not rule those files out.
    for (const [query, text] of [
      ['kelvin', '\u212Aelvin'],
      ['mass', 'ma\u017F\u017F'],
    ] as const) {
      const q = compileQuery({ query, regex: false, caseSensitive: false, wholeWord: false });
      expect(new RegExp(q.source, q.flags).test(text)).toBe(true);
      expect(q.mayMatch?.(Buffer.from(text, 'utf8'))).toBe(true);
    }
    const noK = compileQuery({
      query: 'elvin',
      regex: false,
      caseSensitive: false,
      wholeWord: false,
    });
    expect(noK.mayMatch?.(Buffer.from('\u212Aelvix', 'utf8'))).toBe(false);
  });

  it('has no byte check for regular expressions or non-ASCII case-insensitive literals', () => {
    const opts = { regex: false, caseSensitive: false, wholeWord: false };
    expect(compileQuery({ ...opts, query: 'ünï' }).mayMatch).toBeUndefined();
    expect(compileQuery({ ...opts, query: 'a+', regex: true }).mayMatch).toBeUndefined();
  });
});
