import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_OUTPUT_BYTES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
