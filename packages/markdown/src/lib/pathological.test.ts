import { bySize } from '@lectern/core/testing';
import { describe, expect, it } from 'vitest';
import { remarkAffordable } from './budget.js';
import { PATHOLOGICAL_KINDS, pathologicalDocument, realisticDocument } from './corpus.js';
import { buildDocument } from './document.js';
import { remarkHeadingText } from './remark.js';
import { MAX_NESTING, simpleInlineText } from './scanner.js';

/*
 * Parse time must grow linearly on adversarial input (issue: a line of 64k `- ` took 12 s,
 * 1 MB over a minute, and froze the server). Timing is measured robustly: each figure is the
 * least, over interleaved repetitions, of the mean time of as many parses as fill 40 ms; a
 * ratio over the bound is measured again (up to ten times) before it counts. Linear parsing
 * gives about 4 and a quadratic one 16, so the bound of 11 leaves room for a busy machine's noise
 * (6.5 was seen under a load of 40, and 10.4 for html-blocks with the PostgreSQL suites running
 * beside it on 2 cores, where an idle run gives 4) while still catching quadratic growth. The only
 * absolute bound is a
 * ceiling far above any idle run (1 MB parses in under 3 s on an idle 2-core machine).
 */

const N = bySize(64 * 1024, 256 * 1024);
const REPS = bySize(3, 7);
const ONE_MB = 1024 * 1024;

function meanTime(text: string): number {
  let runs = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    buildDocument(text);
    runs++;
    elapsed = performance.now() - start;
  } while (elapsed < 40);
  return elapsed / runs;
}

/** time(4N) / time(N), least of interleaved repetitions, up to ten tries under the bound. */
function growth(small: string, large: string, bound: number): number {
  let ratio = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 10 && ratio > bound; attempt++) {
    let a = Number.POSITIVE_INFINITY;
    let b = Number.POSITIVE_INFINITY;
    for (let r = 0; r < REPS; r++) {
      a = Math.min(a, meanTime(small));
      b = Math.min(b, meanTime(large));
    }
    ratio = Math.min(ratio, b / a);
  }
  return ratio;
}

describe('parse time is linear on adversarial Markdown', () => {
  it.each(PATHOLOGICAL_KINDS)(
    '%s: time(4N)/time(N) <= 11, and 1 MB parses well within a minute',
    (kind) => {
      const ratio = growth(pathologicalDocument(kind, N), pathologicalDocument(kind, 4 * N), 11);
      expect(ratio).toBeLessThanOrEqual(11);
      const big = pathologicalDocument(kind, ONE_MB);
      expect(big.length).toBeGreaterThanOrEqual(ONE_MB * 0.99);
      const start = performance.now();
      const doc = buildDocument(big);
      expect(performance.now() - start).toBeLessThan(45_000);
      expect(doc.totalLines).toBeGreaterThan(0);
    },
    180_000,
  );
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
