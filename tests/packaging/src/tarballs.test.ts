// Every packed tarball, as npm would publish it: publint, are-the-types-wrong, and its files.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { describe, expect, inject, it } from 'vitest';
import { isBuiltinOrRelative, packageOf, specifiers, typesPackages } from './lib/imports.js';
import {
  expectSuccess,
  type PackageJson,
  publishedPackages,
  type RunResult,
  readJson,
  readTarball,
  run,
} from './lib/workspace.js';

const dir = inject('tarballs');
const require = createRequire(import.meta.url);

/** Whether the copy of `name` installed for the package in `pkgDir` carries declarations. */
function shipsTypes(pkgDir: string, name: string): boolean {
  const manifest = join(pkgDir, 'node_modules', name, 'package.json');
  if (!existsSync(manifest)) return false;
  const pkg = readJson<{ types?: string; typings?: string; exports?: unknown }>(manifest);
  return Boolean(pkg.types || pkg.typings || JSON.stringify(pkg.exports ?? '').includes('types'));
}

/** The attw command line, from the installed @arethetypeswrong/cli. */
function attwBin(): string {
  const manifest = require.resolve('@arethetypeswrong/cli/package.json');
  const bin = readJson<{ bin: Record<string, string> }>(manifest).bin.attw!;
  return join(dirname(manifest), bin);
}

/**
 * attw's command line on one tarball. Every run starts at the first call, two at a time, so
 * the TypeScript each loads overlaps with the others' work.
 */
const attw = (() => {
  const runs = new Map<string, Promise<RunResult>>();
  let queue: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()];
  const start = (tarball: string) => {
    const lane = runs.size % queue.length;
    const result = queue[lane]!.then(() =>
      run(
        process.execPath,
        [
          attwBin(),
          join(dir, tarball),
          '--profile',
          'node16',
          '--ignore-rules',
          'cjs-resolves-to-esm',
          '--format',
          'ascii',
          '--no-color',
        ],
        { cwd: dir, timeoutMs: 240_000 },
      ),
    );
    // The test that awaits `result` reports a failure; the next run in the lane goes on.
    const settled = result.catch(() => {});
    queue = queue.map((q, i) => (i === lane ? settled : q));
    runs.set(tarball, result);
  };
  return (tarball: string): Promise<RunResult> => {
    if (runs.size === 0) for (const p of publishedPackages()) start(p.tarball);
    return runs.get(tarball)!;
  };
})();

describe.each(publishedPackages().map((p) => [p.pkg.name, p] as const))('%s', (_name, p) => {
  const file = join(dir, p.tarball);

  it('passes publint with no message at any level', async () => {
    const bytes = readFileSync(file);
    const tarball = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const { messages, pkg } = await publint({
      pack: { tarball: tarball as ArrayBuffer },
      level: 'suggestion',
      strict: true,
    });
    expect(messages.map((m) => `${m.type}: ${formatMessage(m, pkg) ?? m.code}`)).toEqual([]);
  });

  // ESM, with a `default` condition so `require()` loads it where Node can require ES modules
  // (20.19+, 22.12+; consumers.test.ts checks it). attw warns about exactly that
  // (cjs-resolves-to-esm), and the node10 profile ignores `exports`, which subpaths need.
  it('passes attw for node16 (CJS and ESM) and bundlers', async () => {
    expectSuccess(`attw ${p.tarball}`, await attw(p.tarball));
  }, 300_000);

  it('ships its license, readme and sources, and no tests or local state', () => {
    const entries = readTarball(file);
    const paths = new Set(entries.map((e) => e.path));
    for (const needed of ['package.json', 'README.md', 'LICENSE']) expect(paths).toContain(needed);
    const packed = readJson<PackageJson>(join(p.dir, 'package.json'));
    const main = packed.exports?.['.'];
    if (main && typeof main === 'object') {
      expect(paths).toContain(posix.normalize(main.types!));
      expect(paths).toContain(posix.normalize(main.default!));
    }
    for (const bin of Object.values(packed.bin ?? {}))
      expect(paths).toContain(posix.normalize(bin));
    const tests = [...paths].filter((x) => /\.test\.|(^|\/)test-helpers\//.test(x));
    expect(tests).toEqual([]);
    // A memory database a local run left in the bundled examples stays home.
    expect([...paths].filter((x) => x.includes('.lectern/'))).toEqual([]);
    expect(entries.find((e) => e.path === 'LICENSE')!.data.toString('utf8')).toMatch(
      /^MIT License\n/,
    );
  });

  it('ships every file its source maps point at', () => {
    const entries = readTarball(file);
    const paths = new Set(entries.map((e) => e.path));
    const maps = entries.filter((e) => e.path.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(map.data.toString('utf8')) as { sources: string[] };
      for (const source of sources) {
        const target = posix.normalize(posix.join(posix.dirname(map.path), source));
        if (!paths.has(target)) missing.push(`${map.path} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  // A consumer's tsc follows these imports: each must resolve through what the package
  // installs with it (a devDependency's types are missing from a fresh install).
  it('installs the types its declarations import', () => {
    const packed = readJson<PackageJson>(join(p.dir, 'package.json'));
    const installed = { ...packed.dependencies, ...packed.peerDependencies };
    const missing: string[] = [];
    for (const entry of readTarball(file)) {
      if (!entry.path.endsWith('.d.ts')) continue;
      for (const { from } of specifiers(entry.data.toString('utf8'))) {
        if (isBuiltinOrRelative(from)) continue;
        const name = packageOf(from);
        const [self, types] = typesPackages(name);
        const typed = (self! in installed && shipsTypes(p.dir, self!)) || types! in installed;
        if (!typed && name !== p.pkg.name) missing.push(`${entry.path} imports ${from}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('replaces workspace ranges with versions', () => {
    const manifest = readTarball(file).find((e) => e.path === 'package.json')!;
    expect(manifest.data.toString('utf8')).not.toContain('workspace:');
  });
});
