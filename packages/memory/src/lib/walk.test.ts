import {
  lstatSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createRootSync } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type TempDir, tempDir } from '../test-helpers/fs.js';
import { StatWorker } from './stat-worker.js';
import {
  compileGlobs,
  DEFAULT_EXCLUDE,
  DEFAULT_INCLUDE,
  type ResolvedSource,
  WalkCache,
  type WalkStats,
  walkSource,
  walkSourceAsync,
} from './walk.js';

let dir: TempDir;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

function source(cache?: WalkCache): ResolvedSource {
  return {
    id: 'n',
    root: createRootSync(dir.path),
    include: [...DEFAULT_INCLUDE],
    exclude: [...DEFAULT_EXCLUDE],
    ...compileGlobs(DEFAULT_INCLUDE, DEFAULT_EXCLUDE),
    walkCache: cache,
  };
}

const listed = (s: ResolvedSource) =>
  walkSource(s)
    .map((f) => f.key)
    .sort();

/** Sets a folder's times a minute back, so its listing is trusted by the cache; returns them. */
function age(rel: string): Date {
  const t = new Date(Date.now() - 60_000);
  utimesSync(rel === '' ? dir.path : join(dir.path, rel), t, t);
  return t;
}

describe('walkSource', () => {
  test('finds included files with size, mtime and inode, skipping hidden, links and excluded', () => {
    dir.write('a.md', 'alpha\n');
    dir.write('sub/b.txt', 'beta\n');
    dir.write('.hidden/c.md', 'x');
    dir.write('node_modules/p/d.md', 'x');
    dir.write('image.png', 'x');
    symlinkSync(join(dir.path, 'a.md'), join(dir.path, 'link.md'));
    const stats: WalkStats = { links: 0, special: 0, unreadable: 0, unnamed: [] };
    const files = walkSource(source(), stats);
    expect(files.map((f) => f.key).sort()).toEqual(['n/a.md', 'n/sub/b.txt']);
    const a = files.find((f) => f.path === 'a.md')!;
    expect(a).toMatchObject({ size: 6 });
    expect(a.ino).toBeGreaterThan(0);
    expect(stats.links).toBe(1);
  });

  test('a cached listing is reused only while its folder is unchanged', () => {
    dir.write('a.md', 'one\n');
    dir.write('sub/b.md', 'two\n');
    age('');
    age('sub');
    const cache = new WalkCache();
    const s = source(cache);
    expect(listed(s)).toEqual(['n/a.md', 'n/sub/b.md']);
    expect(cache.folders.get('sub')?.trusted).toBe(true);
    // In-place edit: the folder's mtime stays, the file's stat shows the change.
    const before = walkSource(s).find((f) => f.path === 'sub/b.md')!;
    writeFileSync(join(dir.path, 'sub', 'b.md'), 'two, longer now\n');
    age('sub');
    const after = walkSource(s).find((f) => f.path === 'sub/b.md')!;
    expect(after.size).not.toBe(before.size);
    // Added, renamed and deleted entries change the folder's mtime: listed again.
    dir.write('sub/c.md', 'three\n');
    expect(listed(s)).toEqual(['n/a.md', 'n/sub/b.md', 'n/sub/c.md']);
    renameSync(join(dir.path, 'sub', 'c.md'), join(dir.path, 'sub', 'd.md'));
    expect(listed(s)).toEqual(['n/a.md', 'n/sub/b.md', 'n/sub/d.md']);
    rmSync(join(dir.path, 'a.md'));
    expect(listed(s)).toEqual(['n/sub/b.md', 'n/sub/d.md']);
    // A folder that disappears is forgotten.
    rmSync(join(dir.path, 'sub'), { recursive: true });
    expect(listed(s)).toEqual([]);
    expect(cache.folders.has('sub')).toBe(false);
  });

  test('a folder changed just before it was listed is listed again next time', () => {
    dir.write('a.md', 'one\n');
    // Changed half a second ago: its mtime could still change within the same tick.
    const t = new Date(Date.now() - 500);
    utimesSync(dir.path, t, t);
    const cache = new WalkCache();
    const s = source(cache);
    expect(listed(s)).toEqual(['n/a.md']);
    expect(cache.folders.get('')?.trusted).toBe(false);
    dir.write('b.md', 'two\n');
    utimesSync(dir.path, t, t);
    // The folder looks unchanged (the same times were set again); only the racy rule makes
    // the walk list it again.
    expect(lstatSync(dir.path).mtimeMs).toBe(cache.folders.get('')!.mtime);
    expect(listed(s)).toEqual(['n/a.md', 'n/b.md']);
  });

  test('a cached file that became a folder or a link is skipped', () => {
    dir.write('x.md', 'one\n');
    const t = age('');
    const cache = new WalkCache();
    const s = source(cache);
    expect(listed(s)).toEqual(['n/x.md']);
    rmSync(join(dir.path, 'x.md'));
    symlinkSync(join(dir.path, 'elsewhere.md'), join(dir.path, 'x.md'));
    // Even with the folder's mtime put back, so the cached listing is used: lstat says link.
    utimesSync(dir.path, t, t);
    expect(listed(s)).toEqual([]);
    expect(cache.folders.get('')?.files.map((f) => f.path)).toEqual(['x.md']);
  });
});

