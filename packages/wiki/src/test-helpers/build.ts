import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

/**
 * vitest global setup: the child-process tests run the built package (dist), so rebuild it
 * when any source file is newer than dist/index.js. Under turbo, `build` already ran.
 */
export default function setup(): void {
  const pkg = resolve(import.meta.dirname, '../..');
  const out = join(pkg, 'dist/index.js');
  let built = 0;
  try {
    built = statSync(out).mtimeMs;
  } catch {
    built = 0;
  }
  const newest = (dir: string): number => {
    let m = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) m = Math.max(m, newest(p));
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
        m = Math.max(m, statSync(p).mtimeMs);
    }
    return m;
  };
  if (built > newest(join(pkg, 'src'))) return;
  const tsc = createRequire(join(pkg, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: pkg,
    stdio: 'inherit',
  });
}
