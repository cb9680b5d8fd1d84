import { lstatSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRootSync } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type TempDir, tempDir } from '../test-helpers/fs.js';
import {
  compileGlobs,
  DEFAULT_EXCLUDE,
  DEFAULT_INCLUDE,
  type ResolvedSource,
  WalkCache,
  type WalkStats,
  walkSource,
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
    const stats: WalkStats = { links: 0, special: 0, unreadable: 0 };
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
