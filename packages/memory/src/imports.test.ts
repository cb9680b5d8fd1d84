import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

/**
 * Import cycles among the `.ts` files under `root`, each as the files around it joined with
 * ` -> `. Type-only imports and re-exports count too: they tie the files' meaning together as
 * much as value imports do (and the linter's cycle rule skips them).
 */
function importCycles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) files.push(p);
    }
  };
  walk(root);
  const deps = new Map<string, string[]>();
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const out: string[] = [];
    for (const m of text.matchAll(
      /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]/gms,
    )) {
      const target = resolve(dirname(f), m[1]!).replace(/\.js$/, '.ts');
      if (existsSync(target) && !out.includes(target)) out.push(target);
    }
    deps.set(f, out);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of deps.get(f) ?? []) {
      if (state.get(d) === 'open') {
        const ring = [...stack.slice(stack.indexOf(d)), d];
        cycles.push(ring.map((x) => relative(root, x)).join(' -> '));
      } else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
}

test('no file of the package imports itself through others, type imports included', () => {
  const src = dirname(fileURLToPath(import.meta.url));
  expect(importCycles(src)).toEqual([]);
});

test('the cycle check finds a circle of type-only imports and re-exports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-cycles-'));
  try {
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B;\n");
    writeFileSync(join(dir, 'b.ts'), "export type { C as B } from './c.js';\n");
    writeFileSync(
      join(dir, 'c.ts'),
      "import type {\n  A,\n} from './a.js';\nexport type C = A[];\n",
    );
    writeFileSync(join(dir, 'd.ts'), "import type { A } from './a.js';\nexport type D = A;\n");
    expect(importCycles(dir)).toEqual(['a.ts -> b.ts -> c.ts -> a.ts']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
