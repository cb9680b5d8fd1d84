import { isMainThread } from 'node:worker_threads';
import { bySize } from '@lectern/core/testing';
import { describe, expect, it } from 'vitest';
import { remarkAffordable } from './budget.js';
import { PATHOLOGICAL_KINDS, pathologicalDocument, realisticDocument } from './corpus.js';
import { buildDocument } from './document.js';
import { remarkHeadingText } from './remark.js';
import { MAX_NESTING, simpleInlineText } from './scanner.js';

/*
 * Parse time must grow linearly on adversarial input (issue: a line of 64k `- ` took 12 s,
 * 1 MB over a minute, and froze the server). The check compares the cost of N, 4N and 16N
 * characters, and what it measures is chosen so that only the parser's own growth shows:
 *
 * - CPU time of this process (user + system), not wall time: a busy machine delays the test but
 *   adds no CPU time to it. (Wall time stands in if the test ever runs in a worker thread, where
 *   the process's CPU time would include other files' tests.)
 * - Each size is parsed once before it is measured (compiled code, not the interpreter's first
 *   pass: on its own this made the first size look up to 6x slower), then the least, over
 *   interleaved repetitions, of the mean cost of as many parses as fill 40 ms.
 * - Growth is the smaller of the two steps, cost(4N)/cost(N) and cost(16N)/cost(4N). Linear
 *   parsing gives about 4 for both, quadratic 16 for both. A linear parser can still show one
 *   large step: the cost per element of a JavaScript array jumps once its backing store passes
 *   128 KiB (about 16,000 entries; V8 then keeps it in its large-object space, fresh pages the
 *   kernel must fault in and zero on every growth). html-blocks at N = 64 KiB has 10,900 lines
 *   and at 4N 43,700, so its first step measured 10-15 in vitest (11.9-13.1 on a quiet machine
 *   against the old single-step bound of 11) while its second step is 4-5.5 and the bare line
 *   index (`computeLineStarts`) showed the same 10x jump per character; long-table and
 *   deep-blank-lines show the same step at other sizes. One step cannot hide quadratic growth,
 *   which inflates both.
 *
 * The only absolute bound is a ceiling far above any idle run (1 MB parses in under 3 s on an
 * idle 2-core machine). A self-check runs the same measure on a deliberately quadratic scan,
 * so the check is known to fail on what it is meant to catch.
 */

const N = bySize(64 * 1024, 256 * 1024);
const REPS = bySize(3, 5);
const ONE_MB = 1024 * 1024;
/** Largest accepted growth step: linear is ~4, quadratic 16. */
const MAX_STEP = 8;

/** CPU milliseconds this process has used (wall time in a worker thread, see above). */
const now = isMainThread
  ? () => {
      const c = process.cpuUsage();
      return (c.user + c.system) / 1000;
    }
  : () => performance.now();

/** Mean cost of `work(input)` over as many runs as fill 40 ms. */
function meanCost<T>(work: (input: T) => unknown, input: T): number {
  let runs = 0;
  const start = now();
  let elapsed = 0;
  do {
    work(input);
    runs++;
    elapsed = now() - start;
  } while (elapsed < 40);
  return elapsed / runs;
}

/**
 * The smaller of cost(4N)/cost(N) and cost(16N)/cost(4N) for `inputs` = [N, 4N, 16N]: least of
 * interleaved repetitions after one warm-up run each, measured again (up to five tries) while
 * over `bound`. Returns the steps too, for the failure message.
 */
function growth<T>(
  work: (input: T) => unknown,
  inputs: readonly [T, T, T],
  bound: number,
): { step: number; steps: number[] } {
  for (const input of inputs) work(input);
  let best = { step: Number.POSITIVE_INFINITY, steps: [] as number[] };
  for (let attempt = 0; attempt < 5 && best.step > bound; attempt++) {
    const cost = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    for (let r = 0; r < REPS; r++) {
      for (let i = 0; i < 3; i++) cost[i] = Math.min(cost[i]!, meanCost(work, inputs[i]!));
    }
    const steps = [cost[1]! / cost[0]!, cost[2]! / cost[1]!];
    const step = Math.min(...steps);
    if (step < best.step) best = { step, steps };
  }
  return best;
}