describe('walkSourceAsync', () => {
  /** 12 folders of 5 notes, a link, a deleted entry: the same files whichever thread stats them. */
  function tree(): void {
    for (let d = 0; d < 12; d++) {
      for (let f = 0; f < 5; f++) dir.write(`d${d}/n${f}.md`, `note ${d} ${f}\n`.repeat(d + f + 1));
    }
    dir.write('top.md', 'top\n');
    symlinkSync(join(dir.path, 'top.md'), join(dir.path, 'd11', 'link.md'));
  }

  test('stats part of the files on the worker: same files, same order, same stats', async () => {
    tree();
    const worker = new StatWorker();
    try {
      const here = walkSource(source(new WalkCache()));
      expect(here).toHaveLength(61);
      const s = source(new WalkCache());
      const there = await walkSourceAsync(s, { worker, workerMinFiles: 0, adaptive: false });
      expect(there).toEqual(here);
      // Again with the listings cached, after an in-place edit and a deletion in the worker's half.
      writeFileSync(join(dir.path, 'd11', 'n0.md'), 'changed in place, longer than before\n');
      rmSync(join(dir.path, 'd10', 'n1.md'));
      const again = await walkSourceAsync(s, { worker, workerMinFiles: 0, adaptive: false });
      expect(again).toEqual(walkSource(source()));
      expect(again.find((f) => f.path === 'd11/n0.md')?.size).toBe(37);
      expect(again.some((f) => f.path === 'd10/n1.md')).toBe(false);
    } finally {
      await worker.close();
    }
  });

  test('unchanged listings reuse the paths the worker holds, and edits in place are still seen', async () => {
    tree();
    for (let d = 0; d < 12; d++) age(`d${d}`);
    age('');
    const worker = new StatWorker();
    const sent: Array<readonly string[]> = [];
    const recording = {
      stat: (paths: readonly string[]) => {
        sent.push(paths);
        return worker.stat(paths);
      },
    } as unknown as StatWorker;
    try {
      const s = source(new WalkCache());
      const first = await walkSourceAsync(s, {
        worker: recording,
        workerMinFiles: 0,
        adaptive: false,
      });
      expect(first).toEqual(walkSource(source()));
      for (let d = 0; d < 12; d++) {
        writeFileSync(join(dir.path, `d${d}`, 'n2.md'), `edited in place ${d}\n`);
      }
      const second = await walkSourceAsync(s, {
        worker: recording,
        workerMinFiles: 0,
        adaptive: false,
      });
      expect(sent).toHaveLength(2);
      expect(sent[1]).toBe(sent[0]);
      expect(second).toEqual(walkSource(source()));
      const edited = second.filter((f) => f.path.endsWith('/n2.md'));
      expect(edited).toHaveLength(12);
      for (const f of edited) {
        const d = f.path.slice(1, f.path.indexOf('/'));
        expect(f.size).toBe(`edited in place ${d}\n`.length);
      }
    } finally {
      await worker.close();
    }
  });

  test('after two walks where the worker did not pay, the next walks go without it for a while', async () => {
    tree();
    const worker = new StatWorker();
    let asked = 0;
    // A worker whose answers come late, as on a machine with no free core.
    const late = {
      stat: async (paths: readonly string[]) => {
        asked++;
        const out = await worker.stat(paths);
        await new Promise((r) => setTimeout(r, 300));
        return out;
      },
      worthAsking: () => worker.worthAsking(),
      judge: (mine: number, total: number) => worker.judge(mine, total),
    } as unknown as StatWorker;
    try {
      const expected = walkSource(source());
      // The first answer of a new thread includes its start-up: not judged. Then two late
      // answers in a row (one alone could be a pause of the thread).
      for (let i = 0; i < 3; i++) {
        expect(await walkSourceAsync(source(), { worker: late, workerMinFiles: 0 })).toEqual(
          expected,
        );
      }
      expect(asked).toBe(3);
      for (let i = 0; i < StatWorker.SKIP_WALKS; i++) {
        expect(await walkSourceAsync(source(), { worker: late, workerMinFiles: 0 })).toEqual(
          expected,
        );
      }
      expect(asked).toBe(3);
      // Then it is tried again.
      await walkSourceAsync(source(), { worker: late, workerMinFiles: 0 });
      expect(asked).toBe(4);
    } finally {
      await worker.close();
    }
  });

  test('a closed or failing worker leaves the work to the calling thread', async () => {
    tree();
    const worker = new StatWorker();
    await worker.close();
    await expect(worker.stat(['/'])).rejects.toThrow('closed');
    const files = await walkSourceAsync(source(), { worker, workerMinFiles: 0, adaptive: false });
    expect(files).toEqual(walkSource(source()));
  });

  test('small sources never start the worker', async () => {
    tree();
    const worker = new StatWorker();
    let asked = 0;
    const counting = {
      stat: (paths: readonly string[]) => {
        asked++;
        return worker.stat(paths);
      },
    } as unknown as StatWorker;
    try {
      await walkSourceAsync(source(), { worker: counting });
      expect(asked).toBe(0);
      await walkSourceAsync(source(), { worker: counting, workerMinFiles: 10, adaptive: false });
      expect(asked).toBe(1);
    } finally {
      await worker.close();
    }
  });

  test("a folder swapped for a link while its files are stat'ed is not read through the link", async () => {
    tree();
    const outside = tempDir();
    try {
      for (let f = 0; f < 5; f++) outside.write(`n${f}.md`, 'OUTSIDE '.repeat(100));
      const worker = new StatWorker();
      // The swap happens between the listing and the stats (the worker holds the last folders).
      const swapping = {
        stat: (paths: readonly string[]) => {
          renameSync(join(dir.path, 'd9'), join(dir.path, 'd9-old'));
          symlinkSync(outside.path, join(dir.path, 'd9'));
          return worker.stat(paths);
        },
      } as unknown as StatWorker;
      try {
        const files = await walkSourceAsync(source(), {
          worker: swapping,
          workerMinFiles: 0,
          adaptive: false,
        });
        expect(files.some((f) => f.size === 800)).toBe(false);
        expect(files.some((f) => f.path.startsWith('d9/'))).toBe(false);
        expect(files.filter((f) => f.path.startsWith('d8/'))).toHaveLength(5);
        // A folder swapped for another real folder: its files are stat'ed in the new one.
        rmSync(join(dir.path, 'd9'));
        mkdirSync(join(dir.path, 'd9'));
        writeFileSync(join(dir.path, 'd9', 'n0.md'), 'new folder\n');
        const replacing = {
          stat: (paths: readonly string[]) => {
            renameSync(join(dir.path, 'd9'), join(dir.path, 'd9-gone'));
            mkdirSync(join(dir.path, 'd9'));
            writeFileSync(join(dir.path, 'd9', 'n0.md'), 'the replacement folder\n');
            return worker.stat(paths);
          },
        } as unknown as StatWorker;
        const second = await walkSourceAsync(source(), {
          worker: replacing,
          workerMinFiles: 0,
          adaptive: false,
        });
        expect(second.filter((f) => f.path.startsWith('d9/'))).toEqual([
          expect.objectContaining({ path: 'd9/n0.md', size: 23 }),
        ]);
      } finally {
        await worker.close();
      }
    } finally {
      outside.cleanup();
    }
  });
});

