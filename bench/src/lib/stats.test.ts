import { describe, expect, it } from 'vitest';
import { byKind, kindLine, quantile } from './stats.mjs';

describe('byKind', () => {
  it('groups samples by the kind at the same index, in first-seen order', () => {
    const kinds = ['phrase', 'word', 'phrase', 'word', 'phrase'];
    const samples = [30, 2, 10, 4, 20];
    const out = byKind(kinds, samples);
    expect(Object.keys(out)).toEqual(['phrase', 'word']);
    expect(out.phrase).toEqual({ n: 3, p50: 20, p95: 30 });
    expect(out.word).toEqual({ n: 2, p50: 3, p95: 4 });
  });

  it('uses the same nearest-rank p95 as the rows', () => {
    const samples = Array.from({ length: 40 }, (_, i) => i + 1);
    const out = byKind(
      samples.map(() => 'k'),
      samples,
    );
    expect(out.k?.p95).toBe(quantile(samples, 0.95));
  });

  it('ignores samples without a kind and kinds without a sample', () => {
    expect(byKind(['a', 'b'], [5])).toEqual({ a: { n: 1, p50: 5, p95: 5 } });
    expect(byKind([], [1, 2])).toEqual({});
  });
});

describe('kindLine', () => {
  it('lists kinds slowest p95 first, underscores as spaces', () => {
    const line = kindLine({
      content_word: { n: 60, p50: 2.1, p95: 3.5 },
      two_words: { n: 60, p50: 8.4, p95: 29 },
    });
    expect(line).toBe(
      'two words p95 29 ms (p50 8.4, n 60); content word p95 3.5 ms (p50 2.1, n 60)',
    );
  });
});
