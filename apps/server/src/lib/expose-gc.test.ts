import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// the built module (the app's tests run after its build, as the e2e tests do)
const module = fileURLToPath(new URL('../../dist/lib/expose-gc.js', import.meta.url));

/** Runs `code` in a fresh Node process (ES module) that can import exposeGc. */
function run(code: string, flags: string[] = []): string {
  return execFileSync(process.execPath, [...flags, '--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  }).trim();
}

describe('exposeGc', () => {
  it('gives the process a working gc and leaves the flag off for contexts made later', () => {
    const out = run(
      `import { exposeGc } from ${JSON.stringify(module)};
       import { runInNewContext } from 'node:vm';
       const before = typeof globalThis.gc;
       const ok = exposeGc();
       globalThis.gc();
       console.log([before, ok, typeof globalThis.gc, runInNewContext('typeof gc'), exposeGc()].join(' '));`,
    );
    expect(out).toBe('undefined true function undefined true');
  });

  it('keeps a gc the process already had', () => {
    const out = run(
      `import { exposeGc } from ${JSON.stringify(module)};
       const mine = globalThis.gc;
       console.log(exposeGc(), globalThis.gc === mine);`,
      ['--expose-gc'],
    );
    expect(out).toBe('true true');
  });
});
