import { BM25, FIELD_WEIGHTS } from '@lectern/text';
import type { AnalysedChunk } from './analysis.js';

/**
 * Champion lists (Manning, Raghavan and Schütze, *Introduction to Information Retrieval*,
 * §7.1.3): for every term found in more than {@link CHAMPION_MIN_DF} chunks, the index keeps
 * the {@link CHAMPION_SIZE} chunks where it weighs most, with its counts there, and a search
 * scores such a term on its list only. A very common term then costs a few hundred rows
 * instead of tens of thousands on every backend, and every backend keeps the same lists, so
 * they rank alike. What weighs most is BM25F's pseudo-frequency (`tf′`, before saturation)
 * with the field lengths the index had when the lists were built: the chunks with the highest
 * `tf′` are exactly the ones the term alone would put first.
 *
 * The lists are built in a full reindex from every chunk ({@link ChampionBuilder}); an
 * incremental reindex removes the lists' rows of the chunks it removes and admits a new chunk
 * to a list when it weighs at least as much as the list's last chunk did ({@link admits}). A
 * term that becomes that common between full reindexes has no list and is read in full.
 */

/** A term found in more than this many chunks gets a champion list. */
export const CHAMPION_MIN_DF = 1000;

/** Chunks a champion list keeps. */
export const CHAMPION_SIZE = 400;

/**
 * @internal The thresholds every builder and search reads (tests set small ones so a small
 * index has listed terms; restore them after).
 */
export const championTuning = { minDf: CHAMPION_MIN_DF, size: CHAMPION_SIZE };

/** Field lengths a list's order was computed with: average title, headings and body length. */
export type Averages = readonly [number, number, number];

/** One chunk of a champion list: the term's occurrences in its title, headings and body. */
export interface ChampionEntry {
  chunk: number;
  title: number;
  headings: number;
  body: number;
}

/** A term's champion list, best first (ties: lower chunk id first). */
export interface ChampionList {
  term: string;
  /** The `tf′` of the list's last chunk: a new chunk below it is not admitted. */
  floor: number;
  entries: ChampionEntry[];
}

/** What a full reindex stores: the lists and the averages their order was computed with. */
export interface ChampionLists {
  averages: Averages;
  lists: ChampionList[];
}

/** Tuning of a {@link ChampionBuilder} (tests build lists on small indexes). */
export interface ChampionOptions {
  /** Terms in more chunks than this get a list; default `championTuning.minDf`. */
  minDf?: number;
  /** Chunks per list; default `championTuning.size`. */
  size?: number;
}

const W0 = FIELD_WEIGHTS.title;
const W1 = FIELD_WEIGHTS.headings;
const W2 = FIELD_WEIGHTS.body;

/**
 * BM25F's pseudo-frequency of a term in a chunk (see `@lectern/text`'s `bm25f`): each field's
 * count normalised by its length against the average, weighted, summed.
 */
export function pseudoFrequency(
  title: number,
  headings: number,
  body: number,
  lengths: ArrayLike<number>,
  averages: Averages,
): number {
  const { b } = BM25;
  const norm = (len: number, avg: number) => (avg > 0 ? 1 - b + (b * len) / avg : 1);
  return (
    (W0 * title) / norm(lengths[0]!, averages[0]) +
    (W1 * headings) / norm(lengths[1]!, averages[1]) +
    (W2 * body) / norm(lengths[2]!, averages[2])
  );
}

/** Whether a new chunk with these counts of a listed term joins its list (see {@link ChampionList.floor}). */
export function admits(
  floor: number,
  counts: readonly [number, number, number],
  lengths: ArrayLike<number>,
  averages: Averages,
): boolean {
  return pseudoFrequency(counts[0], counts[1], counts[2], lengths, averages) >= floor;
}

/** Each distinct term of a chunk with its counts in the title, headings and body. */
export function termCounts(chunk: AnalysedChunk): Map<string, [number, number, number]> {
  const out = new Map<string, [number, number, number]>();
  const fields = [chunk.title.terms, chunk.headings.terms, chunk.body.terms];
  for (let f = 0; f < 3; f++) {
    for (const t of fields[f]!) {
      let c = out.get(t);
      if (!c) {
        c = [0, 0, 0];
        out.set(t, c);
      }
      c[f]!++;
    }
  }
  return out;
}

/** Chunk lengths a chunk's analysis gives (stop words left out, as the ranking counts). */
export function chunkLengths(chunk: AnalysedChunk): [number, number, number] {
  return [chunk.title.length, chunk.headings.length, chunk.body.length];
}

/** A term's postings while a full reindex runs (parallel arrays; trimmed as they grow). */
class Postings {
  df = 0;
  seq: number[] = [];
  counts: number[] = [];
}

const COUNT_MAX = 0xffff;

