import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LINE_LIMITS } from '../lib/limits.js';
import { lineTools } from '../package.js';
import { harnessTools } from '../presets/harness.js';
import { type Loose, serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

// The worst case of list_files before a byte budget: a full page (1000 entries) of paths near
// the longest a plain cursor carries whole (~3 KB) is ~3 MB of JSON. Each page must now stay within the
// 64 KiB output budget and the cursor must continue where it stopped, losing nothing.
const BUDGET = DEFAULT_LINE_LIMITS.maxOutputBytes;
const FILES = 1000;
// 11 folders of 250-character names, then files named to a path of ~2960 characters.
const DEEP = Array.from({ length: 11 }, (_, i) => String(i).padEnd(250, 'd')).join('/');
const fileName = (i: number) => `f${String(i).padStart(4, '0')}`.padEnd(190, 'x');

let t: TempDir;
let native: Awaited<ReturnType<typeof serve>>;
let harness: Awaited<ReturnType<typeof serve>>;
let escaped: Awaited<ReturnType<typeof serve>>;
const expected: string[] = [];

beforeAll(async () => {
  t = tempDir();
  for (let i = 0; i < FILES; i++) {
    const rel = `${DEEP}/${fileName(i)}`;
    t.write(rel, String(i));
    expected.push(rel);
  }
  // Names of control characters: each byte is six bytes of JSON (\u0001).
  const ctl = '\u0001'.repeat(250);
  t.write(`esc/${ctl}/${ctl}/${ctl}/${ctl}/f`, 'x');
  const workspaces = [{ id: 'repo', path: t.dir }];
  native = await serve(lineTools({ workspaces }));
  harness = await serve(harnessTools({ workspaces }));
  escaped = await serve(lineTools({ workspaces, limits: { maxOutputBytes: 8192 } }));
}, 120_000);
afterAll(async () => {
  await native?.close();
  await harness?.close();
  await escaped?.close();
  t?.cleanup();
});

/** Pages through a listing, checking each page's size; returns every path in order. */
async function listAll(
  call: (cursor: string | undefined) => Promise<{ isError: boolean; data: Loose; text: string }>,
  keys: { entries: string; more: string; next: string },
): Promise<{ paths: string[]; pages: number; largest: number }> {
  const paths: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  let largest = 0;
  for (;;) {
    const r = await call(cursor);
    expect(r.isError, r.text).toBe(false);
    const bytes = Buffer.byteLength(JSON.stringify(r.data));
    largest = Math.max(largest, bytes);
    expect(bytes).toBeLessThanOrEqual(BUDGET);
    pages++;
    for (const e of r.data[keys.entries]) paths.push(e.path);
    if (!r.data[keys.more]) {
      expect(r.data[keys.next]).toBeNull();
      break;
    }
    expect(r.data[keys.entries].length).toBeGreaterThan(0);
    cursor = r.data[keys.next];
    expect(cursor!.length).toBeLessThanOrEqual(4096);
    expect(pages).toBeLessThan(FILES);
  }
  return { paths, pages, largest };
}

describe('list_files stays within the output budget', () => {
  it('pages 1000 entries of ~3 KB paths by bytes, each page under 64 KiB, nothing lost or repeated', async () => {
    const all = await listAll(
      (cursor) =>
        native.call('list_files', {
          workspace: 'repo',
          path: DEEP.split('/')[0],
          limit: 1000,
          ...(cursor ? { cursor } : {}),
        }),
      { entries: 'entries', more: 'has_more', next: 'next_cursor' },
    );
    expect(all.paths).toEqual(expected);
    // ~3 KB per entry: a budget page holds about 20, so the listing takes dozens of pages.
    expect(all.pages).toBeGreaterThan(FILES / 40);
    expect(all.largest).toBeGreaterThan(BUDGET / 2);
  }, 120_000);

  it('a page ends at limit when that comes first, as before', async () => {
    const r = await native.call('list_files', { workspace: 'repo', path: DEEP, limit: 5 });
    expect(r.data.entries.map((e: Loose) => e.path)).toEqual(expected.slice(0, 5));
    expect(r.data.has_more).toBe(true);
  });

  it("the harness preset's list_project_files pages the same way", async () => {
    const all = await listAll(
      (cursor) =>
        harness.call('list_project_files', {
          workspace: 'repo',
          path: DEEP,
          limit: 1000,
          ...(cursor ? { cursor } : {}),
        }),
      { entries: 'entries', more: 'hasMore', next: 'nextCursor' },
    );
    expect(all.paths).toEqual(expected);
    expect(all.pages).toBeGreaterThan(FILES / 40);
  }, 120_000);

  it('an entry that alone cannot fit a page is a coded error, not a cut page', async () => {
    const r = await escaped.call('list_files', { workspace: 'repo', path: 'esc' });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('OUTPUT_TOO_LARGE');
    expect(r.data.details.max_bytes).toBe(8192);
    expect(r.data.details.bytes).toBeGreaterThan(6000);
    // the folders above it still list (directories are short enough)
    const ok = await escaped.call('list_files', {
      workspace: 'repo',
      path: 'esc',
      include_directories: true,
      max_depth: 1,
    });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.data.entries).toHaveLength(1);
  });
});
