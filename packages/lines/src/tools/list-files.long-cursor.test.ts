import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineTools } from '../package.js';
import { harnessTools } from '../presets/harness.js';
import { type Loose, serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

// A cursor is at most 4096 characters, and a plain cursor (base64 of the last path) fits a path
// of about 2,950 bytes. Deeper paths (Linux allows 4,095 bytes) get a long-form cursor: the
// beginning of the path that fits plus a hash of the whole path. These listings must page to
// the end losing and repeating nothing, and survive the entry under the cursor vanishing.
// 14 folders of 250-character names (3,513 characters), then files and a folder near 3,700.
const DEEP = Array.from({ length: 14 }, (_, i) => String(i).padEnd(250, 'd')).join('/');
const name = (i: number) => `f${String(i).padStart(3, '0')}`.padEnd(180, 'x');
const FILES = 12;
const CURSOR_MAX = 4096;

let t: TempDir;
let native: Awaited<ReturnType<typeof serve>>;
let harness: Awaited<ReturnType<typeof serve>>;
const files: string[] = [];
const withDirs: string[] = [];

beforeAll(async () => {
  t = tempDir('lc-');
  for (let i = 0; i < FILES; i++) {
    const rel = `${DEEP}/${name(i)}`;
    t.write(rel, String(i));
    files.push(rel);
    withDirs.push(rel);
    if (i === 5) {
      // a folder between files, with two files inside: a long cursor that must descend
      const dir = `${DEEP}/${name(i)}y`;
      withDirs.push(dir);
      for (const leaf of ['a', 'b']) {
        t.write(`${dir}/${leaf}`, leaf);
        files.push(`${dir}/${leaf}`);
        withDirs.push(`${dir}/${leaf}`);
      }
    }
  }
  const workspaces = [{ id: 'repo', path: t.dir }];
  native = await serve(lineTools({ workspaces }));
  harness = await serve(harnessTools({ workspaces }));
}, 60_000);
afterAll(async () => {
  await native?.close();
  await harness?.close();
  t?.cleanup();
});

async function page(args: Record<string, unknown>) {
  const r = await native.call('list_files', {
    workspace: 'repo',
    path: '0'.padEnd(250, 'd'),
    ...args,
  });
  expect(r.isError, r.text).toBe(false);
  return r.data as Loose;
}

describe('list_files cursors after paths too long for a plain cursor', () => {
  it('the paths are past what a plain cursor carries', () => {
    expect(Buffer.byteLength(files[0]!)).toBeGreaterThan(3600);
    expect(Buffer.byteLength(files[0]!)).toBeLessThan(4096 - t.dir.length);
  });

  it('pages one entry at a time to the end, in order, nothing lost or repeated', async () => {
    for (const directories of [false, true]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let n = 0; n < 100; n++) {
        const r = await page({
          limit: 1,
          include_directories: directories,
          ...(cursor ? { cursor } : {}),
        });
        for (const e of r.entries) seen.push(e.path);
        if (!r.has_more) break;
        cursor = r.next_cursor;
        expect(cursor!.length).toBeLessThanOrEqual(CURSOR_MAX);
      }
      const all = directories
        ? [
            ...Array.from({ length: 13 }, (_, i) =>
              DEEP.split('/')
                .slice(0, i + 2)
                .join('/'),
            ),
            ...withDirs,
          ]
        : files;
      expect(seen).toEqual(all);
    }
  }, 60_000);

  it('continues after the vanished entry under a long cursor, losing nothing', async () => {
    const first = await page({ limit: 3 });
    expect(first.entries.map((e: Loose) => e.path)).toEqual(files.slice(0, 3));
    fs.rmSync(t.abs(files[2]!));
    try {
      const next = await page({ limit: 100, cursor: first.next_cursor });
      const paths: string[] = next.entries.map((e: Loose) => e.path);
      // everything after the vanished entry is there, in order; earlier entries sharing the
      // cursor's known beginning may repeat
      expect(paths.slice(-(files.length - 3))).toEqual(files.slice(3));
      expect(paths).not.toContain(files[2]);
    } finally {
      t.write(files[2]!, '2');
    }
  }, 60_000);

  it("the harness preset's list_project_files continues the same way", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 100; n++) {
      const r = await harness.call('list_project_files', {
        workspace: 'repo',
        path: DEEP,
        limit: 4,
        ...(cursor ? { cursor } : {}),
      });
      expect(r.isError, r.text).toBe(false);
      for (const e of r.data.entries) seen.push(e.path);
      if (!r.data.hasMore) break;
      cursor = r.data.nextCursor;
    }
    expect(seen).toEqual(files);
  }, 60_000);

  it('an edited long cursor is refused', async () => {
    const first = await page({ limit: 1 });
    const json = JSON.parse(Buffer.from(first.next_cursor, 'base64url').toString('utf8'));
    expect(json.p.p).toBeUndefined();
    expect(json.p.x).toMatch(/^[0-9a-f]{16}$/);
    json.p.x = '0000000000000000';
    const forged = Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');
    const r = await native.call('list_files', {
      workspace: 'repo',
      path: '0'.padEnd(250, 'd'),
      limit: 1,
      cursor: forged,
    });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('INVALID_CURSOR');
  });
});
