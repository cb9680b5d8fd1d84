import { createRootSync } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TempDir, tempDir } from '../test-helpers/fixtures.js';
import { compileGlobs } from './glob.js';
import { comparePaths, type WalkOptions, walkTree } from './walk.js';

let t: TempDir;
beforeAll(() => {
  t = tempDir();
  t.write('.gitignore', '*.log\nbuild/\n!keep.log\n');
  t.write('a.txt', 'a');
  t.write('a.log', 'log');
  t.write('keep.log', 'kept');
  t.write('a/b.txt', 'b');
  t.write('a.b/c.txt', 'c');
  t.write('build/out.js', 'x');
  t.write('src/.gitignore', 'secret.txt\n!important.log\n');
  t.write('src/secret.txt', 's');
  t.write('src/important.log', 'i');
  t.write('src/deep/deeper/file.ts', 'f');
  t.write('.git/config', '[core]');
  t.write('.hidden', 'h');
  t.symlink(t.abs('a.txt'), 'link.txt');
  t.symlink(t.abs('src'), 'linkdir');
  t.mkfifo('fifo');
});
afterAll(() => t.cleanup());

async function accepted(options: Partial<WalkOptions> = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const e of walkTree({
    root: createRootSync(t.dir),
    folder: '',
    gitignore: true,
    maxDepth: 64,
    directories: false,
    ...options,
  })) {
    if (e.accepted) out.push(e.path);
  }
  return out;
}

describe('comparePaths', () => {
  it('orders segment by segment, a folder before its contents', () => {
    const paths = ['a.b/c.txt', 'a/b.txt', 'a', 'a.txt', 'b', 'a/b/c'];
    expect([...paths].sort(comparePaths)).toEqual(
      ['a', 'a/b', 'a/b/c', 'a/b.txt', 'a.b/c.txt', 'a.txt', 'b'].filter((p) => paths.includes(p)),
    );
    expect(comparePaths('', 'a')).toBeLessThan(0);
  });
});

describe('walkTree', () => {
  it('honours nested .gitignore files with negation, and skips links, FIFOs and .git', async () => {
    expect(await accepted()).toEqual([
      '.gitignore',
      '.hidden',
      'a/b.txt',
      'a.b/c.txt',
      'a.txt',
      'keep.log',
      'src/.gitignore',
      'src/deep/deeper/file.ts',
      'src/important.log',
    ]);
  });

  it('lists everything but links, FIFOs and .git without .gitignore', async () => {
    const all = await accepted({ gitignore: false });
    expect(all).toContain('build/out.js');
    expect(all).toContain('src/secret.txt');
    expect(all).toContain('a.log');
    expect(all.some((p) => p.startsWith('.git/') || p.startsWith('link') || p === 'fifo')).toBe(
      false,
    );
  });

  it('applies ancestor .gitignore files when walking a subfolder', async () => {
    expect(await accepted({ folder: 'src' })).toEqual([
      'src/.gitignore',
      'src/deep/deeper/file.ts',
      'src/important.log',
    ]);
  });

  it('filters with include/exclude globs and a depth limit, and can report folders', async () => {
    expect(await accepted({ include: compileGlobs(['*.ts'], 'include') })).toEqual([
      'src/deep/deeper/file.ts',
    ]);
    expect(await accepted({ exclude: compileGlobs(['src', '*.txt'], 'exclude') })).toEqual([
      '.gitignore',
      '.hidden',
      'keep.log',
    ]);
    expect(await accepted({ maxDepth: 1 })).toEqual(['.gitignore', '.hidden', 'a.txt', 'keep.log']);
    expect(
      await accepted({ directories: true, include: compileGlobs(['none'], 'include') }),
    ).toEqual(['a', 'a.b', 'src', 'src/deep', 'src/deep/deeper']);
  });

  it('resumes after a position without repeating or skipping entries', async () => {
    const all = await accepted({ directories: true });
    for (let i = 0; i < all.length; i++) {
      const path = all[i]!;
      const isDir = ['a', 'a.b', 'src', 'src/deep', 'src/deep/deeper'].includes(path);
      const rest = await accepted({ directories: true, after: { path, descend: isDir } });
      expect(rest).toEqual(all.slice(i + 1));
    }
    // inclusive resumes at the entry itself
    const incl = await accepted({ after: { path: 'a.txt', descend: false, inclusive: true } });
    expect(incl[0]).toBe('a.txt');
    // a position whose folder is excluded from descent skips its contents
    const noDescend = await accepted({ after: { path: 'src', descend: false } });
    expect(noDescend).toEqual([]);
  });
});
