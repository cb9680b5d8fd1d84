import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRootSync, isToolError } from '@lectern/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Loose, numbered, type TempDir, tempDir } from '../test-helpers/fixtures.js';
import {
  clearLineCaches,
  identityCacheHits,
  readLines,
  setSettledMsForTests,
} from './read-lines.js';

const MiB = 1024 * 1024;
let t: TempDir;
beforeAll(() => {
  t = tempDir();
});
afterAll(() => t.cleanup());
afterEach(() => clearLineCaches());

async function fails(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: Loose }> {
  try {
    await promise;
  } catch (error) {
    if (isToolError(error))
      return { code: error.code, message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected a ToolError');
}

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

describe('readLines: line structure', () => {
  it('reads LF text with numbers, hash and metadata', async () => {
    const body = 'alpha\nbeta\ngamma\n';
    t.write('lf.txt', body);
    const r = await readLines(t.dir, { path: 'lf.txt' });
    expect(r.lines).toEqual([
      { line: 1, text: 'alpha' },
      { line: 2, text: 'beta' },
      { line: 3, text: 'gamma' },
    ]);
    expect(r).toMatchObject({
      path: 'lf.txt',
      sha256: sha(body),
      size: Buffer.byteLength(body),
      bom: false,
      encoding: 'utf-8',
      line_endings: 'lf',
      total_lines: 3,
      start_line: 1,
      end_line: 3,
      has_more: false,
      has_earlier: false,
      next_start_line: null,
      output_limited: false,
      source_trust: 'untrusted',
    });
  });

  it('strips CRLF endings and reports crlf', async () => {
    t.write('crlf.txt', 'one\r\ntwo\r\nthree\r\n');
    const r = await readLines(t.dir, { path: 'crlf.txt' });
    expect(r.lines.map((l) => l.text)).toEqual(['one', 'two', 'three']);
    expect(r.line_endings).toBe('crlf');
    expect(r.total_lines).toBe(3);
  });

  it('handles mixed endings and keeps a lone CR inside a line', async () => {
    t.write('mixed.txt', 'a\r\nb\nc\rd\r\ne');
    const r = await readLines(t.dir, { path: 'mixed.txt' });
    expect(r.lines.map((l) => l.text)).toEqual(['a', 'b', 'c\rd', 'e']);
    expect(r.line_endings).toBe('mixed');
  });

  it('reports a BOM and keeps it out of line 1, but keeps U+FEFF inside later lines', async () => {
    const body = '\uFEFFfirst\n\uFEFFsecond\n';
    t.write('bom.txt', body);
    const r = await readLines(t.dir, { path: 'bom.txt' });
    expect(r.bom).toBe(true);
    expect(r.lines[0]).toEqual({ line: 1, text: 'first' });
    expect(r.sha256).toBe(sha(body));
    const second = await readLines(t.dir, { path: 'bom.txt', start_line: 2 });
    expect(second.lines).toEqual([{ line: 2, text: '\uFEFFsecond' }]);
  });

  it('reads an empty file and a BOM-only file as zero lines', async () => {
    t.write('empty.txt', '');
    t.write('bomonly.txt', '\uFEFF');
    for (const name of ['empty.txt', 'bomonly.txt']) {
      const r = await readLines(t.dir, { path: name });
      expect(r).toMatchObject({
        lines: [],
        total_lines: 0,
        start_line: 1,
        end_line: 0,
        has_more: false,
        has_earlier: false,
        next_start_line: null,
        line_endings: 'none',
      });
    }
    const tail = await readLines(t.dir, { path: 'empty.txt', tail: 5 });
    expect(tail.lines).toEqual([]);
    expect((await fails(readLines(t.dir, { path: 'empty.txt', start_line: 2 }))).code).toBe(
      'LINE_OUT_OF_RANGE',
    );
  });

  it('counts a final line without a newline, and blank lines', async () => {
    t.write('nofinal.txt', 'x\n\n\ny');
    const r = await readLines(t.dir, { path: 'nofinal.txt' });
    expect(r.total_lines).toBe(4);
    expect(r.lines.map((l) => l.text)).toEqual(['x', '', '', 'y']);
    t.write('justnl.txt', '\n');
    const one = await readLines(t.dir, { path: 'justnl.txt' });
    expect(one.lines).toEqual([{ line: 1, text: '' }]);
  });
});

describe('readLines: ranges, tail and paging', () => {
  beforeAll(() => {
    t.write('600.txt', numbered(600));
  });

  it('defaults to the first 100 lines and continues with next_start_line', async () => {
    const first = await readLines(t.dir, { path: '600.txt' });
    expect(first.lines).toHaveLength(100);
    expect(first).toMatchObject({
      start_line: 1,
      end_line: 100,
      has_more: true,
      next_start_line: 101,
    });
    const next = await readLines(t.dir, { path: '600.txt', start_line: first.next_start_line! });
    expect(next.lines[0]).toEqual({ line: 101, text: 'line 101' });
    expect(next.has_earlier).toBe(true);
  });

  it('reads a range across checkpoints (lines 250-449)', async () => {
    const r = await readLines(t.dir, { path: '600.txt', start_line: 250, line_count: 200 });
    expect(r.lines).toHaveLength(200);
    expect(r.lines[0]).toEqual({ line: 250, text: 'line 250' });
    expect(r.lines[199]).toEqual({ line: 449, text: 'line 449' });
  });

  it('reads the tail', async () => {
    const r = await readLines(t.dir, { path: '600.txt', tail: 3 });
    expect(r.lines.map((l) => l.text)).toEqual(['line 598', 'line 599', 'line 600']);
    expect(r).toMatchObject({ start_line: 598, end_line: 600, has_more: false, has_earlier: true });
    const whole = await readLines(t.dir, { path: 'nofinal.txt', tail: 200 });
    expect(whole.start_line).toBe(1);
  });

  it('refuses bad ranges before reading, with stable codes', async () => {
    expect((await fails(readLines(t.dir, { path: '600.txt', tail: 2, start_line: 3 }))).code).toBe(
      'INVALID_RANGE',
    );
    expect((await fails(readLines(t.dir, { path: '600.txt', tail: 2, line_count: 3 }))).code).toBe(
      'INVALID_RANGE',
    );
    expect((await fails(readLines(t.dir, { path: '600.txt', start_line: 0 }))).code).toBe(
      'INVALID_RANGE',
    );
    const over = await fails(readLines(t.dir, { path: '600.txt', line_count: 201 }));
    expect(over.code).toBe('LINE_LIMIT_EXCEEDED');
    expect(over.message).toContain('200');
    expect((await fails(readLines(t.dir, { path: '600.txt', tail: 201 }))).code).toBe(
      'LINE_LIMIT_EXCEEDED',
    );
    const past = await fails(readLines(t.dir, { path: '600.txt', start_line: 601 }));
    expect(past.code).toBe('LINE_OUT_OF_RANGE');
    expect(past.message).toContain('600 lines');
    expect((await fails(readLines(t.dir, { path: '600.txt', expected_sha256: 'abc' }))).code).toBe(
      'INVALID_SHA256',
    );
    // The limit check happens before the file is even looked up.
    expect((await fails(readLines(t.dir, { path: 'missing.txt', line_count: 500 }))).code).toBe(
      'LINE_LIMIT_EXCEEDED',
    );
  });

  it('honours lowered limits (configurable downward only)', async () => {
    const r = await readLines(t.dir, { path: '600.txt' }, { limits: { maxLines: 10 } });
    expect(r.lines).toHaveLength(10);
    expect(
      (
        await fails(
          readLines(t.dir, { path: '600.txt', line_count: 11 }, { limits: { maxLines: 10 } }),
        )
      ).code,
    ).toBe('LINE_LIMIT_EXCEEDED');
    expect(
      (await fails(readLines(t.dir, { path: '600.txt' }, { limits: { maxLines: 500 } }))).code,
    ).toBe('LIMIT_INVALID');
  });
});

describe('readLines: budgets', () => {
  it('stops at a whole line when the 32 KiB text budget is reached', async () => {
    const line = 'x'.repeat(1000);
    t.write('wide.txt', `${line}\n`.repeat(100));
    const r = await readLines(t.dir, { path: 'wide.txt', line_count: 100 });
    expect(r.lines).toHaveLength(32); // 32 * 1000 <= 32768 < 33 * 1000
    expect(r).toMatchObject({
      output_limited: true,
      has_more: true,
      next_start_line: 33,
      end_line: 32,
    });
    const next = await readLines(t.dir, { path: 'wide.txt', start_line: 33 });
    expect(next.lines[0]!.line).toBe(33);
  });

  it('refuses a 40 KiB line and points to read_artifact with its byte range', async () => {
    const long = 'y'.repeat(40 * 1024);
    t.write('long.txt', `short\n${long}\nafter\n`);
    const err = await fails(readLines(t.dir, { path: 'long.txt', start_line: 2 }));
    expect(err.code).toBe('LINE_TOO_LONG');
    expect(err.message).toContain('read_artifact');
    expect(err.details).toMatchObject({ line: 2, offset: 6, length: 40 * 1024 });
    // A range that reaches the long line stops before it.
    const r = await readLines(t.dir, { path: 'long.txt' });
    expect(r.lines).toEqual([{ line: 1, text: 'short' }]);
    expect(r).toMatchObject({ output_limited: true, next_start_line: 2 });
    // A tail whose last line alone is too long is LINE_TOO_LONG; one that fits partly is TAIL_TOO_LARGE.
    t.write('longtail.txt', `a\n${long}`);
    expect((await fails(readLines(t.dir, { path: 'longtail.txt', tail: 1 }))).code).toBe(
      'LINE_TOO_LONG',
    );
    const tail = await fails(readLines(t.dir, { path: 'long.txt', tail: 3 }));
    expect(tail.code).toBe('TAIL_TOO_LARGE');
    expect(tail.details.max_tail).toBe(1);
  });

  it('never splits an astral character at the budget cut, and counts UTF-8 bytes', async () => {
    // 8190 emoji = 32760 bytes on line 1; line 2 holds 3 more emoji (12 bytes) and would pass 32768.
    const emoji = '\u{1F600}';
    t.write('astral.txt', `${emoji.repeat(8190)}\n${emoji.repeat(3)}\n${emoji}\n`);
    const r = await readLines(t.dir, { path: 'astral.txt' });
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]!.text).toBe(emoji.repeat(8190));
    expect(r.output_limited).toBe(true);
    const rest = await readLines(t.dir, { path: 'astral.txt', start_line: 2 });
    expect(rest.lines.map((l) => l.text)).toEqual([emoji.repeat(3), emoji]);
  });

  it('keeps the serialized output within 64 KiB even when JSON escaping doubles the text', async () => {
    // 200 lines of 160 backslashes: 32000 bytes of text, but each escapes to 320 bytes of JSON.
    t.write('escapes.txt', `${'\\'.repeat(160)}\n`.repeat(200));
    const r = await readLines(t.dir, { path: 'escapes.txt', line_count: 200 });
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(64 * 1024);
    expect(r.output_limited).toBe(true);
    expect(r.lines.length).toBeLessThan(200);
    expect(r.next_start_line).toBe(r.end_line + 1);
    // The cut is the last line that fits: one more would pass the budget.
    const oneMore = {
      ...r,
      lines: [...r.lines, { line: r.end_line + 1, text: '\\'.repeat(160) }],
    };
    expect(Buffer.byteLength(JSON.stringify(oneMore))).toBeGreaterThan(64 * 1024);
    // Quotes in every line, but the whole window fits: nothing is cut.
    t.write('quotes.txt', `say "hi" to "${'q'.repeat(100)}"\n`.repeat(200));
    const q = await readLines(t.dir, { path: 'quotes.txt', line_count: 200 });
    expect(q.lines).toHaveLength(200);
    expect(q.output_limited).toBe(false);
    // control characters escape to six bytes each
    t.write('controls.txt', `${'\u0001'.repeat(100)}\n`.repeat(200));
    const c = await readLines(t.dir, { path: 'controls.txt', line_count: 200 });
    expect(Buffer.byteLength(JSON.stringify(c))).toBeLessThanOrEqual(64 * 1024);
    expect(c.output_limited).toBe(true);
  });
});

