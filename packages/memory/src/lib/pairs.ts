import type { AnalysedChunk } from './analysis.js';

/**
 * Phrase pairs: for two terms that are each in more than `pairTuning.share` of all chunks (at
 * the last full build), the chunks where the second directly follows the first in one field.
 * A phrase of such words is held only by chunks holding each of its adjacent pairs, so a
 * pair's chunks are the few a phrase check must read, where an index without positions
 * (PostgreSQL's GIN) has it check every chunk holding all its words: much of the index.
 */

/**
 * @internal The share of chunks both terms of a pair are in (tests set other values). Below
 * it, the chunks holding two words are few enough to check; on the bench's notes, 101 terms
 * are in more than 10% of the 53,895 chunks.
 */
export const pairTuning = { share: 0.1 };

/** A pair's key: its two terms, in order, with a space (a term never holds one). */
export function pairKey(first: string, second: string): string {
  return `${first} ${second}`;
}

/** The adjacent pairs of a phrase's terms, as keys, in order. */
export function phrasePairs(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < terms.length; i++) out.push(pairKey(terms[i]!, terms[i + 1]!));
  return out;
}

/**
 * The pairs a full build keeps, from every chunk's terms in order (`seqs`: term numbers, -1
 * after each field, by `ids`): each pair of adjacent terms that are both in more than
 * `pairTuning.share` of the chunks and have a list (`listed`), with every chunk holding it.
 */
export function commonPairs(
  input: {
    ids: readonly number[];
    seqs: readonly Int32Array[];
    terms: readonly string[];
    df: ArrayLike<number>;
  },
  listed: (df: number) => boolean,
): Array<{ pair: string; ids: number[] }> {
  const { ids, seqs, terms, df } = input;
  const chunks = ids.length;
  const common = new Uint8Array(terms.length);
  let any = false;
  for (let t = 0; t < terms.length; t++) {
    if (df[t]! > pairTuning.share * chunks && listed(df[t]!)) {
      common[t] = 1;
      any = true;
    }
  }
  if (!any) return [];
  const byPair = new Map<number, number[]>();
  const width = terms.length;
  seqs.forEach((seq, k) => {
    const id = ids[k]!;
    for (let i = 0; i + 1 < seq.length; i++) {
      const a = seq[i]!;
      const b = seq[i + 1]!;
      if (a < 0 || b < 0 || common[a] === 0 || common[b] === 0) continue;
      const key = a * width + b;
      let list = byPair.get(key);
      if (!list) {
        list = [];
        byPair.set(key, list);
      }
      if (list[list.length - 1] !== id) list.push(id);
    }
  });
  const out: Array<{ pair: string; ids: number[] }> = [];
  for (const [key, list] of byPair) {
    out.push({ pair: pairKey(terms[Math.floor(key / width)]!, terms[key % width]!), ids: list });
  }
  return out.sort((x, y) => (x.pair < y.pair ? -1 : x.pair > y.pair ? 1 : 0));
}

/** A chunk's adjacent pairs (keys) whose two terms `keep` accepts, each once. */
export function pairsOf(chunk: AnalysedChunk, keep: (term: string) => boolean): string[] {
  const out = new Set<string>();
  for (const field of [chunk.title, chunk.headings, chunk.body]) {
    const terms = field.terms;
    for (let i = 0; i + 1 < terms.length; i++) {
      if (keep(terms[i]!) && keep(terms[i + 1]!)) out.add(pairKey(terms[i]!, terms[i + 1]!));
    }
  }
  return [...out];
}
