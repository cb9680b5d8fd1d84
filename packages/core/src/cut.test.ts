import { describe, expect, it } from 'vitest';
import { cutStrings } from './cut.js';
import { collectPage, jsonBytes, OutputBudget } from './paginate.js';

const marker = (path: ReadonlyArray<string | number>, shown: number, total: number) =>
  ` … [${path.join('.')} cut: ${shown} of ${total}]`;

describe('cutStrings', () => {
  it('keeps a value that fits as it is', () => {
    const v = { a: 'short', b: [1, 2] };
    expect(cutStrings(v, 1000, marker)).toBe(v);
  });

  it('cuts only the long strings, to the largest cap that fits, with the marker', () => {
    const v = { id: 'doc', heading: 'h'.repeat(100_000), path: ['p', 'q'.repeat(50_000)] };
    const out = cutStrings(v, 4096, marker)!;
    expect(jsonBytes(out)).toBeLessThanOrEqual(4096);
    expect(out.id).toBe('doc');
    expect(out.path[0]).toBe('p');
    const m = /^(h+) … \[heading cut: (\d+) of 100000\]$/.exec(out.heading);
    expect(m).not.toBeNull();
    expect(m![1]!.length).toBe(Number(m![2]));
    expect(out.path[1]).toMatch(/^q+ … \[path\.1 cut: \d+ of 50000\]$/);
    // the largest cap: one character more would not fit
    const cap = Number(m![2]);
    expect(cap).toBeGreaterThan(1500);
  });

  it('never splits a surrogate pair', () => {
    const v = { s: '😀'.repeat(10_000) };
    const out = cutStrings(v, 1000, marker)!;
    const kept = out.s.split(' … ')[0]!;
    expect(kept.length % 2).toBe(0);
    expect(kept).toBe('😀'.repeat(kept.length / 2));
  });

  it('gives null when no cap makes it fit', () => {
    const v = { list: Array.from({ length: 1000 }, (_, i) => i) };
    expect(cutStrings(v, 100, marker)).toBeNull();
  });
});

describe('collectPage with cut', () => {
  it('answers an item that alone is over the budget cut, and says where the list goes on', () => {
    const item = (i: number) => ({ name: i === 0 ? 'x'.repeat(10_000) : `e${i}` });
    const page = collectPage(3, {
      offset: 0,
      limit: 10,
      budget: new OutputBudget(1000),
      item,
      cut: (v, max) => cutStrings(v, max, marker),
    });
    expect(page.cut).toEqual([0]);
    expect(page.items[0]!.name).toMatch(/^x+ … \[name cut: \d+ of 10000\]$/);
    // the cut item takes what the budget had left: the page ends after it and says where on
    expect(page).toMatchObject({ has_more: true, next_offset: 1, limited_by_bytes: true });
    expect(jsonBytes(page.items[0]) + 1).toBeLessThanOrEqual(1000);
  });
});
