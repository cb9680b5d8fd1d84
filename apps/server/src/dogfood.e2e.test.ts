import { afterAll, describe, expect, it } from 'vitest';
import { BIN, run, scratch } from './test-helpers/spawn.js';

/**
 * Every tool Lectern ships, native and preset, must score TDQS 4.5 or more on our own linter,
 * and every server must rank tier A. This is the CI gate for descriptions.
 */
const s = scratch();
afterAll(() => s.cleanup());

const SURFACES: Array<[string, string[]]> = [
  ['native (all packages)', []],
  ['preset atlas', ['--preset', 'atlas']],
  ['preset md-chunk', ['--preset', 'md-chunk']],
  ['preset harness', ['--preset', 'harness']],
  ['preset wiki', ['--preset', 'wiki']],
  ['preset memoria', ['--preset', 'memoria']],
];

describe('TDQS gate on every tool we ship', () => {
  for (const [label, args] of SURFACES) {
    it(`${label}: every tool >= 4.5 and the server tier A`, async () => {
      const r = await run(['lint', ...args, '--min-tdqs', '4.5', '--min-server', 'A'], {
        cwd: s.dir,
      });
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('Result: PASS');
    }, 120_000);
  }

  it('lints a live stdio server started by command, the way CI lints any server', async () => {
    const r = await run(
      [
        'lint',
        '--min-tdqs',
        '4.5',
        '--format',
        'json',
        '--',
        process.execPath,
        BIN,
        'serve',
        '--preset',
        'harness',
      ],
      { cwd: s.dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('read_project_text');
  }, 120_000);
});
