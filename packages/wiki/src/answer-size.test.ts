import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_OUTPUT_BYTES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wikiPresetTools } from './presets/wiki.js';
import { connectWiki, removeDir, tempDir } from './test-helpers/wiki.js';

// Issue 29: read_page of a 20,000-line page answered 289,000 characters with default arguments;
// every answer now stays within the 64 KiB default and says how to go on.
const LINES = 20_000;
const FILES = 20_000;
let dir: string;
let wiki: Awaited<ReturnType<typeof connectWiki>>;
beforeAll(async () => {
  dir = tempDir();
  const lines = Array.from({ length: LINES }, (_, i) => `Line ${i + 1} of a long page.`);
  writeFileSync(join(dir, 'long.md'), `${lines.join('\n')}\n`);
  mkdirSync(join(dir, 'many'));
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, 'many', `p${i}.md`), `# P${i}\n`);
  wiki = await connectWiki({ wikis: [{ id: 'w', path: dir }] });
}, 300_000);
afterAll(async () => {
  await wiki?.close();
  if (dir) removeDir(dir);
}, 300_000);

const size = (data: unknown) => Buffer.byteLength(JSON.stringify(data));

describe('wiki answers fit the default output budget', () => {
  it('read_page of a 20,000-line page stops within 64 KiB at a whole line and continues', async () => {
    const r = await wiki.call('read_page', { wiki: 'w', path: 'long.md' });
    expect(r.isError, JSON.stringify(r.data).slice(0, 300)).toBe(false);
    expect(size(r.data)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    expect(r.data).toMatchObject({ start_line: 1, has_more: true, total_lines: LINES });
    expect(r.data.next_offset).toBe(r.data.end_line + 1);
    const raw = await wiki.call('read_page', { wiki: 'w', path: 'long.md', raw: true });
    expect(size(raw.data)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    const next = await wiki.call('read_page', {
      wiki: 'w',
      path: 'long.md',
      offset: r.data.next_offset,
    });
    expect(next.data.content.startsWith(`Line ${r.data.next_offset} of`)).toBe(true);
  }, 120_000);

  it('list_pages of a 20,000-page folder pages within 64 KiB', async () => {
    const r = await wiki.call('list_pages', { wiki: 'w' });
    expect(r.isError, JSON.stringify(r.data).slice(0, 300)).toBe(false);
    expect(size(r.data)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    expect(r.data.has_more).toBe(true);
    expect(JSON.stringify(r.data)).toMatch(/"next_(offset|cursor)":\d+/);
  }, 300_000);
});

// Issue 29: a single line longer than one answer is cut, not refused: the part that fits with a
// visible marker (rendered), has_more, and next_start_char to read on from where it stopped.
describe('read_page of a page with one 250,000-character line', () => {
  const LONG = Array.from({ length: 25_000 }, (_, i) => `w${String(i).padStart(7, '0')}z`).join(
    ' ',
  );
  let ldir: string;
  let native: Awaited<ReturnType<typeof connectWiki>>;
  let preset: Awaited<ReturnType<typeof connectWiki>>;
  beforeAll(async () => {
    ldir = tempDir();
    writeFileSync(join(ldir, 'long.md'), `# Long\n${LONG}\nafter\n`);
    native = await connectWiki({ wikis: [{ id: 'w', path: ldir }] });
    preset = await connectWiki({ wikis: [{ id: 'w', path: ldir }] }, wikiPresetTools);
  }, 120_000);
  afterAll(async () => {
    await native?.close();
    await preset?.close();
    if (ldir) removeDir(ldir);
  });

  for (const raw of [false, true]) {
    it(`reads the whole line in pieces with start_char (raw ${raw})`, async () => {
      expect(LONG.length).toBe(249_999);
      let r = await native.call('read_page', { wiki: 'w', path: 'long.md', offset: 2, raw });
      let got = '';
      let calls = 0;
      for (;;) {
        calls++;
        expect(r.isError, JSON.stringify(r.data).slice(0, 300)).toBe(false);
        expect(size(r.data)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
        const content = r.data.content as string;
        if (r.data.next_start_char === null) {
          // the last piece: the rest of the line and the line after it
          expect(content.endsWith('\nafter\n')).toBe(true);
          got += content.slice(0, -'\nafter\n'.length);
          break;
        }
        expect(r.data).toMatchObject({
          start_line: 2,
          end_line: 2,
          has_more: true,
          next_offset: 2,
        });
        const next = r.data.next_start_char as number;
        if (raw) {
          got += content; // verbatim: no marker inside the stored text
        } else {
          const m =
            / … \[line 2 cut: characters (\d+) to (\d+) of 250000; read on with start_char (\d+)\]$/.exec(
              content,
            );
          expect(m, content.slice(-200)).not.toBeNull();
          expect(Number(m![1])).toBe(got.length);
          got += content.slice(0, m!.index);
          expect(Number(m![3])).toBe(next);
        }
        expect(got.length).toBe(next);
        r = await native.call('read_page', {
          wiki: 'w',
          path: 'long.md',
          offset: 2,
          start_char: next,
          raw,
        });
        expect(calls).toBeLessThan(20);
      }
      expect(got).toBe(LONG);
      expect(calls).toBeGreaterThanOrEqual(4);
    }, 120_000);
  }

  it('a start_char past the end of its line is refused, naming the line length', async () => {
    const r = await native.call('read_page', {
      wiki: 'w',
      path: 'long.md',
      offset: 3,
      start_char: 9,
    });
    expect(r.isError).toBe(true);
    expect(r.data).toMatchObject({ code: 'INVALID_RANGE' });
    expect(r.data.error).toContain('start_char');
  });

  it('the wiki preset (no start_char) cuts the line, says so, and goes on at the next line', async () => {
    const r = await preset.call('read_page', { wiki: 'w', path: 'long.md', offset: 2 });
    expect(r.isError, JSON.stringify(r.data).slice(0, 300)).toBe(false);
    expect(size(r.data)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    expect(r.data).toMatchObject({ start_line: 2, end_line: 2, truncated: true, next_offset: 3 });
    expect(r.data.content).toMatch(
      / … \[line 2 cut at character \d+ of 250000: one read_page answer holds no more of it; search_wiki finds words in the rest\]$/,
    );
    const next = await preset.call('read_page', { wiki: 'w', path: 'long.md', offset: 3 });
    expect(next.data.content).toBe('after\n');
  });
});
