// The anchored guard: folders exchanged with links mid-walk, hard links, long names, the
// reserved state folder, folder handles and writes that never leave the folder they checked.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolError } from './errors.js';
import {
  createRoot,
  createRootSync,
  isBroadRoot,
  MAX_NAME_BYTES,
  openDirInRoot,
  openDirInRootSync,
  openInRoot,
  openStateDirSync,
  type Root,
  readFileInRoot,
  readFileInRootSync,
  removeFileInRoot,
  removeFileInRootSync,
  resolveForWrite,
  resolveInRoot,
  statInRoot,
  statInRootSync,
  writeFileInRoot,
  writeFileInRootSync,
} from './guard.js';
import { anchorMode, setProcAnchoringForTests } from './lib/anchor.js';
import { bySize, startExchangeLoop } from './testing.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'lectern-anchored-')));
const rootDir = join(base, 'root');
const outside = join(base, 'outside');
let root: Root;

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return (e as ToolError).code ?? String(e);
  }
  return 'no error';
}

function hashTree(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const abs = join(d, name);
      const st = lstatSync(abs);
      h.update(`${rel}/${name}:${st.mode}:`);
      if (st.isDirectory()) walk(abs, `${rel}/${name}`);
      else if (st.isFile()) h.update(readFileSync(abs));
    }
  };
  walk(dir, '');
  return h.digest('hex');
}

