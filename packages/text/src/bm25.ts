/** The two BM25 parameters. */
export interface Bm25Params {
  /** Term-frequency saturation: how soon more occurrences stop adding. */
  k1: number;
  /** Length normalisation: 0 ignores a field's length, 1 divides by it in full. */
  b: number;
}

/** Lucene's and Pyserini's defaults for short documents (k1 = 0.9, b = 0.4). */
export const BM25: Readonly<Bm25Params> = Object.freeze({ k1: 0.9, b: 0.4 });

/** The fields a searchable unit has: its own title, the headings above it, and its text. */
export type Field = 'title' | 'headings' | 'body';

/** Every {@link Field}. */
export const FIELDS: readonly Field[] = ['title', 'headings', 'body'];

/**
 * How much one occurrence in each field counts against one in the body, used by every search.
 * The title's weight was set once on the Cranfield collection's development questions (even
 * positions): nDCG@10 rises from 0.360 (weight 1) to 0.373 (3) and 0.375 (4), then by less
 * than 0.01 per doubling; 4 was taken there. Cranfield has no headings: a heading path weighs
 * half a title, between the title and the body.
 */
export const FIELD_WEIGHTS: Readonly<Record<Field, number>> = Object.freeze({
  title: 4,
  headings: 2,
  body: 1,
});

/** Lucene's BM25 inverse document frequency: ln(1 + (N − df + 0.5) / (df + 0.5)), never negative. */
export function idf(docCount: number, docFreq: number): number {
  const n = Math.max(docCount, docFreq);
  return Math.log(1 + (n - docFreq + 0.5) / (docFreq + 0.5));
}

/**
 * One term's BM25F score in one unit (the simple BM25F of Robertson and Zaragoza): each field's
 * frequency is normalised by that field's length against its average, weighted, summed into one
 * pseudo-frequency, which saturates once with `k1`:
 *
 *   tf′ = Σ_f w_f · tf_f / (1 − b + b · len_f / avglen_f)
 *   score = idf · tf′ · (k1 + 1) / (tf′ + k1)
 *
 * With one field of weight 1 this is Lucene's BM25 exactly. A field whose average length is 0
 * (no unit has it) is not normalised.
 */
export function bm25f(
  termFields: Readonly<Partial<Record<Field, number>>>,
  lengths: Readonly<Partial<Record<Field, number>>>,
  avgLengths: Readonly<Partial<Record<Field, number>>>,
  idfValue: number,
  params: Readonly<Bm25Params> = BM25,
  weights: Readonly<Record<Field, number>> = FIELD_WEIGHTS,
): number {
  let tf = 0;
  for (const field of FIELDS) {
    const f = termFields[field];
    if (!f) continue;
    const avg = avgLengths[field] ?? 0;
    const norm = avg > 0 ? 1 - params.b + (params.b * (lengths[field] ?? 0)) / avg : 1;
    tf += (weights[field] * f) / norm;
  }
  if (tf === 0) return 0;
  return (idfValue * tf * (params.k1 + 1)) / (tf + params.k1);
}
