import { BM25, isStopWord, type Language, stem, words } from '@lectern/text';
import type { IndexedDoc } from './docs-index.js';
import { proseOf } from './prose.js';
import type { Hit, QueryTerm, Scored } from './rank.js';
import { topHits } from './scope.js';
import { type DocSearchData, withCamelParts } from './search.js';

/*
 * Term proximity for docs_search: a question's words found close together in a section ("add
 * elements to it" for "How do I add elements to a vector?") say more than the same words
 * scattered through it. The index keeps no positions, so the best hits by BM25F are read again
 * and re-ordered with a proximity score added: the term-pair proximity of Rasolofo and Savoy
 * (BM25TP, ECIR 2003), each pair of distinct query terms at most NEAR_TERMS terms apart (stop
 * words not counted) adding 1/d², saturated like a BM25 term and weighted by the pair's rarer
 * term's idf.
 */

/** Query terms at most this many terms apart (stop words not counted) are near each other. */
export const NEAR_TERMS = 5;

/**
 * Hits re-ordered by proximity: the best ones by BM25F, read back from their documents (a page
 * of ten and as many again to draw from; on the agent bench's dev questions 10, 20, 30 and 40
 * put the same sections first).
 */
export const PROXIMITY_DEPTH = 20;

/** Characters of a section's text read for proximity (a long section's start). */
const PROXIMITY_CHARS = 64 * 1024;

/** Stems kept per language between searches; past it the cache starts over. */
const STEM_CACHE_WORDS = 65_536;

const stemCaches = new Map<Language, Map<string, string>>();

/**
 * The stem of a folded word, from a bounded cache: the texts of the best hits are analysed
 * again on every search, and Snowball stemming is most of that cost.
 */
function cachedStem(word: string, language: Language): string {
  let cache = stemCaches.get(language);
  if (!cache) {
    cache = new Map();
    stemCaches.set(language, cache);
  }
  let out = cache.get(word);
  if (out === undefined) {
    if (cache.size >= STEM_CACHE_WORDS) cache.clear();
    out = stem(word, language);
    cache.set(word, out);
  }
  return out;
}

/** The terms of `text` as the index reads it (@lectern/text's `terms`, with cached stems). */
function termsOf(text: string, language: Language): string[] {
  const out: string[] = [];
  for (const w of words(withCamelParts(text.slice(0, PROXIMITY_CHARS)))) {
    if (!isStopWord(w, language)) out.push(cachedStem(w, language));
  }
  return out;
}

/** Weight of the proximity score against BM25F's. */
export const PROXIMITY_WEIGHT = 1;

/** Which query term (index into `queryTerms`) each analysed term of `text` is, or -1. */
function termIndexes(
  text: string,
  queryTerms: readonly QueryTerm[],
  language: Language,
): Int32Array {
  const seq = termsOf(text, language);
  const out = new Int32Array(seq.length).fill(-1);
  const words = new Map<string, number>();
  const prefixes: Array<[string, number]> = [];
  queryTerms.forEach((t, i) => {
    const key = t.stems[language];
    if (key === undefined) return;
    if (t.kind === 'prefix') prefixes.push([key, i]);
    else if (!words.has(key)) words.set(key, i);
  });
  seq.forEach((term, p) => {
    const w = words.get(term);
    if (w !== undefined) out[p] = w;
    else for (const [key, i] of prefixes) if (term.startsWith(key)) out[p] = i;
  });
  return out;
}

/**
 * The proximity score of a text (a section's heading and its own body, given apart so that no
 * pair spans them) for `queryTerms` weighted by `weights` (0: left out of the query): summed
 * over the pairs of distinct terms, min(weight) · (k1 + 1) · acc / (k1 · norm + acc), where acc
 * sums 1/d² over the pair's occurrences at most {@link NEAR_TERMS} apart and norm is BM25's
 * length normalisation against `avgLength`.
 */
