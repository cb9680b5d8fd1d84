import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { storeFixture } from './fixture.js';
import type { BackendUnderTest } from './target.js';

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
}