describe('readLines: refusals', () => {
  it('accepts a file of exactly 16 MiB and refuses one byte more, pointing to read_artifact', async () => {
    const line = `${'z'.repeat(1023)}\n`;
    const exact = Buffer.from(line.repeat(16 * 1024));
    expect(exact.length).toBe(16 * MiB);
    t.write('exact.txt', exact);
    const r = await readLines(t.dir, { path: 'exact.txt', tail: 2 });
    expect(r.total_lines).toBe(16 * 1024);
    expect(r.sha256).toBe(sha(exact));
    t.write('over.txt', Buffer.concat([exact, Buffer.from('!')]));
    const err = await fails(readLines(t.dir, { path: 'over.txt' }));
    expect(err.code).toBe('FILE_TOO_LARGE');
    expect(err.message).toContain('read_artifact');
    expect(err.details).toMatchObject({ size: 16 * MiB + 1, max_bytes: 16 * MiB });
  });

  it('refuses malformed UTF-8 in the middle with its file offset', async () => {
    const bytes = Buffer.concat([
      Buffer.from('good line\nsecond '),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(' tail\n'),
    ]);
    t.write('bad-utf8.txt', bytes);
    const err = await fails(
      readLines(t.dir, { path: 'bad-utf8.txt', start_line: 1, line_count: 1 }),
    );
    expect(err.code).toBe('INVALID_UTF8');
    expect(err.details.offset).toBe(17);
    expect(err.message).toContain('offset 17');
  });

  it('refuses NUL bytes as binary content with the offset', async () => {
    t.write('nul.txt', Buffer.from('abc\ndef\u0000ghi\n'));
    const err = await fails(readLines(t.dir, { path: 'nul.txt' }));
    expect(err.code).toBe('BINARY_CONTENT');
    expect(err.details.offset).toBe(7);
  });

  it('refuses symlinks, final and intermediate, even to files inside the workspace', async () => {
    t.write('real/target.txt', 'secret\n');
    t.symlink(t.abs('real/target.txt'), 'link.txt');
    t.symlink(t.abs('real'), 'linkdir');
    expect((await fails(readLines(t.dir, { path: 'link.txt' }))).code).toBe('PATH_SYMLINK');
    expect((await fails(readLines(t.dir, { path: 'linkdir/target.txt' }))).code).toBe(
      'PATH_SYMLINK',
    );
  });

  it('refuses a FIFO without blocking', async () => {
    t.mkfifo('pipe');
    const err = await fails(readLines(t.dir, { path: 'pipe' }));
    expect(err.code).toBe('PATH_NOT_REGULAR');
    expect(err.message).toContain('FIFO');
  });

  it('refuses traversal, absolute paths outside, folders and missing files', async () => {
    expect((await fails(readLines(t.dir, { path: '../etc/passwd' }))).code).toBe(
      'PATH_ESCAPES_ROOT',
    );
    expect((await fails(readLines(t.dir, { path: 'real/../../x' }))).code).toBe(
      'PATH_ESCAPES_ROOT',
    );
    expect((await fails(readLines(t.dir, { path: '/etc/passwd' }))).code).toBe(
      'PATH_ABSOLUTE_OUTSIDE_ROOT',
    );
    expect((await fails(readLines(t.dir, { path: 'real' }))).code).toBe('PATH_IS_DIRECTORY');
    expect((await fails(readLines(t.dir, { path: 'nope.txt' }))).code).toBe('PATH_NOT_FOUND');
    expect((await fails(readLines(t.dir, { path: 'a\u0000b' }))).code).toBe('PATH_NUL');
    // An absolute path inside the root and a `..` that stays inside are fine.
    const inside = await readLines(t.dir, { path: t.abs('real/target.txt') });
    expect(inside.path).toBe('real/target.txt');
    const dots = await readLines(t.dir, { path: 'real/../real/./target.txt' });
    expect(dots.lines).toEqual([{ line: 1, text: 'secret' }]);
  });
});

