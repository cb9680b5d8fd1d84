import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createRootSync } from '@lectern/core';
import { bySize } from '@lectern/core/testing';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type TempDir, tempDir } from '../test-helpers/fs.js';
import {
  changeTime,
  compileGlobs,
  DEFAULT_EXCLUDE,
  DEFAULT_INCLUDE,
  type ResolvedSource,
  WalkCache,
  walkSource,
} from './walk.js';
import { SourceWatcher, type SourceWatcherOptions } from './watch.js';

let dir: TempDir;
let watchers: SourceWatcher[];
beforeEach(() => {
  dir = tempDir();
  watchers = [];
});
afterEach(() => {
  for (const w of watchers) w.close();
  dir.cleanup();
});

function source(path = dir.path, exclude: string[] = [...DEFAULT_EXCLUDE]): ResolvedSource {
  return {
    id: 'n',
    root: createRootSync(path),
    include: [...DEFAULT_INCLUDE],
    exclude,
    ...compileGlobs(DEFAULT_INCLUDE, exclude),
    walkCache: new WalkCache(),
  };
}

function watcher(s = source(), options?: SourceWatcherOptions): SourceWatcher {
  const w = new SourceWatcher(s, options);
  watchers.push(w);
  return w;
}

/** A plain full walk of the same folder (a fresh source: no cached listings). */
const fullWalk = (s: ResolvedSource) => walkSource(source(s.root.path, s.exclude));

/** Walks with the watcher, checks it took the watched way and matches a full walk. */
async function expectWatched(w: SourceWatcher) {
  const files = await w.walk();
  expect({ kind: w.lastWalk, reason: w.lastReason }).toMatchObject({ kind: 'watched' });
  expect(files).toEqual(fullWalk(w.source));
  return files;
}

const keys = (files: Array<{ key: string }>) => files.map((f) => f.key);

