import { appendFileSync, closeSync, openSync, readSync, statSync } from 'node:fs';
import { createRootSync } from '@lectern/core';
import { bySize } from '@lectern/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TempDir, tempDir } from '../test-helpers/fixtures.js';
import { HERE, type JudgeParams, loadAndJudge, makePrefilter, readBounded } from './file-scan.js';
import { findLineMatches } from './match.js';
import { compileQuery } from './query.js';

/*
 * The case-insensitive prefilter searches raw bytes with ASCII case folding (a Horspool search
 * for queries of 5 bytes or more). It decides whether a file counts as searched-without-match
 * or goes on to the binary and UTF-8 checks, so it must accept exactly the files the general
 * check accepts: a legacy-mode `i` RegExp over the bytes read as Latin-1, or a KELVIN SIGN /
 * LONG S that folds onto a k / s of the query. That general check is kept here as the
 * reference, and the fast one must agree with it on every input.
 */
const reference = (query: string, bytes: Buffer): boolean => {
  const re = new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  const lower = query.toLowerCase();
  return (
    re.test(bytes.toString('latin1')) ||
    (lower.includes('k') && bytes.indexOf(Buffer.from('\u212A')) !== -1) ||
    (lower.includes('s') && bytes.indexOf(Buffer.from('\u017F')) !== -1)
  );
};

const ci = (query: string) => {
  const check = makePrefilter({ query, caseSensitive: false });
  if (!check) throw new Error(`no prefilter for ${query}`);
  return check;
};