describe('parse time is linear on adversarial Markdown', () => {
  it.each(PATHOLOGICAL_KINDS)(
    `%s: the smaller growth step from N to 16N is <= ${MAX_STEP}, and 1 MB parses well within a minute`,
    (kind) => {
      const docs = [N, 4 * N, 16 * N].map((n) => pathologicalDocument(kind, n));
      const { step, steps } = growth(buildDocument, docs as [string, string, string], MAX_STEP);
      expect(step, `steps ${steps.map((x) => x.toFixed(2)).join(', ')}`).toBeLessThanOrEqual(
        MAX_STEP,
      );
      const big = pathologicalDocument(kind, ONE_MB);
      expect(big.length).toBeGreaterThanOrEqual(ONE_MB * 0.99);
      const start = performance.now();
      const doc = buildDocument(big);
      expect(performance.now() - start).toBeLessThan(45_000);
      expect(doc.totalLines).toBeGreaterThan(0);
    },
    300_000,
  );

  it('the measure fails on quadratic work (each line compared with every line before it)', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i % 97}`);
    const quadratic = (input: string[]) => {
      let same = 0;
      for (let i = 0; i < input.length; i++) {
        for (let j = 0; j < i; j++) if (input[j] === input[i]) same++;
      }
      return same;
    };
    const linear = (input: string[]) => new Set(input).size;
    const sizes = [500, 2000, 8000] as const;
    const inputs = sizes.map(lines) as [string[], string[], string[]];
    expect(growth(quadratic, inputs, MAX_STEP).step).toBeGreaterThan(MAX_STEP);
    expect(growth(linear, inputs, MAX_STEP).step).toBeLessThanOrEqual(MAX_STEP);
  }, 120_000);
});

describe('bounds', () => {
  it('remark is never asked about adversarial text, and is about realistic pages', () => {
    for (const kind of PATHOLOGICAL_KINDS) {
      if (kind === 'long-table') continue; // a long table is slow for remark, but linear
      expect(remarkAffordable(pathologicalDocument(kind, 64 * 1024), 1e9), kind).toBe(false);
    }
    for (let seed = 1; seed <= 20; seed++) {
      expect(remarkAffordable(realisticDocument(seed, 30_000), 64 * 1024)).toBe(true);
    }
    expect(remarkAffordable('x'.repeat(100), 99)).toBe(false);
  });

  it('reads containers deeper than MAX_NESTING as text and says the outline is not exact', () => {
    const shallow = buildDocument(`${'> '.repeat(MAX_NESTING - 1)}x\n\n# After\n`);
    expect(shallow.exact).toBe(true);
    const deep = buildDocument(`${'> '.repeat(MAX_NESTING + 5)}x\n\n# After\n`);
    expect(deep.exact).toBe(false);
    expect(deep.sections.map((s) => s.heading)).toEqual(['After']);
    // the top-level structure after deep nesting is intact
    const lists = buildDocument(`# A\n\n${'- '.repeat(10_000)}x\n\n## B\n\ntext\n`);
    expect(lists.sections.map((s) => [s.heading, s.startLine])).toEqual([
      ['A', 1],
      ['B', 5],
    ]);
  });

  it('decides a heading too long for remark itself, reading simple links as remark does', () => {
    const doc = buildDocument(`# ${'[a](b) &amp; '.repeat(2000)}\n`);
    expect(doc.exact).toBe(false);
    expect(doc.sections[0]!.heading.startsWith('a & a & a')).toBe(true);
    expect(buildDocument('# [a](b) *c*\n').sections[0]!.heading).toBe('a c');
  });

  it('approximates heading text like remark on the common inline forms', () => {
    for (const inline of [
      '[a](b)',
      '![alt](x.png) t',
      'a &amp; b &#35; &#x41; &copy;',
      '<https://x.y/z>',
      '[*em*](u "t")',
      '[1.2.3](https://e.com/compare/v1...v2) - 2024-01-01',
      'Use <code>x</code> &lt;y&gt;',
      '[a](<b c>) and [d]( e )',
      'mail <a@b.co>',
    ]) {
      expect(simpleInlineText(inline, true), inline).toBe(remarkHeadingText(`# ${inline}`));
    }
  });
});
