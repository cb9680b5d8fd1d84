import { describe, expect, it } from 'vitest';
import { NEAR_TERMS, proximityScore } from './proximity.js';
import { queryTerms } from './rank.js';

const terms = queryTerms('cache timeout fired', ['en']);
const weights = [2, 2, 2];
const score = (...texts: string[]) => proximityScore(texts, terms, weights, 'en', 20);

describe('proximityScore', () => {
  it('scores words next to each other in the question when they stand close in the text', () => {
    expect(score('', 'the cache timeout')).toBeGreaterThan(0);
    // Closer is better: 1/d² per occurrence.
    expect(score('', 'cache timeout')).toBeGreaterThan(score('', 'cache grew and timeout'));
    // More pairs of the question together are better.
    expect(score('', 'cache timeout fired')).toBeGreaterThan(score('', 'cache timeout'));
  });

  it('gives nothing for words apart in the question, too far apart, or split by a heading', () => {
    // "cache" and "fired" are not next to each other in the question.
    expect(score('', 'cache fired')).toBe(0);
    const gap = Array.from({ length: NEAR_TERMS }, (_, i) => `word${i}`).join(' ');
    expect(score('', `cache ${gap} timeout`)).toBe(0);
    expect(score('cache', 'timeout')).toBe(0);
    // A question of one word, or a term left out of it (weight 0), has no pair.
    expect(score('', 'cache cache')).toBe(0);
    expect(proximityScore(['', 'cache timeout'], terms, [2, 0, 2], 'en', 20)).toBe(0);
  });

  it('matches word forms and camel-case parts as the index does', () => {
    expect(score('', 'caches timed out… the cacheTimeout fired')).toBeGreaterThan(0);
    expect(score('', 'Timeouts fired')).toBeGreaterThan(0);
  });
});