/** A list entry's three counts as one integer (each at most 65,535), as the stores keep it. */
export function packCounts(title: number, headings: number, body: number): number {
  return (
    Math.min(title, COUNT_MAX) * 2 ** 32 +
    Math.min(headings, COUNT_MAX) * 2 ** 16 +
    Math.min(body, COUNT_MAX)
  );
}

/** The three counts of {@link packCounts}. */
export function unpackCounts(packed: number): [number, number, number] {
  return [Math.floor(packed / 2 ** 32), Math.floor(packed / 2 ** 16) % 2 ** 16, packed % 2 ** 16];
}

const pack = packCounts;
const unpack = unpackCounts;

/**
 * The word whose list stands for a phrase made only of listed words: the one in fewest chunks
 * (ties: the first in code-unit order). Every backend looks for such a phrase in the title and
 * headings of every chunk and in the body of this word's list's chunks only.
 */
export function phraseListTerm(terms: readonly string[], df: (term: string) => number): string {
  let best = terms[0]!;
  for (const t of terms) {
    const d = df(t);
    const b = df(best);
    if (d < b || (d === b && t < best)) best = t;
  }
  return best;
}

/**
 * Builds the champion lists of a full reindex from every chunk it writes, in the order they
 * are written: {@link add} each chunk with its id, then {@link finish}. Memory stays bounded:
 * a term's postings are cut to its best {@link ChampionOptions.size} (by the averages so far)
 * whenever they reach four times that, and the final order uses the final averages.
 */
export class ChampionBuilder {
  private readonly minDf: number;
  private readonly size: number;
  private readonly postings = new Map<string, Postings>();
  /** Chunk id and lengths by the order chunks were added in. */
  private readonly ids: number[] = [];
  private readonly lengths: number[] = [];
  private readonly totals = [0, 0, 0];

  constructor(options: ChampionOptions = {}) {
    this.minDf = options.minDf ?? championTuning.minDf;
    this.size = options.size ?? championTuning.size;
  }

  /** Adds one written chunk. */
  add(id: number, chunk: AnalysedChunk): void {
    const seq = this.ids.length;
    this.ids.push(id);
    const l = chunkLengths(chunk);
    this.lengths.push(l[0], l[1], l[2]);
    this.totals[0]! += l[0];
    this.totals[1]! += l[1];
    this.totals[2]! += l[2];
    for (const [term, c] of termCounts(chunk)) {
      let p = this.postings.get(term);
      if (!p) {
        p = new Postings();
        this.postings.set(term, p);
      }
      p.df++;
      p.seq.push(seq);
      p.counts.push(pack(c[0], c[1], c[2]));
      if (p.seq.length >= 4 * this.size) this.trim(p, this.averages());
    }
  }

  private averages(): Averages {
    const n = Math.max(1, this.ids.length);
    return [this.totals[0]! / n, this.totals[1]! / n, this.totals[2]! / n];
  }

  private readonly scratch = [0, 0, 0];

  private weigh(seq: number, t: number, h: number, b: number, averages: Averages): number {
    const l = this.scratch;
    l[0] = this.lengths[3 * seq]!;
    l[1] = this.lengths[3 * seq + 1]!;
    l[2] = this.lengths[3 * seq + 2]!;
    return pseudoFrequency(t, h, b, l, averages);
  }

  /** Keeps a term's best `size` postings (ties: the earlier chunk). */
  private trim(p: Postings, averages: Averages): void {
    const order = p.seq.map((_, i) => i);
    const weight = p.seq.map((s, i) => {
      const [t, h, b] = unpack(p.counts[i]!);
      return this.weigh(s, t, h, b, averages);
    });
    order.sort((a, b) => weight[b]! - weight[a]! || p.seq[a]! - p.seq[b]!);
    const keep = order.slice(0, this.size);
    const seq = keep.map((i) => p.seq[i]!);
    const counts = keep.map((i) => p.counts[i]!);
    p.seq = seq;
    p.counts = counts;
  }

  /** The lists of the terms found in more than `minDf` chunks, with the final averages. */
  finish(): ChampionLists {
    const averages = this.averages();
    const lists: ChampionList[] = [];
    for (const [term, p] of this.postings) {
      if (p.df <= this.minDf) continue;
      this.trim(p, averages);
      const entries = p.seq.map((s, i) => {
        const [title, headings, body] = unpack(p.counts[i]!);
        return { chunk: this.ids[s]!, title, headings, body };
      });
      const last = p.seq.length - 1;
      const [t, h, b] = unpack(p.counts[last]!);
      const ls = p.seq[last]!;
      const floor = this.weigh(ls, t, h, b, averages);
      lists.push({ term, floor, entries });
    }
    lists.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    this.postings.clear();
    return { averages, lists };
  }
}
