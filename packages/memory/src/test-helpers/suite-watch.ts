import { appendFileSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { bySize } from '@lectern/core/testing';
import { expect, test } from 'vitest';
import { sourceWatchers } from '../store.js';
import type { MemoryOptions, MemoryStore } from '../types.js';
import { storeFixture } from './fixture.js';
import { tempDir } from './fs.js';
import type { BackendUnderTest } from './target.js';

/**
 * A store with `watch: true` against one backend: real folders, real `fs.watch`, and the index
 * each watched reindex leaves compared with the one a full reindex of the same files builds.
 */
export function watchTests(target: BackendUnderTest): void {
  const fx = storeFixture(target);
  const make = fx.make;

  /** How the last reindex of `store` walked the notes. */
  const lastWalk = (store: MemoryStore) => sourceWatchers(store)?.get('notes')?.lastWalk;

  /** Everything the index of database `db` holds about files: identity, content hash, problems, chunks. */
  async function snapshot(db: string) {
    const backend = target.backend(db)({
      sources: [{ id: 'notes', root: fx.dir.path }],
      dbPath: undefined,
      language: 'simple',
    });
    try {
      const status = await backend.status();
      const files = [];
      for (const f of [...status.files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
        const found = await backend.lookup(f.source, f.path);
        const row = found.kind === 'file' ? found.file : undefined;
        files.push({
          path: f.path,
          size: f.size,
          mtime: f.mtime,
          ino: row?.ino,
          sha256: row?.sha256,
        });
      }
      return {
        files,
        chunks: status.chunks.get('notes') ?? 0,
        problems: [...status.problems]
          .map((p) => ({ path: p.path, size: p.size, mtime: p.mtime }))
          .sort((a, b) => (a.path < b.path ? -1 : 1)),
      };
    } finally {
      await backend.close();
    }
  }

  /** Reindexes the watched store, checks it walked the watched way, and compares its index with a full one. */
  async function expectSameAsFull(watched: MemoryStore, options: Partial<MemoryOptions> = {}) {
    const r = await watched.reindex();
    expect(lastWalk(watched)).toBe('watched');
    const fresh = make({ ...options, db: 'full' });
    await fresh.reindex({ full: true });
    await fresh.close();
    expect(await snapshot('main')).toEqual(await snapshot('full'));
    const listed = await watched.listSources();
    expect(listed.sources[0]?.pending).toEqual({ new: 0, changed: 0, deleted: 0 });
    return r;
  }

  test('a watched store reindexes edits, new, removed and renamed notes and folders like a full walk', async () => {
    fx.dir.write('a.md', '# Alpha\n\nThe first note.\n');
    fx.dir.write('sub/b.md', '# Beta\n\nThe second note.\n');
    const store = make({ watch: true });
    expect((await store.reindex()).added).toBe(2);
    expect(lastWalk(store)).toBe('full');

    appendFileSync(join(fx.dir.path, 'sub/b.md'), '\nA platypus appears.\n');
    expect((await expectSameAsFull(store)).updated).toBe(1);
    expect((await store.search({ query: 'platypus' })).results.map((c) => c.path)).toEqual([
      'notes/sub/b.md',
    ]);

    fx.dir.write('new.md', '# New\n\nA wombat.\n');
    expect((await expectSameAsFull(store)).added).toBe(1);

    renameSync(join(fx.dir.path, 'new.md'), join(fx.dir.path, 'sub/renamed.md'));
    expect((await expectSameAsFull(store)).renamed).toBe(1);

    rmSync(join(fx.dir.path, 'a.md'));
    expect((await expectSameAsFull(store)).removed).toBe(1);

    mkdirSync(join(fx.dir.path, 'trip/day1'), { recursive: true });
    fx.dir.write('trip/day1/log.md', '# Day one\n\nA quokka.\n');
    fx.dir.write('trip/plan.md', '# Plan\n');
    expect((await expectSameAsFull(store)).added).toBe(2);
    expect((await store.search({ query: 'quokka' })).results).toHaveLength(1);

    rmSync(join(fx.dir.path, 'trip'), { recursive: true });
    expect((await expectSameAsFull(store)).removed).toBe(2);
    expect((await store.search({ query: 'quokka' })).results).toHaveLength(0);
  });

  test('a link appearing, and a note that grows past the size limit, as a full walk treats them', async () => {
    const outside = tempDir('lectern-memory-outside-');
    try {
      outside.write('secret.md', '# Secret\n\nA narwhal.\n');
      fx.dir.write('a.md', '# Alpha\n');
      fx.dir.write('grow.md', '# Small\n');
      const store = make({ watch: true, maxFileBytes: 1000 });
      await store.reindex();

      symlinkSync(join(outside.path, 'secret.md'), join(fx.dir.path, 'link.md'));
      symlinkSync(outside.path, join(fx.dir.path, 'linked-folder'));
      await expectSameAsFull(store, { maxFileBytes: 1000 });
      expect((await store.search({ query: 'narwhal' })).results).toHaveLength(0);

      appendFileSync(join(fx.dir.path, 'grow.md'), 'x'.repeat(2000));
      const r = await expectSameAsFull(store, { maxFileBytes: 1000 });
      expect(r.errors.map((e) => [e.path, e.code])).toEqual([['notes/grow.md', 'FILE_TOO_LARGE']]);
      expect(r.removed).toBe(1);
    } finally {
      outside.cleanup();
    }
  });

  test('falls back to a full walk (forced, or the notes folder made again) and watches again', async () => {
    fx.dir.write('a.md', '# Alpha\n');
    const store = make({ watch: true });
    await store.reindex();
    const watcher = sourceWatchers(store)?.get('notes');
    expect(watcher).toBeDefined();

    watcher?.breakForTest('forced by the test');
    fx.dir.write('b.md', '# Beta\n');
    expect((await store.reindex()).added).toBe(1);
    expect(lastWalk(store)).toBe('full');
    fx.dir.write('c.md', '# Gamma\n');
    await expectSameAsFull(store);

    rmSync(fx.dir.path, { recursive: true });
    fx.dir.write('z.md', '# Zeta\n');
    const r = await store.reindex();
    expect(lastWalk(store)).toBe('full');
    expect(r.removed).toBe(3);
    expect(r.added).toBe(1);
    fx.dir.write('y.md', '# Ypsilon\n');
    await expectSameAsFull(store);

    // `full` walks everything, and watching goes on after it.
    expect((await store.reindex({ full: true })).full).toBe(true);
    expect(lastWalk(store)).toBe('full');
    await expectSameAsFull(store);
  });

  test('after random file operations the watched index equals a full reindex of the same files', async () => {
    const rounds = bySize(8, 60);
    let seed = 170017;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const folders = ['', 'a', 'a/b', 'c'];
    const names = ['one.md', 'two.txt', 'three.md', 'skip.png'];
    const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)]!;
    const rel = (f: string, n: string) => (f === '' ? n : `${f}/${n}`);
    const abs = (p: string) => join(fx.dir.path, p);
    let word = 0;
    fx.dir.write('a/seed.md', '# Seed\n');
    const store = make({ watch: true, maxFileBytes: 400 });
    await store.reindex();
    for (let i = 0; i < rounds; i++) {
      for (let k = 1 + rand(5); k > 0; k--) {
        const p = rel(pick(folders), pick(names));
        try {
          switch (rand(7)) {
            case 0:
            case 1:
              fx.dir.write(p, `# Note\n\nword${word++} ${'filler '.repeat(rand(80))}\n`);
              break;
            case 2:
              appendFileSync(abs(p), `\nword${word++}\n`);
              break;
            case 3:
              rmSync(abs(p), { force: true });
              break;
            case 4:
              renameSync(abs(p), abs(rel(pick(folders), pick(names))));
              break;
            case 5: {
              const f = pick(folders);
              if (f !== '') rmSync(abs(f), { recursive: true, force: true });
              break;
            }
            default: {
              const t = new Date(Date.now() - 10_000 - rand(100_000));
              utimesSync(abs(p), t, t);
            }
          }
        } catch {
          // the operation did not apply (a missing file or folder)
        }
      }
      await expectSameAsFull(store, { maxFileBytes: 400 });
    }
  }, 180_000);
}
