import { mkdirSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { memoryTools } from '../package.js';
import { storeFixture, toolsFixture } from './fixture.js';
import type { BackendUnderTest } from './target.js';

/** `dir`'s path followed by `parts` as bytes: numbers are raw bytes (not valid UTF-8). */
function rawPath(dir: string, ...parts: Array<string | number[]>): Buffer {
  return Buffer.concat([
    Buffer.from(`${dir}/`),
    ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))),
  ]);
}

/** Notes with names that are not UTF-8: a file, a folder (with a note in it), a nested file. */
function seedInvalidNames(dir: string): void {
  writeFileSync(rawPath(dir, 'note', [0xfe], '.md'), '# Lost\n\nquince jam\n');
  mkdirSync(rawPath(dir, 'bad', [0xff], 'dir'));
  writeFileSync(rawPath(dir, 'bad', [0xff], 'dir/inside.md'), 'quince tart\n');
  mkdirSync(join(dir, 'sub'), { recursive: true });
  writeFileSync(rawPath(dir, 'sub/caf', [0xc3, 0xa9, 0xe9], '.md'), 'quince paste\n');
}

/** Issue 30's hardening of the store: edits that keep size and mtime. */
export function hardeningTests(target: BackendUnderTest): void {
  const fx = storeFixture(target);

  describe('an edit in place that keeps the size and restores the mtime (issue 30 #12)', () => {
    test('search marks it stale, status counts it changed, reindex re-reads it, search finds the new words', async () => {
      const file = join(fx.dir.path, 'pantry.md');
      writeFileSync(file, '# Pantry\n\nSaffron threads in the blue tin.\n');
      // An hour old, so the first reindex trusts it (a file changed moments ago is re-read).
      const hourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(file, hourAgo, hourAgo);
      const store = fx.make();
      const first = await store.reindex({});
      expect(first.added).toBe(1);
      const before = statSync(file);
      // Same length, other words; then the mtime put back (cp -p, rsync --inplace -t, touch -r).
      writeFileSync(file, '# Pantry\n\nPaprika flakes in the red tin.\n'.padEnd(before.size, ' '));
      expect(statSync(file).size).toBe(before.size);
      utimesSync(file, before.atime, before.mtime);
      expect(statSync(file).mtimeMs).toBe(before.mtimeMs);

      const old = await store.search({ query: 'saffron' });
      expect(old.results.map((c) => [c.path, c.stale])).toEqual([['notes/pantry.md', true]]);
      const status = await store.listSources();
      expect(status.sources[0]!.pending).toMatchObject({ changed: 1 });
      const again = await store.reindex({});
      expect(again).toMatchObject({ updated: 1, unchanged: 0 });
      expect((await store.search({ query: 'saffron' })).results).toEqual([]);
      const now = await store.search({ query: 'paprika' });
      expect(now.results.map((c) => [c.path, c.stale])).toEqual([['notes/pantry.md', false]]);
      // Nothing changed since: the next reindex leaves it alone.
      expect(await store.reindex({})).toMatchObject({ updated: 0 });
    });
  });

  describe('notes whose names are not UTF-8 (issue 30 #14)', () => {
    const expected = ['notes/bad\\xffdir/', 'notes/note\\xfe.md', 'notes/sub/café\\xe9.md'];
    for (const watch of [false, true]) {
      test(`reindex and list_sources report each skipped entry, escaped (watch: ${watch})`, async () => {
        fx.dir.write('ok.md', '# Fine\n\nquince\n');
        seedInvalidNames(fx.dir.path);
        const store = fx.make({ watch });
        const first = await store.reindex({});
        expect(first).toMatchObject({ added: 1, errors: [] });
        expect(first.unlisted).toEqual({ count: 3, names: expected });
        const status = await store.listSources();
        expect(status.sources[0]!.unlisted).toEqual({
          count: 3,
          names: expected.map((n) => n.slice('notes/'.length)),
        });
        expect(status.sources[0]!.pending).toEqual({ new: 0, changed: 0, deleted: 0 });
        // A second reindex (watched, when watching) still says so; renaming one fixes it.
        expect((await store.reindex({})).unlisted.count).toBe(3);
        renameSync(rawPath(fx.dir.path, 'note', [0xfe], '.md'), join(fx.dir.path, 'note.md'));
        const fixed = await store.reindex({});
        expect(fixed).toMatchObject({ added: 1 });
        expect(fixed.unlisted).toEqual({
          count: 2,
          names: ['notes/bad\\xffdir/', 'notes/sub/café\\xe9.md'],
        });
        const found = await store.search({ query: 'quince' });
        expect(found.results.map((r) => r.path).sort()).toEqual(['notes/note.md', 'notes/ok.md']);
      });
    }

    test('a clean folder reports none', async () => {
      fx.dir.write('ok.md', 'fine\n');
      const store = fx.make();
      expect((await store.reindex({})).unlisted).toEqual({ count: 0, names: [] });
      expect((await store.listSources()).sources[0]!.unlisted).toEqual({ count: 0, names: [] });
    });
  });
}

/** The same over MCP: the answers of memory_reindex and memory_list_sources carry `unlisted`. */
export function hardeningToolTests(target: BackendUnderTest): void {
  const fx = toolsFixture(target, {
    sourceId: 'notes',
    files: { 'ok.md': '# Fine\n\nquince\n' },
    tools: (store) => memoryTools(store),
  });
  test('memory_reindex and memory_list_sources answer with the unlisted entries (issue 30 #14)', async () => {
    seedInvalidNames(fx.dir.path);
    const reindex = (await fx.call('memory_reindex', {})) as CallToolResult;
    expect(reindex.isError).toBeFalsy();
    expect(reindex.structuredContent).toMatchObject({
      added: 1,
      unlisted: {
        count: 3,
        names: ['notes/bad\\xffdir/', 'notes/note\\xfe.md', 'notes/sub/café\\xe9.md'],
      },
    });
    const list = (await fx.call('memory_list_sources', {})) as CallToolResult;
    expect(list.isError).toBeFalsy();
    const sources = (list.structuredContent as { sources: Array<{ unlisted: unknown }> }).sources;
    expect(sources[0]!.unlisted).toEqual({
      count: 3,
      names: ['bad\\xffdir/', 'note\\xfe.md', 'sub/café\\xe9.md'],
    });
  });
}
