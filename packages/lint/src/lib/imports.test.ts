import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('.', import.meta.url));

/** Each source module of src/lib and the modules of src/lib it imports (types included). */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.ts') || f.endsWith('.test.ts')) continue;
    const text = readFileSync(`${dir}${f}`, 'utf8');
    const deps = [...text.matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => m[1] as string);
    g.set(f.replace(/\.ts$/, ''), deps);
  }
  return g;
}

describe('src/lib modules', () => {
  it('import one another without a cycle', () => {
    const g = graph();
    expect(g.get('model')).toContain('evidence');
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const path: string[] = [];
    const visit = (n: string) => {
      if (state.get(n) === 'open') {
        cycles.push([...path.slice(path.indexOf(n)), n].join(' -> '));
        return;
      }
      if (state.get(n) === 'done') return;
      state.set(n, 'open');
      path.push(n);
      for (const m of g.get(n) ?? []) visit(m);
      path.pop();
      state.set(n, 'done');
    };
    for (const n of g.keys()) visit(n);
    expect(cycles).toEqual([]);
  });

  it('stay under 600 lines each', () => {
    const long = [...graph().keys()]
      .map((n) => [n, readFileSync(`${dir}${n}.ts`, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 600);
    expect(long).toEqual([]);
  });
});
