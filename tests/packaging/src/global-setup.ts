// Packs every published package once, as `pnpm publish` would (workspace: ranges become the
// versions they point at), into a temporary folder the test files read (`inject('tarballs')`).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { expectSuccess, pnpm, publishedPackages, root, run } from './lib/workspace.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder holding every published package's tarball. */
    tarballs: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-tarballs-'));
  const packages = publishedPackages();
  const [command, ...prefix] = pnpm();
  const filters = packages.flatMap((p) => ['--filter', `./${p.rel}`]);
  expectSuccess(
    'pnpm pack',
    await run(command!, [...prefix, '-r', ...filters, 'pack', '--pack-destination', dir], {
      cwd: root,
      timeoutMs: 240_000,
    }),
  );
  for (const p of packages) {
    if (!existsSync(join(dir, p.tarball))) throw new Error(`pnpm pack wrote no ${p.tarball}`);
  }
  project.provide('tarballs', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
