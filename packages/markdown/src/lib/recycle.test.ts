import { describe, expect, it } from 'vitest';
import { buildDocumentAsync } from './async.js';
import { realisticDocument } from './corpus.js';
import { buildDocument } from './document.js';

describe('the worker thread is replaced after large texts', () => {
  it('answers correctly before, across and after a replacement', async () => {
    // Past 8 Mi characters in all an idle worker is ended and a fresh one started; these
    // texts cross that mark twice, with requests in flight while it happens.
    const big = realisticDocument(11, 3 * 1024 * 1024);
    const small = Array.from({ length: 6 }, (_, i) => realisticDocument(20 + i, 30_000));
    const expectedBig = buildDocument(big);
    const expectedSmall = small.map((t) => buildDocument(t));
    for (let round = 0; round < 6; round++) {
      const [a, ...rest] = await Promise.all([
        buildDocumentAsync(big, { workerMinChars: 0 }),
        ...small.map((t) => buildDocumentAsync(t, { workerMinChars: 0 })),
      ]);
      expect(a).toEqual(expectedBig);
      expect(rest).toEqual(expectedSmall);
      // a request right after the last answer of a round, when the swap happens
      expect(await buildDocumentAsync(small[0]!, { workerMinChars: 0 })).toEqual(expectedSmall[0]);
    }
  }, 180_000);
});
