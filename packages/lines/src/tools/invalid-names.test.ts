import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeInvalidUtf8 } from '../lib/walk.js';
import { lineTools } from '../package.js';
import { serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

// Issue 30 #14: list_files left out `file\xfe.txt` and a folder `bad\xffdir/` with no count and
// has_more false; search counted the files as unreadable and never entered the folder. Every
// such entry is now reported, its invalid bytes escaped.
let t: TempDir;
let s: Awaited<ReturnType<typeof serve>>;
const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
beforeAll(async () => {
  t = tempDir();
  t.write('ok.txt', 'needle\n');
  t.write('sub/fine.txt', 'needle\n');
  const dir = Buffer.from(t.dir);
  writeFileSync(bytes(dir.toString(), '/', 'file', [0xfe], '.txt'), 'needle\n');
  mkdirSync(bytes(dir.toString(), '/', 'bad', [0xff], 'dir'));
  writeFileSync(bytes(dir.toString(), '/', 'bad', [0xff], 'dir/inside.txt'), 'needle\n');
  writeFileSync(bytes(dir.toString(), '/sub/caf', [0xc3, 0xa9, 0xe9], '.md'), 'needle\n');
  s = await serve(lineTools({ workspaces: [{ id: 'w', path: t.dir }] }));
});
afterAll(async () => {
  await s?.close();
  t?.cleanup();
});

describe('names that are not UTF-8 (issue 30 #14)', () => {
  it('escapes invalid bytes and keeps valid characters', () => {
    expect(escapeInvalidUtf8(bytes('file', [0xfe], '.txt'))).toBe('file\\xfe.txt');
    expect(escapeInvalidUtf8(bytes('caf', [0xc3, 0xa9, 0xe9], '.md'))).toBe('café\\xe9.md');
    expect(escapeInvalidUtf8(bytes([0xe2, 0x82], 'x'))).toBe('\\xe2\\x82x');
  });

  it('list_files reports every entry it cannot list, with the name escaped', async () => {
    const r = await s.call('list_files', { workspace: 'w', include_directories: true });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.entries.map((e: { path: string }) => e.path)).toEqual([
      'ok.txt',
      'sub',
      'sub/fine.txt',
    ]);
    expect(r.data.unlisted).toEqual({
      count: 3,
      names: ['bad\\xffdir', 'file\\xfe.txt', 'sub/café\\xe9.md'],
    });
    // A second page resumed inside the listing does not report them again.
    const first = await s.call('list_files', { workspace: 'w', limit: 1 });
    const rest = await s.call('list_files', {
      workspace: 'w',
      limit: 10,
      cursor: first.data.next_cursor,
    });
    expect(first.data.unlisted.count + rest.data.unlisted.count).toBe(3);
  });

  it('search_text counts them under skipped.invalid_name', async () => {
    const r = await s.call('search_text', { workspace: 'w', query: 'needle' });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.matches.map((m: { path: string }) => m.path)).toEqual(['ok.txt', 'sub/fine.txt']);
    expect(r.data.skipped).toMatchObject({ invalid_name: 3, unreadable: 0 });
  });
});
