// Deterministic pseudo-random helpers: every corpus is a pure function of the seed.

import { createRng } from '@lectern/markdown/testing';

/** A generator with the helpers the corpora use. `label` derives an independent stream. */
export function createRandom(seed, label = '') {
  let mixed = seed >>> 0;
  for (const ch of label) mixed = Math.imul(mixed ^ ch.charCodeAt(0), 0x9e3779b1) >>> 0;
  const next = createRng(mixed);
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (list) => list[Math.floor(next() * list.length)];
  return { next, int, pick };
}

/** Draws indexes 0..n-1 with weight 1/(i+1) (Zipf-like), as word frequencies in text fall. */
export function zipf(random, n) {
  const cum = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += 1 / (i + 1);
    cum[i] = acc;
  }
  return () => {
    const x = random.next() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** `n` distinct pronounceable words built from syllables (accented ones included). */
export function syllableWords(random, n) {
  const SYLLABLES = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'sa',
    'ti',
    'vo',
    'zu',
    'pe',
    'dra',
    'qui',
    'ber',
    'lan',
    'tor',
    'fen',
    'gal',
    'hos',
    'jin',
    'mar',
    'nol',
    'pri',
    'ses',
    'tam',
    'ulm',
    'vex',
    'wy',
    'xa',
    'yor',
    'zel',
    'ca',
    'fé',
    'ño',
    'ça',
    'ür',
  ];
  const out = [];
  const seen = new Set();
  while (out.length < n) {
    let w = '';
    for (let i = 0, k = random.int(2, 4); i < k; i++) w += random.pick(SYLLABLES);
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}
