import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolError } from './errors.js';
import {
  checkOutputBytes,
  collectPage,
  DEFAULT_OUTPUT_BYTES,
  jsonBytes,
  MIN_OUTPUT_BYTES,
  OutputBudget,
  paginateChars,
  paginateLines,
  planLines,
} from './paginate.js';
import { splitLines } from './text.js';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as ToolError).code;
  }
  return 'no error';
}

/** Reads a whole text page by page, following next_offset. */
function readAllChars(text: string, maxChars: number): string[] {
  const pages: string[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = paginateChars(text, { offset, maxChars });
    pages.push(page.content);
    offset = page.next_offset;
    if (pages.length > text.length + 2) throw new Error('no progress');
  }
  return pages;
}

describe('paginateChars', () => {
  it('returns the first page and where to continue', () => {
    expect(paginateChars('abcdef', { maxChars: 4 })).toEqual({
      content: 'abcd',
      offset: 0,
      has_more: true,
      next_offset: 4,
      total_chars: 6,
      limited_by_bytes: false,
    });
    expect(paginateChars('abcdef', { offset: 4, maxChars: 4 })).toMatchObject({
      content: 'ef',
      has_more: false,
      next_offset: null,
    });
  });

  it('never ends a page between the halves of a surrogate pair', () => {
    const text = 'ab😀cd';
    const page = paginateChars(text, { maxChars: 3 });
    expect(page.content).toBe('ab');
    expect(page.next_offset).toBe(2);
    expect(paginateChars(text, { offset: 2, maxChars: 3 }).content).toBe('😀c');
  });

  it('moves an offset inside a pair back to the start of the character', () => {
    const page = paginateChars('a😀b', { offset: 2, maxChars: 10 });
    expect(page.offset).toBe(1);
    expect(page.content).toBe('😀b');
  });

  it('always makes progress, even with max 1 on an astral character', () => {
    expect(readAllChars('😀😀', 1)).toEqual(['😀', '😀']);
  });

  it('handles the empty text and an offset at the end', () => {
    expect(paginateChars('', { maxChars: 10 })).toMatchObject({
      content: '',
      has_more: false,
      next_offset: null,
    });
    expect(paginateChars('abc', { offset: 3, maxChars: 10 }).content).toBe('');
  });

  it('stops a page before its JSON string form passes maxBytes, escapes and UTF-8 counted', () => {
    // 'é' is 2 bytes, '世' 3, '😀' 4, a quote 2 escaped, a control character 6 (\u0001).
    const text = 'é世😀"\u0001abc';
    const whole = jsonBytes(text);
    expect(paginateChars(text, { maxChars: 100, maxBytes: whole }).has_more).toBe(false);
    const page = paginateChars(text, { maxChars: 100, maxBytes: whole - 1 });
    expect(page).toMatchObject({ has_more: true, limited_by_bytes: true });
    expect(jsonBytes(page.content)).toBeLessThanOrEqual(whole - 1);
    // a budget that splits the astral character keeps the pair whole
    const cut = paginateChars(text, { maxChars: 100, maxBytes: 2 + 2 + 3 + 2 });
    expect(cut.content).toBe('é世');
    expect(cut.next_offset).toBe(2);
    // progress even when one character is over the budget
    expect(paginateChars('😀x', { maxChars: 100, maxBytes: 3 }).content).toBe('😀');
  });

  it('reads any text back whole under a byte budget, each page within it', () => {
    const unit = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 4 }),
      fc.constantFrom('\r\n', '😀', '世', '"', '\\', '\u0007', '\ud800'),
    );
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 40 }),
        fc.integer({ min: 8, max: 40 }),
        (parts, maxBytes) => {
          const text = parts.join('');
          let offset: number | null = 0;
          let joined = '';
          while (offset !== null) {
            const page = paginateChars(text, { offset, maxChars: 1000, maxBytes });
            expect(jsonBytes(page.content)).toBeLessThanOrEqual(maxBytes);
            joined += page.content;
            offset = page.next_offset;
          }
          expect(joined).toBe(text);
        },
      ),
    );
  });

  it('refuses offsets outside the text and a non-positive budget', () => {
    expect(codeOf(() => paginateChars('abc', { offset: 4, maxChars: 10 }))).toBe(
      'OFFSET_OUT_OF_RANGE',
    );
    expect(codeOf(() => paginateChars('abc', { offset: -1, maxChars: 10 }))).toBe(
      'OFFSET_OUT_OF_RANGE',
    );
    expect(codeOf(() => paginateChars('abc', { offset: 1.5, maxChars: 10 }))).toBe(
      'OFFSET_OUT_OF_RANGE',
    );
    expect(codeOf(() => paginateChars('abc', { maxChars: 0 }))).toBe('INVALID_LIMIT');
  });

  it('reassembles any text exactly, astral characters and CRLF included', () => {
    const unit = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 4 }),
      fc.constantFrom('\r\n', '😀', '𝄞', '世', '\n', 'e\u0301'),
    );
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        (parts, max) => {
          const text = parts.join('');
          const pages = readAllChars(text, max);
          expect(pages.join('')).toBe(text);
          for (const p of pages) {
            // no page starts with a lone low surrogate or ends with a lone high surrogate
            expect(/^[\udc00-\udfff]/.test(p)).toBe(false);
            expect(/[\ud800-\udbff]$/.test(p)).toBe(false);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('planLines', () => {
  const cost = () => 10;

  it('plans a range with defaults', () => {
    expect(planLines({ totalLines: 250 })).toEqual({
      start_line: 1,
      end_line: 100,
      total_lines: 250,
      has_more: true,
      has_earlier: false,
      next_start_line: 101,
      limited_by_bytes: false,
    });
    expect(planLines({ totalLines: 250, startLine: 201, lineCount: 100 })).toMatchObject({
      end_line: 250,
      has_more: false,
      has_earlier: true,
      next_start_line: null,
    });
  });

  it('stops at a whole line when the byte budget runs out', () => {
    const plan = planLines({ totalLines: 10, lineCount: 10, maxBytes: 35, lineBytes: cost });
    expect(plan).toMatchObject({
      start_line: 1,
      end_line: 3,
      next_start_line: 4,
      limited_by_bytes: true,
    });
  });

  it('refuses a first line larger than the budget', () => {
    expect(codeOf(() => planLines({ totalLines: 3, maxBytes: 5, lineBytes: cost }))).toBe(
      'LINE_TOO_LONG',
    );
  });

  it('plans a tail and refuses one over the budget', () => {
    expect(planLines({ totalLines: 10, tail: 3 })).toMatchObject({
      start_line: 8,
      end_line: 10,
      has_earlier: true,
      has_more: false,
    });
    expect(planLines({ totalLines: 2, tail: 5 })).toMatchObject({
      start_line: 1,
      end_line: 2,
      has_earlier: false,
    });
    expect(
      codeOf(() => planLines({ totalLines: 10, tail: 5, maxBytes: 30, lineBytes: cost })),
    ).toBe('TAIL_TOO_LARGE');
  });

  it('refuses tail with a start line, bad counts and a start past the end', () => {
    expect(codeOf(() => planLines({ totalLines: 10, tail: 2, startLine: 1 }))).toBe(
      'INVALID_RANGE',
    );
    expect(codeOf(() => planLines({ totalLines: 10, tail: 0 }))).toBe('INVALID_RANGE');
    expect(codeOf(() => planLines({ totalLines: 10, startLine: 0 }))).toBe('INVALID_RANGE');
    expect(codeOf(() => planLines({ totalLines: 10, lineCount: 0 }))).toBe('INVALID_RANGE');
    expect(codeOf(() => planLines({ totalLines: 10, startLine: 11 }))).toBe('LINE_OUT_OF_RANGE');
  });

  it('handles an empty text', () => {
    expect(planLines({ totalLines: 0 })).toMatchObject({
      start_line: 1,
      end_line: 0,
      has_more: false,
    });
    expect(planLines({ totalLines: 0, tail: 5 })).toMatchObject({
      end_line: 0,
      has_earlier: false,
    });
  });
});

describe('paginateLines', () => {
  it('numbers lines from 1', () => {
    const page = paginateLines(['a', 'b', 'c'], { startLine: 2, lineCount: 1 });
    expect(page.lines).toEqual([{ line: 2, text: 'b' }]);
  });

  it('reassembles any text exactly across pages (CRLF and astral included)', () => {
    const line = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.constantFrom('😀😀', '世界', ''),
    );
    fc.assert(
      fc.property(
        fc.array(
          line
            .map((s) => s.replace(/[\r\n]/g, ''))
            // every line must fit the smallest budget (2 bytes for CRLF), or the first line of a
            // page fails with LINE_TOO_LONG: some graphemes of 12 are over 60 bytes
            .filter((s) => Buffer.byteLength(s, 'utf8') + 2 <= 60),
          { maxLength: 40 },
        ),
        fc.constantFrom('\n', '\r\n'),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 60, max: 200 }),
        (lines, eol, count, budget) => {
          const text = lines.map((l) => l + eol).join('');
          const all = splitLines(text);
          const seen: string[] = [];
          let start: number | null = 1;
          while (start !== null && all.length > 0) {
            const page = paginateLines(all, {
              startLine: start,
              lineCount: count,
              maxBytes: budget,
            });
            expect(page.lines.length).toBeGreaterThan(0);
            seen.push(...page.lines.map((l) => l.text));
            start = page.next_start_line;
          }
          expect(seen.map((l) => l + eol).join('')).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('collectPage', () => {
  const entry = (i: number) => ({ name: `entry-${i}`, body: 'x'.repeat(i === 7 ? 500 : 10) });

  it('stops at limit or at the budget, building no item past the page', () => {
    const built: number[] = [];
    const item = (i: number) => {
      built.push(i);
      return entry(i);
    };
    const byCount = collectPage(5, { offset: 0, limit: 3, budget: new OutputBudget(10_000), item });
    expect(byCount).toMatchObject({ has_more: true, next_offset: 3, limited_by_bytes: false });
    expect(built).toEqual([0, 1, 2]);
    const one = jsonBytes(entry(0)) + 1;
    built.length = 0;
    const byBytes = collectPage(5, {
      offset: 1,
      limit: 10,
      budget: new OutputBudget(100 + 2 * one, 100),
      item,
    });
    expect(byBytes.items.map((e) => e.name)).toEqual(['entry-1', 'entry-2']);
    expect(byBytes).toMatchObject({ has_more: true, next_offset: 3, limited_by_bytes: true });
    expect(built).toEqual([1, 2, 3]);
    const last = collectPage(5, { offset: 3, limit: 10, budget: new OutputBudget(10_000), item });
    expect(last).toMatchObject({ has_more: false, next_offset: null });
  });

  it('refuses an item that alone is over the budget, saying how to skip it', () => {
    let error: ToolError | undefined;
    try {
      collectPage(10, { offset: 7, limit: 5, budget: new OutputBudget(200), item: entry });
    } catch (e) {
      error = e as ToolError;
    }
    expect(error?.code).toBe('OUTPUT_TOO_LARGE');
    expect(error?.details).toMatchObject({ offset: 7, next_offset: 8, max_bytes: 200 });
  });
});

describe('checkOutputBytes', () => {
  it('defaults to DEFAULT_OUTPUT_BYTES and keeps a valid budget', () => {
    expect(checkOutputBytes(undefined)).toBe(DEFAULT_OUTPUT_BYTES);
    expect(checkOutputBytes(null)).toBe(DEFAULT_OUTPUT_BYTES);
    expect(checkOutputBytes(MIN_OUTPUT_BYTES)).toBe(4096);
    expect(checkOutputBytes(16 * 1024 * 1024)).toBe(16 * 1024 * 1024);
  });

  it('refuses what is not a whole number of at least 4096, naming the option', () => {
    for (const bad of [
      4095,
      0,
      -1,
      4096.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 60,
      '8192',
    ]) {
      expect(
        codeOf(() => checkOutputBytes(bad)),
        String(bad),
      ).toBe('INVALID_LIMIT');
    }
    expect(() => checkOutputBytes(100)).toThrow(
      /maxOutputBytes must be a whole number of at least 4096, got 100/,
    );
  });
});
