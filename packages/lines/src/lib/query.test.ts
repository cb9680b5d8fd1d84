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
});
