import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regexWorkerStats, resetRegexWorkerPeak } from '../lib/regex-runner.js';
import { lineTools } from '../package.js';
import { serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

// Issue 30 #7: 300 concurrent regex search_text calls from one session started 160 threads
// (1.3 GB). Regex worker threads alive at once are now capped per process (maxRegexWorkers);
// calls past the cap wait in line, and the wait counts in the call's regexTimeoutMs.
const CALLS = 300;
const CAP = 2;

let t: TempDir;
beforeAll(() => {
  t = tempDir();
  for (let i = 0; i < 5; i++) t.write(`docs/f${i}.txt`, `alpha ${i}\nneedle ${i}\nomega\n`);
  t.write(`evil/aaa.txt`, `${'a'.repeat(40)}!\n`);
});
afterAll(() => t?.cleanup());

describe('regex workers per server (issue 30 #7)', () => {
  it(`runs ${CALLS} concurrent regex calls with at most ${CAP} worker threads alive`, async () => {
    const s = await serve(
      lineTools({ workspaces: [{ id: 'w', path: t.dir }], limits: { maxRegexWorkers: CAP } }),
    );
    try {
      resetRegexWorkerPeak();
      let maxQueued = 0;
      const sampler = setInterval(() => {
        maxQueued = Math.max(maxQueued, regexWorkerStats().queued);
      }, 5);
      const results = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          s.call('search_text', {
            workspace: 'w',
            query: `needle [${i % 5}]`,
            regex: true,
            path: 'docs',
          }),
        ),
      );
      clearInterval(sampler);
      results.forEach((r, i) => {
        expect(r.isError, r.text).toBe(false);
        expect(r.data.timed_out).toBe(false);
        expect(r.data.matches.map((m: { path: string }) => m.path)).toEqual([`docs/f${i % 5}.txt`]);
      });
      const stats = regexWorkerStats();
      expect(stats.peak).toBeGreaterThanOrEqual(1);
      expect(stats.peak).toBeLessThanOrEqual(CAP);
      expect(stats.alive).toBeLessThanOrEqual(CAP);
      expect(stats.queued).toBe(0);
      // The cap was what held them back: calls did wait in line.
      expect(maxQueued).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  }, 180_000);

  it('counts the wait in line in the call budget: catastrophic calls all stop near one budget', async () => {
    // Each call's pattern backtracks far past its 300 ms budget. With the wait counted, calls
    // far back in line answer timed_out once their budget is spent waiting, without a thread;
    // were the wait free, each would wait its turn (the last after CALLS × 300 ms / CAP = 45 s).
    const s = await serve(
      lineTools({
        workspaces: [{ id: 'w', path: t.dir }],
        limits: { maxRegexWorkers: CAP, regexTimeoutMs: 300 },
      }),
    );
    try {
      resetRegexWorkerPeak();
      const results = await Promise.all(
        Array.from({ length: CALLS }, () =>
          s.call('search_text', { workspace: 'w', query: '(a+)+$', regex: true, path: 'evil' }),
        ),
      );
      for (const r of results) {
        expect(r.isError, r.text).toBe(false);
        expect(r.data).toMatchObject({ timed_out: true, timed_out_path: 'evil/aaa.txt' });
      }
      const stats = regexWorkerStats();
      expect(stats.peak).toBeLessThanOrEqual(CAP);
      // Only CAP calls scan at a time, 300 ms each: most of the rest ran out of budget in line.
      expect(stats.lineTimeouts).toBeGreaterThan(CALLS / 2);
    } finally {
      await s.close();
    }
  }, 180_000);
});
