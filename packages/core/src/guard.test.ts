import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolError } from './errors.js';
import {
  createRoot,
  createRootSync,
  openInRoot,
  openInRootSync,
  type Root,
  readFileInRoot,
  readFileInRootSync,
  resolveForWrite,
  resolveInRoot,
  statInRoot,
} from './guard.js';

const base = mkdtempSync(join(tmpdir(), 'lectern-guard-'));
const rootDir = join(base, 'root');
let root: Root;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as ToolError).code ?? String(e);
  }
  return 'no error';
}

function syncCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as ToolError).code ?? String(e);
  }
  return 'no error';
}

beforeAll(async () => {
  mkdirSync(join(rootDir, 'docs', 'deep'), { recursive: true });
  writeFileSync(join(rootDir, 'docs', 'a.md'), '# A\n');
  writeFileSync(join(rootDir, 'docs', 'deep', 'b.md'), 'b');
  writeFileSync(join(rootDir, '..test'), 'dots');
  writeFileSync(join(rootDir, 'te..st'), 'dots');
  writeFileSync(join(rootDir, '%2e%2e'), 'encoded');
  // siblings sharing the root's prefix
  for (const sibling of ['root2', 'root_evil', 'root.bak', "root '"]) {
    mkdirSync(join(base, sibling));
    writeFileSync(join(base, sibling, 'secret.txt'), 'secret');
  }
  writeFileSync(join(base, 'outside.txt'), 'outside');
  // links
  symlinkSync(join(base, 'outside.txt'), join(rootDir, 'link-out.txt'));
  symlinkSync(join(rootDir, 'docs', 'a.md'), join(rootDir, 'link-in.md'));
  symlinkSync(join(rootDir, 'docs'), join(rootDir, 'linkdir'));
  symlinkSync(join(base, 'root2'), join(rootDir, 'linkdir-out'));
  symlinkSync(join(rootDir, 'nowhere.md'), join(rootDir, 'dangling.md'));
  symlinkSync(join(base, 'nowhere'), join(rootDir, 'dangling-dir'));
  // special files
  execFileSync('mkfifo', [join(rootDir, 'fifo')]);
  writeFileSync(join(rootDir, 'big.bin'), Buffer.alloc(2048, 1));
  root = await createRoot(rootDir);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/**
 * A child process keeps swapping `<dir>/target.md` between an in-root file, a symlink to a
 * secret outside the root and a FIFO, while `read` reads it for about 3 s. Every read must
 * return the in-root bytes (or an empty, half-copied file) or refuse with a guard code; the
 * secret must never come back. Resolves to the number of reads attempted.
 */
async function swapRace(
  dirName: string,
  maxAttempts: number,
  read: (rel: string) => Buffer | Promise<Buffer>,
): Promise<number> {
  const raceDir = join(rootDir, dirName);
  mkdirSync(raceDir);
  const secret = join(base, `secret-${dirName}.txt`);
  writeFileSync(secret, 'SECRET');
  const script = `
    const fs = require('fs'); const path = require('path');
    const dir = ${JSON.stringify(raceDir)}; const secret = ${JSON.stringify(secret)};
    const t = path.join(dir, 'target.md');
    fs.writeFileSync(path.join(dir, 'good.md'), 'GOOD');
    const end = Date.now() + 4000;
    let i = 0;
    while (Date.now() < end) {
      try { fs.unlinkSync(t); } catch {}
      const k = i++ % 3;
      try {
        if (k === 0) fs.copyFileSync(path.join(dir, 'good.md'), t);
        else if (k === 1) fs.symlinkSync(secret, t);
        else require('child_process').execFileSync('mkfifo', [t]);
      } catch {}
    }
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  let attempts = 0;
  try {
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline && attempts < maxAttempts) {
      attempts++;
      try {
        const text = (await read(`${dirName}/target.md`)).toString();
        expect(['GOOD', '']).toContain(text);
      } catch (e) {
        const code = (e as ToolError).code;
        expect(['PATH_SYMLINK', 'PATH_NOT_FOUND', 'PATH_NOT_REGULAR', 'PATH_CHANGED']).toContain(
          code,
        );
      }
      // let a synchronous reader yield now and then
      if (attempts % 200 === 0) await new Promise((r) => setImmediate(r));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return attempts;
}

describe('createRoot', () => {
  it('resolves the root with realpath once', async () => {
    symlinkSync(rootDir, join(base, 'root-alias'));
    const viaAlias = await createRoot(join(base, 'root-alias'));
    expect(viaAlias.path).toBe(root.path);
    expect((await readFileInRoot(viaAlias, 'docs/a.md')).bytes.toString()).toBe('# A\n');
  });

  it('refuses an empty, missing or file root', async () => {
    expect(await codeOf(createRoot(''))).toBe('ROOT_EMPTY');
    expect(await codeOf(createRoot('   '))).toBe('ROOT_EMPTY');
    expect(await codeOf(createRoot(join(base, 'missing')))).toBe('ROOT_MISSING');
    expect(await codeOf(createRoot(join(base, 'outside.txt')))).toBe('ROOT_NOT_DIRECTORY');
    expect(syncCode(() => createRootSync(join(base, 'missing')))).toBe('ROOT_MISSING');
    expect(syncCode(() => createRootSync(join(base, 'outside.txt')))).toBe('ROOT_NOT_DIRECTORY');
  });
});

describe('resolveInRoot (lexical)', () => {
  it('normalises relative paths', () => {
    expect(resolveInRoot(root, './docs//deep/../a.md').relative).toBe('docs/a.md');
    expect(resolveInRoot(root, '').relative).toBe('');
  });

  it('refuses NUL anywhere', () => {
    expect(syncCode(() => resolveInRoot(root, 'docs/a.md\0.txt'))).toBe('PATH_NUL');
    expect(syncCode(() => resolveInRoot(root, '\0'))).toBe('PATH_NUL');
  });

  it('refuses .. escapes, including deep ones', () => {
    expect(syncCode(() => resolveInRoot(root, '..'))).toBe('PATH_ESCAPES_ROOT');
    expect(syncCode(() => resolveInRoot(root, '../outside.txt'))).toBe('PATH_ESCAPES_ROOT');
    expect(syncCode(() => resolveInRoot(root, 'docs/../../outside.txt'))).toBe('PATH_ESCAPES_ROOT');
    const deep = `${'a/'.repeat(600)}${'../'.repeat(601)}outside.txt`;
    expect(syncCode(() => resolveInRoot(root, deep))).toBe('PATH_ESCAPES_ROOT');
    const balanced = `${'a/'.repeat(600)}${'../'.repeat(600)}docs/a.md`;
    expect(resolveInRoot(root, balanced).relative).toBe('docs/a.md');
  });

  it('refuses absolute paths outside the root, including prefix siblings', () => {
    expect(syncCode(() => resolveInRoot(root, join(base, 'outside.txt')))).toBe(
      'PATH_ABSOLUTE_OUTSIDE_ROOT',
    );
    for (const sibling of ['root2', 'root_evil', 'root.bak', "root '"]) {
      expect(syncCode(() => resolveInRoot(root, join(base, sibling, 'secret.txt')))).toBe(
        'PATH_ABSOLUTE_OUTSIDE_ROOT',
      );
    }
    expect(syncCode(() => resolveInRoot(root, '/etc/passwd'))).toBe('PATH_ABSOLUTE_OUTSIDE_ROOT');
  });

  it('accepts absolute paths inside the root', () => {
    expect(resolveInRoot(root, join(rootDir, 'docs', 'a.md')).relative).toBe('docs/a.md');
  });

  it('treats ..test, te..st and %2e%2e as ordinary names (no URL decoding)', async () => {
    for (const name of ['..test', 'te..st', '%2e%2e']) {
      expect(resolveInRoot(root, name).relative).toBe(name);
      expect((await readFileInRoot(root, name)).bytes.length).toBeGreaterThan(0);
    }
    expect(resolveInRoot(root, '%2e%2e/%2e%2e/x').relative).toBe('%2e%2e/%2e%2e/x');
  });

  it('names the offending path and the rule in the message', () => {
    try {
      resolveInRoot(root, '../outside.txt');
    } catch (e) {
      expect((e as Error).message).toContain('../outside.txt');
      expect((e as Error).message).toContain('inside the root');
    }
  });
});

describe('openInRoot', () => {
  it('opens a regular file and reports its stat and paths', async () => {
    const f = await openInRoot(root, 'docs/deep/b.md');
    try {
      expect(f.relativePath).toBe('docs/deep/b.md');
      expect(f.absolutePath).toBe(join(root.path, 'docs', 'deep', 'b.md'));
      expect(f.stat.size).toBe(1);
    } finally {
      await f.handle.close();
    }
  });

  it('refuses a symlink as the final component, in or out of the root', async () => {
    expect(await codeOf(openInRoot(root, 'link-out.txt'))).toBe('PATH_SYMLINK');
    expect(await codeOf(openInRoot(root, 'link-in.md'))).toBe('PATH_SYMLINK');
  });

  it('refuses a symlink as an intermediate component', async () => {
    expect(await codeOf(openInRoot(root, 'linkdir/a.md'))).toBe('PATH_SYMLINK');
    expect(await codeOf(openInRoot(root, 'linkdir-out/secret.txt'))).toBe('PATH_SYMLINK');
  });

  it('refuses dangling links, final and intermediate', async () => {
    expect(await codeOf(openInRoot(root, 'dangling.md'))).toBe('PATH_SYMLINK');
    expect(await codeOf(openInRoot(root, 'dangling-dir/x.md'))).toBe('PATH_SYMLINK');
    // A refused link is never followed, not even to tell whether its target exists (that
    // would reveal which outside files exist); a root that follows in-root links says so.
    const lenient = await createRoot(rootDir, { allowInRootSymlinks: true });
    const message = async (r: Root) =>
      openInRoot(r, 'dangling.md').then(
        () => '',
        (e: Error) => e.message,
      );
    expect(await message(root)).not.toContain('dangling symbolic link');
    expect(await message(lenient)).toContain('dangling symbolic link');
  });

  it('follows in-root links only when the root allows them', async () => {
    const lenient = await createRoot(rootDir, { allowInRootSymlinks: true });
    expect((await readFileInRoot(lenient, 'link-in.md')).bytes.toString()).toBe('# A\n');
    expect((await readFileInRoot(lenient, 'linkdir/a.md')).bytes.toString()).toBe('# A\n');
    expect(await codeOf(openInRoot(lenient, 'link-out.txt'))).toBe('PATH_SYMLINK_OUTSIDE_ROOT');
    expect(await codeOf(openInRoot(lenient, 'linkdir-out/secret.txt'))).toBe(
      'PATH_SYMLINK_OUTSIDE_ROOT',
    );
    expect(await codeOf(openInRoot(lenient, 'dangling.md'))).toBe('PATH_SYMLINK');
  });

  it('refuses a FIFO without blocking on it', async () => {
    expect(await codeOf(openInRoot(root, 'fifo'))).toBe('PATH_NOT_REGULAR');
  });

  it('refuses a socket and a character device', async () => {
    const sockPath = join(rootDir, 'sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(sockPath, resolve));
    try {
      expect(await codeOf(openInRoot(root, 'sock'))).toBe('PATH_NOT_REGULAR');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const devRoot = await createRoot('/dev');
    // (a busy shared machine may have had /dev/null replaced by a file: use a real device)
    const device = ['null', 'zero', 'tty'].find((n) =>
      lstatSync(join('/dev', n)).isCharacterDevice(),
    );
    expect(await codeOf(openInRoot(devRoot, device ?? 'null'))).toBe('PATH_NOT_REGULAR');
  });

  it('refuses a directory where a file is wanted, and missing files', async () => {
    expect(await codeOf(openInRoot(root, 'docs'))).toBe('PATH_IS_DIRECTORY');
    expect(await codeOf(openInRoot(root, ''))).toBe('PATH_IS_DIRECTORY');
    expect(await codeOf(openInRoot(root, 'docs/missing.md'))).toBe('PATH_NOT_FOUND');
    expect(await codeOf(openInRoot(root, 'docs/a.md/x'))).toBe('PATH_NOT_FOUND');
  });

  it('checks the size cap before reading', async () => {
    expect(await codeOf(openInRoot(root, 'big.bin', { maxBytes: 2047 }))).toBe('FILE_TOO_LARGE');
    expect((await readFileInRoot(root, 'big.bin', { maxBytes: 2048 })).bytes.length).toBe(2048);
    const small = await createRoot(rootDir, { maxFileBytes: 100 });
    expect(await codeOf(readFileInRoot(small, 'big.bin'))).toBe('FILE_TOO_LARGE');
  });

  it('never returns another file when the path is swapped between check and use', async () => {
    const attempts = await swapRace(
      'race',
      5000,
      async (rel) => (await readFileInRoot(root, rel)).bytes,
    );
    expect(attempts).toBeGreaterThan(10);
  }, 60_000);
});

describe('statInRoot', () => {
  it('stats folders and files with the same link rules', async () => {
    expect((await statInRoot(root, 'docs')).stat.isDirectory()).toBe(true);
    expect((await statInRoot(root, '.')).relativePath).toBe('');
    expect(await codeOf(statInRoot(root, 'linkdir'))).toBe('PATH_SYMLINK');
    expect(await codeOf(statInRoot(root, 'nope'))).toBe('PATH_NOT_FOUND');
  });
});

describe('resolveForWrite', () => {
  it('resolves new and existing files', async () => {
    const existing = await resolveForWrite(root, 'docs/a.md');
    expect(existing.existing?.isFile()).toBe(true);
    const fresh = await resolveForWrite(root, 'docs/new/deeper/c.md');
    expect(fresh.existing).toBeNull();
    expect(fresh.absolutePath).toBe(join(root.path, 'docs', 'new', 'deeper', 'c.md'));
  });

  it('creates missing parents only when asked, never through a link', async () => {
    const t = await resolveForWrite(root, 'made/by/write.md', { createParents: true });
    expect(readdirSync(join(rootDir, 'made', 'by'))).toEqual([]);
    expect(t.existing).toBeNull();
    expect(await codeOf(resolveForWrite(root, 'linkdir/new.md', { createParents: true }))).toBe(
      'PATH_SYMLINK',
    );
    expect(
      await codeOf(resolveForWrite(root, 'dangling-dir/new.md', { createParents: true })),
    ).toBe('PATH_SYMLINK');
  });

  it('refuses links, special files, folders and escapes as targets', async () => {
    expect(await codeOf(resolveForWrite(root, 'link-in.md'))).toBe('PATH_SYMLINK');
    expect(await codeOf(resolveForWrite(root, 'dangling.md'))).toBe('PATH_SYMLINK');
    expect(await codeOf(resolveForWrite(root, 'fifo'))).toBe('PATH_NOT_REGULAR');
    expect(await codeOf(resolveForWrite(root, 'docs'))).toBe('PATH_IS_DIRECTORY');
    expect(await codeOf(resolveForWrite(root, ''))).toBe('PATH_IS_DIRECTORY');
    expect(await codeOf(resolveForWrite(root, 'docs/a.md/x.md'))).toBe('PATH_NOT_DIRECTORY');
    expect(await codeOf(resolveForWrite(root, '../x.md'))).toBe('PATH_ESCAPES_ROOT');
    expect(await codeOf(resolveForWrite(root, 'x\0.md'))).toBe('PATH_NUL');
    // an in-root link is refused for writing even when the root allows reading through it
    const lenient = await createRoot(rootDir, { allowInRootSymlinks: true });
    expect(await codeOf(resolveForWrite(lenient, 'linkdir/new.md'))).toBe('PATH_SYMLINK');
  });
});

describe('openInRootSync and readFileInRootSync (the same rules, blocking calls)', () => {
  const codeSync = (fn: () => unknown) => syncCode(fn);

  it('reads what the async guard reads', async () => {
    const sync = readFileInRootSync(root, 'docs/deep/b.md');
    const asyncRead = await readFileInRoot(root, 'docs/deep/b.md');
    expect(sync.bytes.equals(asyncRead.bytes)).toBe(true);
    expect(sync.relativePath).toBe('docs/deep/b.md');
    const opened = openInRootSync(root, 'docs/a.md');
    try {
      expect(opened.stat.size).toBe(4);
    } finally {
      closeSync(opened.fd);
    }
  });

  it('refuses every case the async guard refuses, with the same codes', async () => {
    const cases: Array<[string, string]> = [
      ['docs/a.md\0.txt', 'PATH_NUL'],
      ['../outside.txt', 'PATH_ESCAPES_ROOT'],
      [`${'a/'.repeat(600)}${'../'.repeat(601)}outside.txt`, 'PATH_ESCAPES_ROOT'],
      [join(base, 'root2', 'secret.txt'), 'PATH_ABSOLUTE_OUTSIDE_ROOT'],
      [join(base, 'root.bak', 'secret.txt'), 'PATH_ABSOLUTE_OUTSIDE_ROOT'],
      ['link-out.txt', 'PATH_SYMLINK'],
      ['link-in.md', 'PATH_SYMLINK'],
      ['linkdir/a.md', 'PATH_SYMLINK'],
      ['dangling.md', 'PATH_SYMLINK'],
      ['dangling-dir/x.md', 'PATH_SYMLINK'],
      ['fifo', 'PATH_NOT_REGULAR'],
      ['docs', 'PATH_IS_DIRECTORY'],
      ['docs/missing.md', 'PATH_NOT_FOUND'],
      ['docs/a.md/x', 'PATH_NOT_FOUND'],
    ];
    for (const [path, code] of cases) {
      expect(
        codeSync(() => readFileInRootSync(root, path)),
        path,
      ).toBe(code);
      expect(await codeOf(readFileInRoot(root, path)), path).toBe(code);
    }
    expect(codeSync(() => readFileInRootSync(root, 'big.bin', { maxBytes: 2047 }))).toBe(
      'FILE_TOO_LARGE',
    );
    const lenient = createRootSync(rootDir, { allowInRootSymlinks: true });
    expect(readFileInRootSync(lenient, 'linkdir/a.md').bytes.toString()).toBe('# A\n');
    expect(codeSync(() => readFileInRootSync(lenient, 'link-out.txt'))).toBe(
      'PATH_SYMLINK_OUTSIDE_ROOT',
    );
  });

  it('never returns another file when the path is swapped between check and use', async () => {
    const attempts = await swapRace(
      'race-sync',
      20_000,
      (rel) => readFileInRootSync(root, rel).bytes,
    );
    expect(attempts).toBeGreaterThan(10);
  }, 60_000);
});
