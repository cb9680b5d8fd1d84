import { describe, expect, it } from 'vitest';
import { findLineMatches } from './match.js';
import { compileQuery } from './query.js';

function find(
  text: string,
  query: string,
  opts: {
    regex?: boolean;
    cs?: boolean;
    word?: boolean;
    cap?: number;
    ctx?: number;
    max?: number;
  } = {},
) {
  const q = compileQuery({
    query,
    regex: opts.regex ?? false,
    caseSensitive: opts.cs ?? false,
    wholeWord: opts.word ?? false,
  });
  return findLineMatches(text, q.source, q.flags, opts.cap ?? 100, opts.ctx ?? 0, opts.max ?? 400);
}

/** No lone surrogate halves. */
const wellFormed = (s: string) => !/\p{Surrogate}/u.test(s);

describe('findLineMatches', () => {
  it('reports 1-based lines and code-point columns, one entry per line', () => {
    const r = find('foo\nbar foo foo\n\u{1F600}foo\n', 'foo');
    expect(r.matches.map((m) => [m.line, m.column, m.text])).toEqual([
      [1, 1, 'foo'],
      [2, 5, 'bar foo foo'],
      [3, 2, '\u{1F600}foo'],
    ]);
    expect(r.capped).toBe(false);
  });

  it('treats CRLF as a line end and never lets a match span lines', () => {
    const r = find('a\r\nb\r\nab\r\n', 'a\\s*b', { regex: true });
    expect(r.matches.map((m) => [m.line, m.text])).toEqual([[3, 'ab']]);
    const ends = find('x1\r\nx2\r\n', 'x\\d$', { regex: true });
    expect(ends.matches.map((m) => m.line)).toEqual([1, 2]);
  });

  it('handles zero-length matches without looping and ignores the position after a final newline', () => {
    const r = find('a\n\nb\n', '^$', { regex: true });
    expect(r.matches.map((m) => m.line)).toEqual([2]);
    const all = find('a\nb', 'x*', { regex: true });
    expect(all.matches.map((m) => m.line)).toEqual([1, 2]);
    expect(find('', 'x*', { regex: true }).matches).toEqual([]);
  });

  it('is case-insensitive unless asked, and supports whole words with Unicode letters', () => {
    expect(find('Foo\nfoo', 'FOO').matches).toHaveLength(2);
    expect(find('Foo\nfoo', 'FOO', { cs: true }).matches).toHaveLength(0);
    const w = find('cat\ncats\nconcat\nécat\ncat_\n(cat)', 'cat', { word: true });
    expect(w.matches.map((m) => m.line)).toEqual([1, 6]);
  });

  it('searches literal text literally', () => {
    expect(find('a.c\nabc', 'a.c').matches.map((m) => m.line)).toEqual([1]);
    expect(find('(x+)*\nxx', '(x+)*').matches.map((m) => m.line)).toEqual([1]);
    expect(find('path\\to\n', 'path\\to').matches).toHaveLength(1);
  });

  it('adds context lines, clipped at the file edges', () => {
    const text = 'l1\nl2\nl3 hit\nl4\nl5';
    const [m] = find(text, 'hit', { ctx: 3 }).matches;
    expect(m!.before).toEqual([
      { line: 1, text: 'l1' },
      { line: 2, text: 'l2' },
    ]);
    expect(m!.after).toEqual([
      { line: 4, text: 'l4' },
      { line: 5, text: 'l5' },
    ]);
    const crlf = find('a\r\nhit\r\nb\r\n', 'hit', { ctx: 1 }).matches[0]!;
    expect(crlf.before).toEqual([{ line: 1, text: 'a' }]);
    expect(crlf.after).toEqual([{ line: 3, text: 'b' }]);
  });

  it('stops at the per-file cap and says so', () => {
    const r = find('x\nx\nx\nx\n', 'x', { cap: 2 });
    expect(r.matches.map((m) => m.line)).toEqual([1, 2]);
    expect(r.capped).toBe(true);
    expect(find('x\nx\n', 'x', { cap: 2 }).capped).toBe(false);
  });

  it('returns an excerpt around the match for long lines without splitting surrogate pairs', () => {
    const line = `${'\u{1F600}'.repeat(300)}NEEDLE${'b'.repeat(1000)}`;
    const [m] = find(line, 'needle', { max: 100 }).matches;
    expect(m!.truncated).toBe(true);
    expect(m!.text.length).toBeLessThanOrEqual(100);
    expect(m!.text).toContain('NEEDLE');
    expect(m!.column).toBe(301);
    expect(wellFormed(m!.text)).toBe(true);
    const ctx = find(`${'\u{1F600}'.repeat(300)}\nneedle`, 'needle', { max: 51, ctx: 1 })
      .matches[0]!;
    expect(ctx.before[0]!.truncated).toBe(true);
    expect(wellFormed(ctx.before[0]!.text)).toBe(true);
  });
});