describe('readLines: change detection and caching', () => {
  it('returns no content when the file changed between two calls', async () => {
    t.write('changing.txt', 'v1\n');
    const first = await readLines(t.dir, { path: 'changing.txt' });
    const same = await readLines(t.dir, {
      path: 'changing.txt',
      expected_sha256: first.sha256.toUpperCase(),
    });
    expect(same.lines).toEqual([{ line: 1, text: 'v1' }]);
    t.write('changing.txt', 'v2\n');
    const err = await fails(
      readLines(t.dir, { path: 'changing.txt', expected_sha256: first.sha256 }),
    );
    expect(err.code).toBe('FILE_CHANGED');
    expect(err.details).toEqual({ expected_sha256: first.sha256, current_sha256: sha('v2\n') });
    expect(err.message).not.toContain('v2');
  });

  it('reads only the window of a settled file and still sees changes', async () => {
    const previous = setSettledMsForTests(-60_000);
    try {
      const body = numbered(5000, 'row ');
      t.write('settled.txt', body);
      const hits = identityCacheHits();
      const fresh = await readLines(t.dir, {
        path: 'settled.txt',
        start_line: 1234,
        line_count: 200,
      });
      expect(identityCacheHits()).toBe(hits);
      const cached = await readLines(t.dir, {
        path: 'settled.txt',
        start_line: 1234,
        line_count: 200,
      });
      expect(identityCacheHits()).toBe(hits + 1);
      expect(cached).toEqual(fresh);
      // expected_sha256 always re-hashes the whole file.
      await readLines(t.dir, { path: 'settled.txt', expected_sha256: fresh.sha256 });
      expect(identityCacheHits()).toBe(hits + 1);
      const tail = await readLines(t.dir, { path: 'settled.txt', tail: 200 });
      expect(tail.lines[199]).toEqual({ line: 5000, text: 'row 5000' });
      // Same size, different bytes: the identity (mtime/ctime) moves, so the new text is seen.
      const changed = body.replace('row 1234\n', 'ROW 1234\n');
      expect(changed.length).toBe(body.length);
      await new Promise((r) => setTimeout(r, 5));
      fs.writeFileSync(t.abs('settled.txt'), changed);
      const after = await readLines(t.dir, {
        path: 'settled.txt',
        start_line: 1234,
        line_count: 1,
      });
      expect(after.lines).toEqual([{ line: 1234, text: 'ROW 1234' }]);
      expect(after.sha256).toBe(sha(changed));
    } finally {
      setSettledMsForTests(previous);
    }
  });

  it('accepts a core Root as well as a folder path', async () => {
    const root = createRootSync(t.dir);
    const r = await readLines(root, { path: 'crlf.txt' }, { workspace: 'w' });
    expect(r.workspace).toBe('w');
  });
});