describe('SourceWatcher', () => {
  test('the first walk is full and watches; later walks see edits, new, removed and renamed notes', async () => {
    dir.write('a.md', 'alpha\n');
    dir.write('sub/b.md', 'beta\n');
    dir.write('sub/deep/c.md', 'gamma\n');
    const w = watcher();
    const first = await w.walk();
    expect(w.lastWalk).toBe('full');
    expect(first).toEqual(fullWalk(w.source));
    expect(w.watching).toBe(3);

    await expectWatched(w); // nothing changed

    appendFileSync(join(dir.path, 'sub/b.md'), 'more beta\n');
    const edited = await expectWatched(w);
    expect(edited.find((f) => f.key === 'n/sub/b.md')?.size).toBe(15);

    dir.write('sub/new.md', 'new\n');
    expect(keys(await expectWatched(w))).toContain('n/sub/new.md');

    rmSync(join(dir.path, 'a.md'));
    expect(keys(await expectWatched(w))).not.toContain('n/a.md');

    renameSync(join(dir.path, 'sub/deep/c.md'), join(dir.path, 'moved.md'));
    const moved = keys(await expectWatched(w));
    expect(moved).toContain('n/moved.md');
    expect(moved).not.toContain('n/sub/deep/c.md');

    // Saved the way editors do: a new file renamed over the old one.
    writeFileSync(join(dir.path, 'sub/.b.md.tmp'), 'beta, saved atomically\n');
    renameSync(join(dir.path, 'sub/.b.md.tmp'), join(dir.path, 'sub/b.md'));
    expect((await expectWatched(w)).find((f) => f.key === 'n/sub/b.md')?.size).toBe(23);
    // One note moved over another.
    renameSync(join(dir.path, 'sub/new.md'), join(dir.path, 'sub/b.md'));
    expect((await expectWatched(w)).find((f) => f.key === 'n/sub/b.md')?.size).toBe(4);

    // A touch without a content change still shows the new change time (the later of mtime
    // and ctime: the ctime a touch moves, so an mtime put back is seen too).
    const t = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir.path, 'moved.md'), t, t);
    const mtime = (await expectWatched(w)).find((f) => f.key === 'n/moved.md')?.mtime ?? 0;
    expect(mtime).toBe(changeTime(statSync(join(dir.path, 'moved.md'))));
    expect(mtime).toBeGreaterThan(t.getTime());
  });

  test('new folders (with notes made right after them), removed and renamed folders', async () => {
    dir.write('a.md', 'a\n');
    const w = watcher();
    await w.walk();

    mkdirSync(join(dir.path, 'fresh/inner'), { recursive: true });
    writeFileSync(join(dir.path, 'fresh/inner/x.md'), 'x\n');
    writeFileSync(join(dir.path, 'fresh/y.md'), 'y\n');
    expect(keys(await expectWatched(w))).toEqual(['n/a.md', 'n/fresh/y.md', 'n/fresh/inner/x.md']);
    expect(w.watching).toBe(3);

    // Written after the folder was first walked: its own watcher must see it.
    dir.write('fresh/inner/z.md', 'z\n');
    expect(keys(await expectWatched(w))).toContain('n/fresh/inner/z.md');

    renameSync(join(dir.path, 'fresh'), join(dir.path, 'renamed'));
    expect(keys(await expectWatched(w))).toEqual([
      'n/a.md',
      'n/renamed/y.md',
      'n/renamed/inner/x.md',
      'n/renamed/inner/z.md',
    ]);
    // The moved folder's notes still change under their new name.
    appendFileSync(join(dir.path, 'renamed/inner/x.md'), 'more\n');
    await expectWatched(w);

    rmSync(join(dir.path, 'renamed'), { recursive: true });
    expect(keys(await expectWatched(w))).toEqual(['n/a.md']);
    expect(w.watching).toBe(1);

    // A folder replaced by another of the same name, files and all.
    dir.write('again/one.md', '1\n');
    await expectWatched(w);
    rmSync(join(dir.path, 'again'), { recursive: true });
    dir.write('again/two.md', '2\n');
    expect(keys(await expectWatched(w))).toEqual(['n/a.md', 'n/again/two.md']);
  });

  test('links, hidden and excluded entries, FIFOs and a note swapped for a link are treated as a walk treats them', async () => {
    const outside = tempDir('lectern-memory-outside-');
    try {
      outside.write('secret.md', 'outside\n');
      outside.write('folder/s.md', 'outside\n');
      dir.write('a.md', 'a\n');
      dir.write('sub/b.md', 'b\n');
      const w = watcher();
      await w.walk();

      symlinkSync(join(outside.path, 'secret.md'), join(dir.path, 'link.md'));
      symlinkSync(join(outside.path, 'folder'), join(dir.path, 'linkdir'));
      symlinkSync(join(dir.path, 'sub'), join(dir.path, 'inroot'));
      dir.write('.hidden/h.md', 'h\n');
      dir.write('node_modules/p/m.md', 'm\n');
      spawnSync('mkfifo', [join(dir.path, 'pipe.md')]);
      expect(keys(await expectWatched(w))).toEqual(['n/a.md', 'n/sub/b.md']);
      expect(w.watching).toBe(2); // nothing under links, hidden or excluded folders

      // A note replaced by a link to a file outside: gone from the walk.
      rmSync(join(dir.path, 'sub/b.md'));
      symlinkSync(join(outside.path, 'secret.md'), join(dir.path, 'sub/b.md'));
      expect(keys(await expectWatched(w))).toEqual(['n/a.md']);
      // Writes outside through the link change nothing here.
      appendFileSync(join(outside.path, 'secret.md'), 'more\n');
      await expectWatched(w);
      // A folder replaced by a link to one outside: not entered.
      rmSync(join(dir.path, 'sub'), { recursive: true });
      symlinkSync(join(outside.path, 'folder'), join(dir.path, 'sub'));
      expect(keys(await expectWatched(w))).toEqual(['n/a.md']);
      // ... and back to a real folder.
      rmSync(join(dir.path, 'sub'));
      dir.write('sub/c.md', 'c\n');
      expect(keys(await expectWatched(w))).toEqual(['n/a.md', 'n/sub/c.md']);
      // Moved out of the source (its watcher goes with it), then a new folder of that name.
      renameSync(join(dir.path, 'sub'), join(outside.path, 'away'));
      expect(keys(await expectWatched(w))).toEqual(['n/a.md']);
      appendFileSync(join(outside.path, 'away/c.md'), 'changed away\n');
      dir.write('sub/d.md', 'd\n');
      expect(keys(await expectWatched(w))).toEqual(['n/a.md', 'n/sub/d.md']);
      expect(w.watching).toBe(2);
    } finally {
      outside.cleanup();
    }
  });

  test('a note that grows or shrinks shows its new size (the indexer applies the size limit)', async () => {
    dir.write('big.md', 'x\n');
    const w = watcher();
    await w.walk();
    writeFileSync(join(dir.path, 'big.md'), Buffer.alloc(200_000, 'y'));
    expect((await expectWatched(w))[0]?.size).toBe(200_000);
    truncateSync(join(dir.path, 'big.md'), 10);
    expect((await expectWatched(w))[0]?.size).toBe(10);
  });

  test('falls back to a full walk and watches again: forced, too many events, root replaced', async () => {
    dir.write('a.md', 'a\n');
    dir.write('sub/b.md', 'b\n');
    const w = watcher(source(), { maxEvents: 20 });
    await w.walk();

    w.breakForTest('forced by the test');
    dir.write('sub/c.md', 'c\n');
    expect(keys(await w.walk())).toEqual(['n/a.md', 'n/sub/b.md', 'n/sub/c.md']);
    expect(w.lastWalk).toBe('full');
    expect(w.lastReason).toBe('forced by the test');
    await expectWatched(w); // watching again

    for (let i = 0; i < 30; i++) dir.write(`sub/many${i}.md`, `${i}\n`);
    const files = await w.walk();
    expect(w.lastWalk).toBe('full');
    expect(w.lastReason).toMatch(/change events, over 20/);
    expect(files).toEqual(fullWalk(w.source));
    await expectWatched(w);

    // `full` walks everything.
    expect(await w.walk({ full: true })).toEqual(fullWalk(w.source));
    expect(w.lastWalk).toBe('full');
    await expectWatched(w);

    // The source folder removed and made again (the root guard holds its path).
    rmSync(dir.path, { recursive: true });
    dir.write('z.md', 'z\n');
    expect(keys(await w.walk())).toEqual(['n/z.md']);
    expect(w.lastWalk).toBe('full');
    dir.write('y.md', 'y\n');
    expect(keys(await expectWatched(w))).toEqual(['n/y.md', 'n/z.md']);
  });

  test('a watcher that cannot start leaves a correct full walk, and watching is tried again later', async () => {
    dir.write('a.md', 'a\n');
    dir.write('sub/b.md', 'b\n');
    let fail = true;
    let tries = 0;
    const startWatch = ((...args: Parameters<typeof watch>) => {
      tries++;
      if (fail && tries === 2) {
        throw Object.assign(new Error('System limit for number of file watchers reached'), {
          code: 'ENOSPC',
        });
      }
      return watch(...args);
    }) as typeof watch;
    const w = watcher(source(), { startWatch });
    expect(keys(await w.walk())).toEqual(['n/a.md', 'n/sub/b.md']);
    expect(w.lastWalk).toBe('full');
    expect(w.lastReason).toMatch(/could not start \(ENOSPC\)/);
    expect(w.watching).toBe(0); // the one that started was closed again
    fail = false;
    // A while of plain walks (they still see every change), then watching again.
    let walks = 0;
    while (w.lastWalk !== 'watched' && walks < 20) {
      dir.write(`sub/n${walks}.md`, `${walks}\n`);
      expect(await w.walk()).toEqual(fullWalk(w.source));
      walks++;
    }
    expect(walks).toBeGreaterThan(5);
    expect(w.lastWalk).toBe('watched');
    expect(w.watching).toBe(2);
  });

  test('random file operations: every watched walk equals a full walk', async () => {
    const steps = bySize(60, 600);
    let seed = 20261201;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const folders = ['', 'a', 'a/b', 'c', 'c/d/e', '.hid', 'node_modules'];
    const names = ['one.md', 'two.txt', 'three.markdown', 'skip.png', 'four.md'];
    const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)]!;
    const pathOf = (f: string, n: string) => (f === '' ? n : `${f}/${n}`);
    const abs = (rel: string) => join(dir.path, rel);
    const w = watcher();
    await w.walk();
    let watched = 0;
    for (let i = 0; i < steps; i++) {
      const ops = 1 + rand(4);
      for (let k = 0; k < ops; k++) {
        const f = pick(folders);
        const rel = pathOf(f, pick(names));
        try {
          switch (rand(9)) {
            case 0:
            case 1:
              dir.write(rel, `note ${i} ${k}\n`.repeat(1 + rand(5)));
              break;
            case 2:
              appendFileSync(abs(rel), 'more\n');
              break;
            case 3:
              rmSync(abs(rel), { force: true });
              break;
            case 4:
              renameSync(abs(rel), abs(pathOf(pick(folders), pick(names))));
              break;
            case 5:
              if (f !== '') rmSync(abs(f), { recursive: true, force: true });
              break;
            case 6:
              if (f !== '' && !f.includes('/')) renameSync(abs(f), abs(f === 'a' ? 'c' : 'a'));
              break;
            case 7:
              rmSync(abs(rel), { force: true, recursive: true });
              symlinkSync(abs(pick(folders)), abs(rel));
              break;
            default: {
              const t = new Date(Date.now() - rand(100_000));
              utimesSync(abs(rel), t, t);
            }
          }
        } catch {
          // the operation did not apply (a missing file or folder): fine
        }
      }
      const files = await w.walk();
      expect(files).toEqual(fullWalk(w.source));
      if (w.lastWalk === 'watched') watched++;
    }
    // Almost every walk must have taken the watched way (nothing here breaks it).
    expect(watched).toBe(steps);
  }, 120_000);
});