/** A small deterministic generator (tests must not flake, and failures must replay). */
function random(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

// Text pieces: ASCII of both cases, characters that fold (or not) onto ASCII letters under
// Unicode rules (KELVIN SIGN, LONG S, sharp s, dotted capital I, dotless i), Latin-1 letters
// whose upper case is non-ASCII, CR/LF, NUL, and bytes that are not UTF-8.
const PIECES = [
  'a',
  'A',
  'k',
  'K',
  's',
  'S',
  'i',
  'I',
  'x',
  'X',
  'z',
  'Z',
  '\u212A',
  '\u017F',
  'ß',
  'SS',
  '\u0130',
  '\u0131',
  'é',
  'É',
  'ÿ',
  'µ',
  '\n',
  '\r\n',
  ' ',
  '.',
  '*',
  '0',
  '\u0000',
];
const BAD_BYTES = [Buffer.from([0xc3, 0x28]), Buffer.from([0x80]), Buffer.from([0xff, 0xfe])];
const QUERY_CHARS = 'aksixzAKSIXZ .*0_(';

function randomCase(next: (n: number) => number, s: string): string {
  let out = '';
  for (const c of s) out += next(2) ? c.toUpperCase() : c.toLowerCase();
  return out;
}

describe('makePrefilter: case-insensitive byte search', () => {
  it('accepts exactly the files the RegExp-over-Latin-1 check accepts (random inputs)', () => {
    const next = random(20261201);
    const cases = bySize(4000, 60_000);
    // Outcomes by path: queries under 5 bytes (RegExp) and from 5 (Horspool), rejected/accepted.
    const seen = [
      [0, 0],
      [0, 0],
    ];
    for (let n = 0; n < cases; n++) {
      let query = '';
      const qlen = 1 + next(12);
      const plant = next(2) === 0;
      for (let i = 0; i < qlen; i++) query += QUERY_CHARS[next(QUERY_CHARS.length)];
      const parts: Buffer[] = [];
      const len = next(50);
      for (let i = 0; i < len; i++) {
        const r = next(10);
        if (r === 0 && plant) parts.push(Buffer.from(randomCase(next, query), 'latin1'));
        else if (r === 1) parts.push(Buffer.from(randomCase(next, query.slice(0, next(qlen + 1)))));
        else if (r === 2) parts.push(BAD_BYTES[next(BAD_BYTES.length)]!);
        else parts.push(Buffer.from(PIECES[next(PIECES.length)]!, 'utf8'));
      }
      const bytes = Buffer.concat(parts);
      const want = reference(query, bytes);
      seen[qlen < 5 ? 0 : 1]![want ? 1 : 0]!++;
      if (ci(query)(bytes) !== want) {
        throw new Error(
          `query ${JSON.stringify(query)} on ${JSON.stringify(bytes.toString('latin1'))}: expected ${want}`,
        );
      }
    }
    // Both outcomes of both paths are well represented, so the comparison is not vacuous.
    for (const counts of seen)
      for (const count of counts) expect(count).toBeGreaterThan(cases / 20);
  });

  it('finds the needle at the very start and end, as the whole buffer, and nowhere in shorter ones', () => {
    const check = ci('Needle');
    expect(check(Buffer.from('nEEDLE and more'))).toBe(true);
    expect(check(Buffer.from('more and NEEDLE'))).toBe(true);
    expect(check(Buffer.from('needle'))).toBe(true);
    expect(check(Buffer.from('needl'))).toBe(false);
    expect(check(Buffer.from('eedle'))).toBe(false);
    expect(check(Buffer.alloc(0))).toBe(false);
    expect(check(Buffer.from('needl\ne'))).toBe(false);
    expect(check(Buffer.from('first\r\nNeedle here\r\n'))).toBe(true);
  });

  it('handles repeated letters in the query (the shift after a failed compare)', () => {
    for (const [query, yes, no] of [
      ['aaaab', 'aaaaaaaaAAAAB', 'aaaaaaaaaaaaa aaab'],
      ['abab', 'xxABABxx', 'xxABAxBABxx'],
      ['abcab', 'ababcabcab', 'abcaabcbab'],
      ['sssss', 'xSSSSSx', 'xssss sssx'],
    ] as const) {
      expect(ci(query)(Buffer.from(yes)), `${query} in ${yes}`).toBe(true);
      expect(ci(query)(Buffer.from(no)), `${query} in ${no}`).toBe(false);
      expect(reference(query, Buffer.from(yes))).toBe(true);
      expect(reference(query, Buffer.from(no))).toBe(false);
    }
  });

  it('folds only ASCII letters: Latin-1 and UTF-8 look-alikes never match, KELVIN SIGN and LONG S always let the file through', () => {
    const check = ci('kisses');
    expect(check(Buffer.from('KISSES'))).toBe(true);
    expect(check(Buffer.from('KIßES'))).toBe(false);
    expect(check(Buffer.from('K\u0130SSES'))).toBe(false);
    expect(check(Buffer.from('k\u0131sses'))).toBe(false);
    // The Unicode-mode scan decides later whether these really match; the prefilter must let
    // them through.
    expect(check(Buffer.from('\u212Aisses'))).toBe(true);
    expect(check(Buffer.from('ki\u017F\u017Fes'))).toBe(true);
    expect(ci('beliefs')(Buffer.from('BELIEF\u017F'))).toBe(true);
    // No k or s in the query: those characters do not help.
    expect(ci('zebra')(Buffer.from('\u212A\u017F zebr'))).toBe(false);
    // Bytes above 0x7F never equal an ASCII byte of the query.
    expect(
      ci('caf\u00e9'.slice(0, 3) + 'xyz')(Buffer.from([0x63, 0x61, 0x66, 0xf8, 0x79, 0x7a])),
    ).toBe(false);
  });

  it('searches only the bytes of a view, not the buffer around it', () => {
    const whole = Buffer.from('needle|middle|needle');
    const view = whole.subarray(3, whole.length - 3);
    expect(ci('needle')(view)).toBe(false);
    expect(ci('middle')(view)).toBe(true);
    expect(ci('needle')(whole.subarray(0, 6))).toBe(true);
    expect(ci('needle')(whole.subarray(0, 5))).toBe(false);
  });

  it('never rules out a file the Unicode-mode scan matches', () => {
    const next = random(7);
    const cases = bySize(1500, 20_000);
    let matched = 0;
    for (let n = 0; n < cases; n++) {
      const qlen = 1 + next(8);
      let query = '';
      for (let i = 0; i < qlen; i++) query += QUERY_CHARS[next(QUERY_CHARS.length)];
      let text = '';
      for (let i = next(30); i > 0; i--) {
        text += next(8) === 0 ? randomCase(next, query) : PIECES[next(PIECES.length - 1)];
      }
      // Swap letters of a planted copy for their Unicode folds now and then.
      if (next(3) === 0) text = text.replace(/k/g, '\u212A').replace(/s/g, '\u017F');
      const compiled = compileQuery({
        query,
        regex: false,
        caseSensitive: false,
        wholeWord: false,
      });
      const found = findLineMatches(text, compiled.source, compiled.flags, 1, 0, 500).matches;
      if (found.length > 0) {
        matched++;
        expect(ci(query)(Buffer.from(text, 'utf8')), `${query} in ${JSON.stringify(text)}`).toBe(
          true,
        );
      }
    }
    expect(matched).toBeGreaterThan(cases / 10);
  });

  it('gives no prefilter for a non-ASCII case-insensitive query, and a byte search for a case-sensitive one', () => {
    expect(makePrefilter({ query: 'straße', caseSensitive: false })).toBeUndefined();
    expect(makePrefilter({ query: '\u212Aelvin', caseSensitive: false })).toBeUndefined();
    const cs = makePrefilter({ query: 'Straße', caseSensitive: true })!;
    expect(cs(Buffer.from('die Straße'))).toBe(true);
    expect(cs(Buffer.from('die STRASSE'))).toBe(false);
  });
});

describe('readBounded and loadAndJudge with a reused buffer', () => {
  let t: TempDir;
  beforeAll(() => {
    t = tempDir();
  });
  afterAll(() => t.cleanup());

  const params = (query: string, caseSensitive: boolean): JudgeParams => {
    const q = compileQuery({ query, regex: false, caseSensitive, wholeWord: false });
    return { source: q.source, flags: q.flags, cap: 100, contextLines: 0, maxChars: 500 };
  };

  it('returns exactly each file, whatever a larger file left in the buffer before it', () => {
    const scratch = { buf: undefined as Buffer | undefined };
    const files = [
      ['big.txt', `${'x'.repeat(200_000)}NEEDLE tail\n`],
      ['small.txt', 'short\n'],
      ['empty.txt', ''],
      ['over.txt', `${'y'.repeat(1024 * 1024 + 10)}end`],
      ['crlf.txt', 'one\r\ntwo\r\n'],
    ] as const;
    for (const [name, body] of files) t.write(`seq/${name}`, body);
    let first: Buffer | undefined;
    for (const [name, body] of files) {
      const fd = openSync(t.abs(`seq/${name}`), 'r');
      try {
        const size = statSync(t.abs(`seq/${name}`)).size;
        const got = readBounded(fd, size, 16 * 1024 * 1024, readSync, scratch);
        expect(got).not.toBe('too_large');
        expect((got as Buffer).toString('utf8')).toBe(body);
        if (name === 'big.txt') first = got as Buffer;
        // Files up to 1 MiB share the one buffer; bigger ones get their own.
        if (name === 'over.txt') expect((got as Buffer).buffer).not.toBe(scratch.buf?.buffer);
        else expect((got as Buffer).buffer).toBe(scratch.buf?.buffer);
      } finally {
        closeSync(fd);
      }
    }
    expect(first).toBeDefined();
  });

  it('still refuses a file at the cap that grows while it is read', () => {
    const body = 'a'.repeat(1000);
    t.write('grow/at-cap.txt', body);
    t.write('grow/under-cap.txt', body);
    const readThenGrow =
      (path: string, calls: { n: number }) =>
      (fd: number, buf: Buffer, offset: number, length: number, position: number): number => {
        calls.n++;
        const n = readSync(fd, buf, offset, length, position);
        if (calls.n === 1) appendFileSync(path, 'grown');
        return n;
      };
    for (const scratch of [undefined, { buf: undefined }]) {
      t.write('grow/at-cap.txt', body);
      t.write('grow/under-cap.txt', body);
      const atCap = { n: 0 };
      let fd = openSync(t.abs('grow/at-cap.txt'), 'r');
      const refused = readBounded(
        fd,
        1000,
        1000,
        readThenGrow(t.abs('grow/at-cap.txt'), atCap) as typeof readSync,
        scratch,
      );
      closeSync(fd);
      expect(refused).toBe('too_large');
      // Under the cap, growth is cut off at the size seen (as before), with no extra read.
      const under = { n: 0 };
      fd = openSync(t.abs('grow/under-cap.txt'), 'r');
      const cut = readBounded(
        fd,
        1000,
        4096,
        readThenGrow(t.abs('grow/under-cap.txt'), under) as typeof readSync,
        scratch,
      );
      closeSync(fd);
      expect((cut as Buffer).toString()).toBe(body);
      expect(under.n).toBe(1);
    }
  });

  it('judges binary, invalid UTF-8, CRLF and BOM files the same way with the fast prefilter', () => {
    const root = createRootSync(t.dir);
    t.write('judge/big-first.txt', `${'needle '.repeat(30_000)}\n`);
    t.write('judge/bin-with.bin', Buffer.from('a NEEDLE\u0000b'));
    t.write('judge/bin-without.bin', Buffer.from('nothing\u0000here'));
    t.write('judge/bad-with.txt', Buffer.concat([Buffer.from('needle '), Buffer.from([0xff])]));
    t.write('judge/bad-without.txt', Buffer.concat([Buffer.from('nothing '), Buffer.from([0xff])]));
    t.write('judge/crlf.txt', 'first\r\nthe Needle\r\nlast\r\n');
    t.write('judge/bom.txt', '\uFEFFneedle one\n');
    t.write('judge/kelvin.txt', 'ask \u212Aeeper\n');
    const judge = (path: string, query: string) =>
      loadAndJudge(
        root,
        path,
        16 * 1024 * 1024,
        makePrefilter({ query, caseSensitive: false }),
        params(query, false),
        true,
        HERE,
      );
    expect(judge('judge/big-first.txt', 'needle')).toMatchObject({ kind: 'text' });
    expect(judge('judge/bin-with.bin', 'needle')).toEqual({ kind: 'binary', length: 10 });
    expect(judge('judge/bin-without.bin', 'needle')).toEqual({
      kind: 'text',
      length: 12,
      result: { matches: [], capped: false },
    });
    expect(judge('judge/bad-with.txt', 'needle')).toEqual({ kind: 'invalid_utf8', length: 8 });
    expect(judge('judge/bad-without.txt', 'needle')).toMatchObject({
      kind: 'text',
      result: { matches: [] },
    });
    const crlf = judge('judge/crlf.txt', 'needle');
    expect(
      crlf.kind === 'text' && crlf.result?.matches.map((m) => [m.line, m.column, m.text]),
    ).toEqual([[2, 5, 'the Needle']]);
    const bom = judge('judge/bom.txt', 'NEEDLE');
    expect(bom.kind === 'text' && bom.result?.matches.map((m) => [m.line, m.column])).toEqual([
      [1, 1],
    ]);
    const kelvin = judge('judge/kelvin.txt', 'keeper');
    expect(kelvin.kind === 'text' && kelvin.result?.matches.map((m) => m.text)).toEqual([
      'ask \u212Aeeper',
    ]);
  });
});