describe('names that are not UTF-8 (issue 30 #14)', () => {
  /** Creates `rel` (segments joined by `/`, byte arrays for invalid bytes) under the folder. */
  const at = (...parts: Array<string | number[]>) =>
    Buffer.concat([
      Buffer.from(`${dir.path}/`),
      ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))),
    ]);
  function seed(): void {
    dir.write('ok.md', 'fine\n');
    dir.write('sub/fine.md', 'fine\n');
    writeFileSync(at('note', [0xfe], '.md'), 'lost\n');
    writeFileSync(at('image', [0xfe], '.png'), 'not included\n');
    writeFileSync(at('.hid', [0xfe], '.md'), 'hidden\n');
    mkdirSync(at('bad', [0xff], 'dir'));
    writeFileSync(at('bad', [0xff], 'dir/inside.md'), 'lost too\n');
    writeFileSync(at('sub/caf', [0xc3, 0xa9, 0xe9], '.md'), 'lost\n');
    mkdirSync(at('node_modules'));
    mkdirSync(at('node_modules/p', [0xff]));
    symlinkSync(join(dir.path, 'ok.md'), at('link', [0xfe], '.md'));
  }
  const expected = ['bad\\xffdir/', 'note\\xfe.md', 'sub/café\\xe9.md'];

  test('walkSource reports each skipped file and folder, escaped, and walks the rest', () => {
    seed();
    const stats: WalkStats = { links: 0, special: 0, unreadable: 0, unnamed: [] };
    expect(listed(source())).toEqual(['n/ok.md', 'n/sub/fine.md']);
    const files = walkSource(source(), stats);
    expect(files.map((f) => f.key).sort()).toEqual(['n/ok.md', 'n/sub/fine.md']);
    // Not included (.png), hidden, and inside an excluded folder: skipped by the rules, as
    // with valid names; the link is counted as a link.
    expect([...stats.unnamed].sort()).toEqual(expected);
    expect(stats.links).toBe(1);
  });

  test('a cached listing still reports them, and the stat worker path does too', async () => {
    seed();
    age('');
    age('sub');
    const cache = new WalkCache();
    const s = source(cache);
    for (let round = 0; round < 2; round++) {
      const stats: WalkStats = { links: 0, special: 0, unreadable: 0, unnamed: [] };
      walkSource(s, stats);
      expect([...stats.unnamed].sort()).toEqual(expected);
    }
    const worker = new StatWorker();
    try {
      const stats: WalkStats = { links: 0, special: 0, unreadable: 0, unnamed: [] };
      const files = await walkSourceAsync(s, {
        stats,
        worker,
        workerMinFiles: 1,
        adaptive: false,
      });
      expect(files.map((f) => f.key).sort()).toEqual(['n/ok.md', 'n/sub/fine.md']);
      expect([...stats.unnamed].sort()).toEqual(expected);
    } finally {
      await worker.close();
    }
  });
});