beforeAll(async () => {
  for (const [dir, marker] of [
    [join(rootDir, 'sub'), 'INSIDE'],
    [join(outside, 'secret'), 'OUTSIDE'],
  ] as const) {
    mkdirSync(join(dir, 'deeper'), { recursive: true });
    writeFileSync(join(dir, 'page.md'), marker);
    writeFileSync(join(dir, 'deeper', 'page.md'), marker);
  }
  writeFileSync(join(outside, 'secret', 'OUTSIDE_ONLY.md'), 'OUTSIDE');
  writeFileSync(join(outside, 'passwd'), 'OUTSIDE');
  root = await createRoot(rootDir);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('a folder exchanged with a link to an outside folder, in a loop', () => {
  const RUN_MS = bySize(2_500, 20_000);

  it(
    'never reads, lists, writes or removes anything outside, and refuses with codes',
    async () => {
      // The link lives beside the root; the real folder and the link trade places in a loop.
      const link = join(base, 'swap-link');
      symlinkSync(join(outside, 'secret'), link);
      const before = hashTree(outside);
      const loop = await startExchangeLoop(join(rootDir, 'sub'), link, base);
      const seen = { reads: 0, refusals: new Map<string, number>(), leaks: [] as string[] };
      const refused = (e: unknown) => {
        const code = (e as ToolError).code;
        if (code === undefined) throw e;
        seen.refusals.set(code, (seen.refusals.get(code) ?? 0) + 1);
      };
      const check = (what: string, text: string) => {
        seen.reads++;
        if (text.includes('OUTSIDE')) seen.leaks.push(what);
      };
      let swaps = 0;
      try {
        const deadline = Date.now() + RUN_MS;
        for (let i = 0; Date.now() < deadline; i++) {
          for (const p of ['sub/page.md', 'sub/deeper/page.md', 'sub/OUTSIDE_ONLY.md']) {
            await readFileInRoot(root, p).then((r) => check(p, r.bytes.toString()), refused);
            try {
              check(p, readFileInRootSync(root, p).bytes.toString());
            } catch (e) {
              refused(e);
            }
          }
          await statInRoot(root, 'sub/OUTSIDE_ONLY.md').then(
            () => seen.leaks.push('stat of an outside-only name'),
            refused,
          );
          try {
            const dir = openDirInRootSync(root, 'sub/deeper');
            try {
              check(
                'list',
                dir
                  .list()
                  .map((d) => d.name)
                  .join(','),
              );
              check('read in dir', dir.readFile('page.md').bytes.toString());
            } finally {
              dir.close();
            }
          } catch (e) {
            refused(e);
          }
          await writeFileInRoot(root, `sub/w-${i}.md`, 'INSIDE').catch(refused);
          await writeFileInRoot(root, `sub/deeper/page.md`, 'INSIDE').catch(refused);
          try {
            writeFileInRootSync(root, `sub/deeper/s-${i}.md`, 'INSIDE', { createParents: true });
            removeFileInRootSync(root, `sub/deeper/s-${i}.md`);
          } catch (e) {
            refused(e);
          }
          await removeFileInRoot(root, 'sub/page.md.gone').catch(refused);
          if (i % 20 === 0) await new Promise((r) => setImmediate(r));
        }
      } finally {
        swaps = await loop.stop();
      }
      // Liveness, checked once the swaps have stopped (a busy machine can refuse every call of
      // the race itself): the guard still reads and writes inside the real folder.
      check('after the race', (await readFileInRoot(root, 'sub/page.md')).bytes.toString());
      await writeFileInRoot(root, 'sub/w-after.md', 'INSIDE');
      console.log(
        `anchored guard race (${anchorMode()}, ${loop.helper}): ${swaps} swaps, ${seen.reads} reads, refusals ${JSON.stringify(Object.fromEntries(seen.refusals))}`,
      );
      expect(swaps).toBeGreaterThan(0);
      expect(seen.leaks).toEqual([]);
      expect(hashTree(outside)).toBe(before);
      expect(seen.reads).toBeGreaterThan(0);
      const allowed = ['PATH_SYMLINK', 'PATH_CHANGED', 'PATH_NOT_FOUND', 'PATH_NOT_DIRECTORY'];
      for (const code of seen.refusals.keys()) expect(allowed).toContain(code);
      // what was written landed in the real folder
      expect(readFileSync(join(rootDir, 'sub', 'w-after.md'), 'utf8')).toBe('INSIDE');
      expect(readdirSync(join(rootDir, 'sub')).some((n) => n.startsWith('.lectern-tmp-'))).toBe(
        false,
      );
    },
    RUN_MS * 4 + 60_000,
  );
});

describe('names and lengths', () => {
  it('refuses a name over 255 bytes and a path over 4096 bytes with PATH_TOO_LONG', async () => {
    const longName = 'n'.repeat(MAX_NAME_BYTES + 1);
    const longUtf8 = 'é'.repeat(130); // 260 bytes in 130 characters
    for (const p of [longName, `sub/${longName}/x.md`, longUtf8, 'a/'.repeat(2100)]) {
      expect(await codeOf(() => resolveInRoot(root, p))).toBe('PATH_TOO_LONG');
      expect(await codeOf(readFileInRoot(root, p))).toBe('PATH_TOO_LONG');
      expect(await codeOf(() => readFileInRootSync(root, p))).toBe('PATH_TOO_LONG');
      expect(await codeOf(statInRoot(root, p))).toBe('PATH_TOO_LONG');
      expect(await codeOf(writeFileInRoot(root, p, 'x', { createParents: true }))).toBe(
        'PATH_TOO_LONG',
      );
    }
    // a 5 MB path is refused at once, and the message stays short
    const huge = 'x/'.repeat(2_500_000);
    try {
      resolveInRoot(root, huge);
      expect.unreachable();
    } catch (e) {
      expect((e as ToolError).code).toBe('PATH_TOO_LONG');
      expect((e as Error).message.length).toBeLessThan(600);
    }
    // exactly 255 bytes is fine
    expect(await codeOf(readFileInRoot(root, 'n'.repeat(MAX_NAME_BYTES)))).toBe('PATH_NOT_FOUND');
  });

  it('never serves .lectern/, in any spelling or depth', async () => {
    mkdirSync(join(rootDir, '.lectern'), { recursive: true });
    writeFileSync(join(rootDir, '.lectern', 'memory.db'), 'state');
    mkdirSync(join(rootDir, 'nested', '.lectern'), { recursive: true });
    writeFileSync(join(rootDir, 'nested', '.lectern', 'memory.db'), 'state');
    for (const p of [
      '.lectern/memory.db',
      'nested/.lectern/memory.db',
      './.lectern',
      'sub/../.lectern/memory.db',
      join(rootDir, '.lectern', 'memory.db'),
      '.LECTERN/memory.db',
    ]) {
      expect(await codeOf(readFileInRoot(root, p)), p).toBe('PATH_RESERVED');
      expect(await codeOf(statInRoot(root, p)), p).toBe('PATH_RESERVED');
      expect(await codeOf(openDirInRoot(root, p)), p).toBe('PATH_RESERVED');
      expect(await codeOf(writeFileInRoot(root, p, 'x')), p).toBe('PATH_RESERVED');
    }
    // nor through an in-root link, when links are followed
    symlinkSync('.lectern/memory.db', join(rootDir, 'state-link'));
    const lenient = await createRoot(rootDir, { allowInRootSymlinks: true });
    expect(await codeOf(readFileInRoot(lenient, 'state-link'))).toBe('PATH_RESERVED');
    // Lectern's own bookkeeping opens it without a request path
    const state = openStateDirSync(root);
    try {
      expect(state?.lstat('memory.db')?.isFile()).toBe(true);
    } finally {
      state?.close();
    }
  });
});

describe('hard links', () => {
  it('refuses a regular file with more than one link unless the root allows them', async () => {
    writeFileSync(join(outside, 'linked-secret'), 'OUTSIDE');
    linkSync(join(outside, 'linked-secret'), join(rootDir, 'hard.md'));
    expect(await codeOf(readFileInRoot(root, 'hard.md'))).toBe('PATH_HARD_LINK');
    expect(await codeOf(() => readFileInRootSync(root, 'hard.md'))).toBe('PATH_HARD_LINK');
    expect(await codeOf(openInRoot(root, 'hard.md'))).toBe('PATH_HARD_LINK');
    const dir = openDirInRootSync(root, '');
    try {
      expect(await codeOf(() => dir.readFile('hard.md'))).toBe('PATH_HARD_LINK');
    } finally {
      dir.close();
    }
    const trusting = createRootSync(rootDir, { allowHardLinks: true });
    expect(trusting.allowHardLinks).toBe(true);
    expect((await readFileInRoot(trusting, 'hard.md')).bytes.toString()).toBe('OUTSIDE');
    // a file whose second link is gone is an ordinary file again
    rmSync(join(outside, 'linked-secret'));
    expect((await readFileInRoot(root, 'hard.md')).bytes.toString()).toBe('OUTSIDE');
  });
});

describe('folders held by descriptor', () => {
  it('lists and reads the folder that was opened, even after its path is swapped', async () => {
    mkdirSync(join(rootDir, 'held', 'inner'), { recursive: true });
    writeFileSync(join(rootDir, 'held', 'a.md'), 'held a');
    const dir = await openDirInRoot(root, 'held');
    try {
      expect(dir.relativePath).toBe('held');
      // the path now names an outside folder through a link; the handle does not follow it
      renameSync(join(rootDir, 'held'), join(rootDir, 'held-moved'));
      symlinkSync(join(outside, 'secret'), join(rootDir, 'held'));
      expect(
        dir
          .list()
          .map((d) => d.name)
          .sort(),
      ).toEqual(['a.md', 'inner']);
      expect((await dir.listAsync()).length).toBe(2);
      expect(dir.readFile('a.md').bytes.toString()).toBe('held a');
      const inner = dir.openDir('inner');
      expect(inner.relativePath).toBe('held/inner');
      inner.close();
      // but the folder is no longer where it was checked
      expect(await codeOf(() => dir.confirm())).toBe('PATH_CHANGED');
      expect(await codeOf(openDirInRoot(root, 'held'))).toBe('PATH_SYMLINK');
    } finally {
      dir.close();
    }
  });

  it('refuses links, files and missing names as folders, and odd child names', async () => {
    mkdirSync(join(rootDir, 'kids'));
    writeFileSync(join(rootDir, 'kids', 'file.md'), 'x');
    symlinkSync(join(outside, 'secret'), join(rootDir, 'kids', 'out'));
    const dir = openDirInRootSync(root, 'kids');
    try {
      expect(await codeOf(() => dir.openDir('out'))).toBe('PATH_SYMLINK');
      expect(await codeOf(() => dir.openDir('file.md'))).toBe('PATH_NOT_DIRECTORY');
      expect(await codeOf(() => dir.openDir('none'))).toBe('PATH_NOT_FOUND');
      expect(await codeOf(() => dir.readFile('out'))).toBe('PATH_NOT_REGULAR');
      for (const bad of ['..', '.', 'a/b', '', 'x\0']) {
        expect(await codeOf(() => dir.lstat(bad)), bad).toBe('PATH_INVALID');
      }
    } finally {
      dir.close();
    }
    expect(await codeOf(openDirInRoot(root, 'kids/file.md'))).toBe('PATH_NOT_DIRECTORY');
    expect(await codeOf(openDirInRoot(root, 'kids/none'))).toBe('PATH_NOT_FOUND');
    expect(await codeOf(openDirInRoot(root, 'kids/out'))).toBe('PATH_SYMLINK');
  });
});

describe('writes', () => {
  it('writes atomically inside the checked folder, creating parents, never through a link', async () => {
    const r = await writeFileInRoot(root, 'made/deep/er/new.md', 'hello', { createParents: true });
    expect(r.created).toBe(true);
    expect(readFileSync(join(rootDir, 'made/deep/er/new.md'), 'utf8')).toBe('hello');
    const again = writeFileInRootSync(root, 'made/deep/er/new.md', Buffer.from('again'));
    expect(again.created).toBe(false);
    expect(readFileSync(join(rootDir, 'made/deep/er/new.md'), 'utf8')).toBe('again');
    expect(readdirSync(join(rootDir, 'made/deep/er'))).toEqual(['new.md']);
    expect(await codeOf(writeFileInRoot(root, 'missing/x.md', 'x'))).toBe('PATH_NOT_FOUND');
    symlinkSync(join(outside, 'secret'), join(rootDir, 'wlink'));
    expect(await codeOf(writeFileInRoot(root, 'wlink/x.md', 'x', { createParents: true }))).toBe(
      'PATH_SYMLINK',
    );
    symlinkSync(join(outside, 'passwd'), join(rootDir, 'wfile-link'));
    expect(await codeOf(writeFileInRoot(root, 'wfile-link', 'x'))).toBe('PATH_SYMLINK');
    expect(readFileSync(join(outside, 'passwd'), 'utf8')).toBe('OUTSIDE');
    expect(await codeOf(writeFileInRoot(root, 'made', 'x'))).toBe('PATH_IS_DIRECTORY');
    expect(await codeOf(writeFileInRoot(root, 'made/deep/er/new.md/x', 'x'))).toBe(
      'PATH_NOT_DIRECTORY',
    );
    expect(await codeOf(writeFileInRoot(root, '../escape.md', 'x'))).toBe('PATH_ESCAPES_ROOT');
    expect(existsSync(join(base, 'escape.md'))).toBe(false);
    // a long name still gets a temporary name under the limit
    const name = `made/${'m'.repeat(MAX_NAME_BYTES)}`;
    await writeFileInRoot(root, name, 'long');
    expect(readFileSync(join(rootDir, name), 'utf8')).toBe('long');
    // resolveForWrite creates parents inside the root only
    const t = await resolveForWrite(root, 'rfw/a/b.md', { createParents: true });
    expect(t.absolutePath).toBe(join(root.path, 'rfw/a/b.md'));
    expect(lstatSync(join(rootDir, 'rfw/a')).isDirectory()).toBe(true);
  });

  it('removes regular files only, and reports a missing one', async () => {
    writeFileSync(join(rootDir, 'gone.md'), 'x');
    expect(await removeFileInRoot(root, 'gone.md')).toBe(true);
    expect(await removeFileInRoot(root, 'gone.md')).toBe(false);
    expect(removeFileInRootSync(root, 'nowhere/gone.md')).toBe(false);
    expect(await codeOf(removeFileInRoot(root, 'wlink'))).toBe('PATH_SYMLINK');
    expect(existsSync(join(rootDir, 'wlink'))).toBe(true);
    expect(await codeOf(removeFileInRoot(root, 'made'))).toBe('PATH_IS_DIRECTORY');
  });
});

describe('broad roots', () => {
  it('warns once on stderr for /, the home folder and above it', async () => {
    const warnings: string[] = [];
    const listener = (w: Error & { code?: string }) => {
      if (w.code === 'LECTERN_BROAD_ROOT') warnings.push(w.message);
    };
    process.on('warning', listener);
    try {
      createRootSync('/');
      createRootSync('/');
      await new Promise((r) => setImmediate(r));
      expect(warnings.length).toBe(1);
      expect(warnings[0]).toContain('root / is');
      expect(isBroadRoot(realpathSync(homedir()))).toBe(true);
      expect(isBroadRoot(rootDir)).toBe(false);
      expect(isBroadRoot(join(realpathSync(homedir()), 'notes'))).toBe(false);
    } finally {
      process.off('warning', listener);
    }
  });
});

describe('without /proc anchoring (other systems)', () => {
  it('applies the same rules with path-based lookups', async () => {
    setProcAnchoringForTests(false);
    try {
      expect(anchorMode()).toBe('path');
      expect((await readFileInRoot(root, 'sub/page.md')).bytes.toString()).toBe('INSIDE');
      expect(statInRootSync(root, 'sub/deeper').stat.isDirectory()).toBe(true);
      const dir = openDirInRootSync(root, 'sub');
      try {
        expect(dir.list().some((d) => d.name === 'page.md')).toBe(true);
        const deeper = dir.openDir('deeper');
        expect(deeper.readFile('page.md').bytes.toString()).toBe('INSIDE');
        deeper.close();
      } finally {
        dir.close();
      }
      await writeFileInRoot(root, 'fallback/f.md', 'ok', { createParents: true });
      expect(readFileSync(join(rootDir, 'fallback/f.md'), 'utf8')).toBe('ok');
      expect(await codeOf(readFileInRoot(root, 'wlink/page.md'))).toBe('PATH_SYMLINK');
    } finally {
      setProcAnchoringForTests(undefined);
    }
    expect(anchorMode()).toBe(process.platform === 'linux' ? 'descriptor' : 'path');
  });
});

describe('modes of what a write makes', () => {
  it('a replaced file keeps its mode exactly (and, for root, its owner); a new one gets 0644 less the umask', async () => {
    const p = join(rootDir, 'private.md');
    writeFileSync(p, 'old');
    chmodSync(p, 0o600);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(p, 4321, 4322);
    await writeFileInRoot(root, 'private.md', 'new');
    let st = statSync(p);
    expect(st.mode & 0o7777).toBe(0o600);
    if (asRoot) expect([st.uid, st.gid]).toEqual([4321, 4322]);
    chmodSync(p, 0o640);
    writeFileInRootSync(root, 'private.md', 'newer');
    st = statSync(p);
    expect(st.mode & 0o7777).toBe(0o640);
    expect(readFileSync(p, 'utf8')).toBe('newer');
    await writeFileInRoot(root, 'fresh.md', 'x');
    const umask = process.umask();
    expect(statSync(join(rootDir, 'fresh.md')).mode & 0o777).toBe(0o644 & ~umask);
  });

  it('the state folder is created 0700', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'lectern-state-')));
    try {
      const state = openStateDirSync(createRootSync(dir), { create: true })!;
      state.close();
      expect(statSync(join(dir, '.lectern')).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