export function proximityScore(
  texts: readonly string[],
  queryTerms: readonly QueryTerm[],
  weights: readonly number[],
  language: Language,
  avgLength: number,
): number {
  const n = queryTerms.length;
  if (weights.filter((w) => w > 0).length < 2) return 0;
  const acc = new Float64Array(n * n);
  let length = 0;
  for (const text of texts) {
    const seq = termIndexes(text, queryTerms, language);
    length += seq.length;
    for (let p = 0; p < seq.length; p++) {
      const a = seq[p]!;
      if (a === -1 || weights[a] === 0) continue;
      for (let q = p + 1; q < seq.length && q - p <= NEAR_TERMS; q++) {
        const b = seq[q]!;
        if (b === -1 || b === a || weights[b] === 0) continue;
        // Only words next to each other in the question: "add elements", "elements vector".
        if (Math.abs(a - b) !== 1) continue;
        const d = q - p;
        acc[Math.min(a, b) * n + Math.max(a, b)]! += 1 / (d * d);
      }
    }
  }
  const { k1, b } = BM25;
  const norm = avgLength > 0 ? 1 - b + (b * length) / avgLength : 1;
  let score = 0;
  for (let a = 0; a < n; a++) {
    for (let c = a + 1; c < n; c++) {
      const x = acc[a * n + c]!;
      if (x === 0) continue;
      score += (Math.min(weights[a]!, weights[c]!) * (k1 + 1) * x) / (k1 * norm + x);
    }
  }
  return score * PROXIMITY_WEIGHT;
}

/** A hit with the texts its proximity is read from. */
export interface HitTexts {
  heading: string;
  body: string;
  language: Language;
}

/**
 * Adds the proximity score to each of `top` (the best hits by BM25F, read back by `textsOf`)
 * and sorts them again, best first (ties by document and position). `top` is modified.
 */
export async function rerankByProximity(
  top: Hit[],
  queryTerms: readonly QueryTerm[],
  weights: readonly number[],
  avgLength: number,
  textsOf: (hit: Hit) => Promise<HitTexts>,
): Promise<Hit[]> {
  if (weights.filter((w) => w > 0).length < 2) return top;
  for (const hit of top) {
    const t = await textsOf(hit);
    hit.score += proximityScore([t.heading, t.body], queryTerms, weights, t.language, avgLength);
  }
  return top.sort((a, b) => b.score - a.score || a.doc - b.doc || a.unit - b.unit);
}

/**
 * The texts of hits as shown (markup left out), each section's body read from its document
 * once however often it is asked for (for its proximity, then its snippet).
 */
export function hitTexts(docs: readonly IndexedDoc[], datas: readonly DocSearchData[]) {
  const bodies = new Map<Hit, Promise<string>>();
  const bodyOf = (h: Hit): Promise<string> => {
    let body = bodies.get(h);
    if (!body) {
      const unit = datas[h.doc]!.units[h.unit]!;
      body = docs[h.doc]!.extract(unit.bodyFirst, unit.bodyLast).then((e) => proseOf(e.content));
      bodies.set(h, body);
    }
    return body;
  };
  const textsOf = async (h: Hit): Promise<HitTexts> => {
    const unit = datas[h.doc]!.units[h.unit]!;
    return {
      heading: unit.section === -1 ? '' : docs[h.doc]!.model.sections[unit.section]!.heading,
      body: await bodyOf(h),
      language: datas[h.doc]!.language,
    };
  };
  return { bodyOf, textsOf };
}

/**
 * The first `k` hits of a query in docs_search's order: by BM25F, the best
 * {@link PROXIMITY_DEPTH} of them re-ordered with their proximity (the same order whatever `k`,
 * so pages never overlap).
 */
export async function bestHits(
  scored: Scored,
  queryTerms: readonly QueryTerm[],
  k: number,
  textsOf: (hit: Hit) => Promise<HitTexts>,
): Promise<Hit[]> {
  const ordered = topHits(scored.hits, Math.max(PROXIMITY_DEPTH, k));
  const near = await rerankByProximity(
    ordered.slice(0, PROXIMITY_DEPTH),
    queryTerms,
    scored.weights,
    scored.avgLength,
    textsOf,
  );
  return [...near, ...ordered.slice(PROXIMITY_DEPTH)].slice(0, k);
}
