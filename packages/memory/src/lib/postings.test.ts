import { describe, expect, test } from 'vitest';
import {
  countPostings,
  eachPosting,
  encodePostings,
  PostingsEncoder,
  postingsMinDf,
  postingsTerms,
  postingsTuning,
} from './postings.js';

type Row = [number, number, number, number];

function decode(blob: Uint8Array): Row[] {
  const out: Row[] = [];
  eachPosting(blob, (id, t, h, b) => out.push([id, t, h, b]));
  return out;
}

describe('postings blobs', () => {
  test('decode to what was encoded: small and wide counts, small and huge gaps', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const rows: Row[] = [];
    let id = 0;
    for (let i = 0; i < 5000; i++) {
      id += random() < 0.9 ? 1 + Math.floor(random() * 100) : 1 + Math.floor(random() * 2 ** 40);
      const wide = random() < 0.1;
      rows.push([
        id,
        wide ? Math.floor(random() * 70_000) : Math.floor(random() * 4),
        wide ? Math.floor(random() * 300) : Math.floor(random() * 4),
        wide ? Math.floor(random() * 100_000) : Math.floor(random() * 16),
      ]);
    }
    // Counts past 65,535 are kept at 65,535, as `packCounts` keeps them.
    const kept = rows.map(([i, t, h, b]) => [i, Math.min(t, 65535), h, Math.min(b, 65535)]);
    expect(decode(encodePostings(rows))).toEqual(kept);
  });

  test('the first chunk may be 0, and the one-byte counts stop short of the wide marker', () => {
    const rows: Row[] = [
      [0, 0, 0, 1],
      [1, 3, 3, 15],
      [2, 3, 3, 14],
      [200, 1, 0, 0],
    ];
    const blob = encodePostings(rows);
    expect(decode(blob)).toEqual(rows);
    // 0/1/2: one gap byte and one counts byte; 3, 3, 15 needs the marker and three varints.
    expect(blob.length).toBe(2 + 5 + 2 + 3);
  });

  test('ids must ascend: a repeated or smaller id is refused before anything is written', () => {
    const encoder = new PostingsEncoder();
    encoder.add(5, 0, 0, 1);
    expect(() => encoder.add(5, 0, 0, 1)).toThrow(/ascending chunk ids: 5 after 5/);
    expect(() => encoder.add(3, 0, 0, 1)).toThrow(RangeError);
    expect(() => encoder.add(Number.NaN, 0, 0, 1)).toThrow(RangeError);
    expect(encoder.count).toBe(1);
    expect(decode(encoder.finish())).toEqual([[5, 0, 0, 1]]);
  });

  test('a truncated blob is an error, not a wrong answer', () => {
    const blob = encodePostings([
      [1, 0, 0, 2],
      [100_000, 0, 0, 40],
    ]);
    for (let cut = 1; cut < blob.length; cut++) {
      if (cut === 2) continue; // the end of the first chunk: a shorter, valid blob
      expect(() => decode(blob.subarray(0, cut)), `cut at ${cut}`).toThrow(RangeError);
    }
    expect(decode(blob.subarray(0, 2))).toEqual([[1, 0, 0, 2]]);
  });

  test('countPostings counts the chunks a filter keeps', () => {
    const blob = encodePostings([
      [2, 0, 0, 1],
      [4, 1, 0, 0],
      [9, 0, 1, 3],
    ]);
    expect(countPostings(blob, () => true)).toBe(3);
    expect(countPostings(blob, (id) => id !== 4)).toBe(2);
    expect(countPostings(new Uint8Array(0), () => true)).toBe(0);
  });

  test('terms get postings above 50 chunks and above 1% of chunks', () => {
    expect(postingsTuning).toEqual({ minDf: 50, share: 0.01 });
    expect(postingsMinDf(1_685)).toBe(50);
    expect(postingsMinDf(53_895)).toBe(538);
    expect(postingsMinDf(0)).toBe(50);
  });

  test('postings are written for terms above the threshold and in at most 30% of chunks', () => {
    const frequencies = {
      terms: ['rare', 'edge', 'above', 'common', 'top', 'all'],
      df: Int32Array.from([50, 51, 2_000, 3_000, 3_001, 10_000]),
    };
    expect(postingsTerms(frequencies, 10_000)).toEqual(['above', 'common']);
    expect(postingsTerms(frequencies, 5_000)).toEqual(['edge']);
  });
});
