import { BM25, FIELD_WEIGHTS } from '@lectern/text';
import { MAX_RANKED_CHUNKS } from '../limits.js';
import type { AnalysedChunk } from './analysis.js';
import { COMMON_SHARE, type QueryPlan } from './rank.js';

/**
 * Champion lists (Manning, Raghavan and Schütze, *Introduction to Information Retrieval*,
 * §7.1.3): for every term found in more than {@link CHAMPION_MIN_DF} chunks, the index keeps
 * the {@link CHAMPION_SIZE} chunks where it weighs most, with its counts there. What weighs
 * most is BM25F's pseudo-frequency (`tf′`, before saturation) with the field lengths the index
 * had when the lists were built: the chunks with the highest `tf′` are exactly the ones the
 * term alone puts first. Every backend keeps the same lists, so they rank alike.
 *
 * A search reads a list instead of every chunk holding the term only where that keeps the
 * ranking ({@link veryCommon}): for a query of one clause, and for a term in more than 30% of
 * chunks (scored only when every word of a question is that common). A term of a question
 * with other informative words is read in full. On Cranfield with the thresholds scaled to its
 * size, reading every listed term's list alone cost nDCG@10 0.367 → 0.268: lists are a way to
 * answer one common term fast, not a ranking of their own.
 *
 * The lists are built in a full reindex (and an index's first build) from every chunk
 * ({@link ChampionBuilder}); an incremental reindex removes the lists' rows of the chunks it
 * removes and admits a new chunk to a list when it weighs at least as much as the list's last
 * chunk did ({@link admits}). A term that becomes that common between full reindexes has no
 * list and is read in full.
 *
 * A phrase has no list: its chunks are found by the index's positions, and one whose words
 * are all in more than 30% of chunks and that more than `championTuning.phraseCap` chunks
 * hold ({@link phraseCap}) is ranked among the most recently indexed that many, as a raw
 * query is, and the answer says so.
 */

/** A term found in more than this many chunks gets a champion list. */
export const CHAMPION_MIN_DF = 1000;

/** Chunks a champion list keeps. */
export const CHAMPION_SIZE = 400;

/**
 * @internal The thresholds every builder and search reads (tests set small ones so a small
 * index has listed terms; restore them after).
 */
export const championTuning = {
  minDf: CHAMPION_MIN_DF,
  size: CHAMPION_SIZE,
  /** Most chunks holding one phrase that are ranked for it: the most recently indexed. */
  phraseCap: MAX_RANKED_CHUNKS,
};

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
  /**
   * Terms in more chunks than this and not more than `minDf` get a complete list: every chunk
   * holding them, in chunk order, with floor 0 (so an incremental reindex admits every new
   * chunk holding the term). Default: none. PostgreSQL keeps them (see its `champions.ts`).
   */
  complete?: number;
  /**
   * Keep each chunk's terms in order (fields apart) for {@link ChampionBuilder.sequences}:
   * PostgreSQL's phrase pairs are made from them. Default: off.
   */
  sequences?: boolean;
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
  return (
    (W0 * title) / fieldNorm(lengths[0]!, averages[0]) +
    (W1 * headings) / fieldNorm(lengths[1]!, averages[1]) +
    (W2 * body) / fieldNorm(lengths[2]!, averages[2])
  );
}

/** BM25's length normalisation of a field of `len` words against an average of `avg`. */
function fieldNorm(len: number, avg: number): number {
  const { b } = BM25;
  return avg > 0 ? 1 - b + (b * len) / avg : 1;
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

/**
 * The lists a new chunk joins in an incremental reindex: for each of its terms that has a list
 * (`floors`: the lists' floors by term) and in which it weighs at least the floor, `visit` gets
 * the term and its packed counts (`packCounts`). `counts`: the chunk's `termCounts` when the
 * caller has them already.
 */
export function eachAdmission(
  chunk: AnalysedChunk,
  floors: ReadonlyMap<string, number>,
  averages: Averages,
  visit: (term: string, packed: number) => void,
  counts?: ReadonlyMap<string, readonly [number, number, number]>,
): void {
  if (floors.size === 0) return;
  const lengths = chunkLengths(chunk);
  for (const [term, c] of counts ?? termCounts(chunk)) {
    const floor = floors.get(term);
    if (floor !== undefined && admits(floor, c, lengths, averages)) {
      visit(term, packCounts(c[0], c[1], c[2]));
    }
  }
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

/** A growable column of integers (the builder's per-term columns). */
class Column<T extends Int32Array | Uint16Array> {
  data: T;
  constructor(private readonly make: new (n: number) => T) {
    this.data = new make(1 << 16);
  }
  ensure(n: number): void {
    if (n <= this.data.length) return;
    let size = this.data.length;
    while (size < n) size *= 2;
    const next = new this.make(size);
    next.set(this.data);
    this.data = next;
  }
}

/** Entries per block of the builder's entry columns (a power of two). */
const BLOCK_BITS = 16;
const BLOCK = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK - 1;

/**
 * Builds the champion lists of a full reindex from every chunk it writes, in the order they
 * are written: {@link add} each chunk with its id, then {@link finish}. Postings go to flat
 * columns (term number, chunk order, three counts); when those hold more than
 * {@link ChampionBuilder.compactAt} entries, every term with more than four times the list size
 * is cut to its best four times the list size (by the averages so far, which move little by
 * then), so memory stays bounded. The final lists are the best by the final averages (ties:
 * the chunk written first).
 *
 * A chunk's words are counted in a small scratch area (one look-up of the word's number and
 * one of its entry per occurrence), then its entries are appended to the columns, which are
 * kept in blocks of {@link BLOCK} entries: they grow without copying what they hold (on the
 * bench's notes, copying and first touching doubled columns cost as much as the counting).
 */
export class ChampionBuilder {
  /** Entries held before a compaction. */
  static compactAt = 1 << 22;
  private readonly minDf: number;
  private readonly size: number;
  private readonly complete: number;
  private readonly numbers = new Map<string, number>();
  private terms: string[] = [];
  /**
   * Per term number: document frequency, and its entry of the chunk being added (or of an
   * earlier chunk, or -1: any entry before the chunk's first is an earlier chunk's).
   */
  private df = new Column(Int32Array);
  private lastEntry = new Column(Int32Array);
  /**
   * The entries, in blocks: term number, chunk order, and three counts (title, headings, body)
   * each. Entry `i` is at `i & BLOCK_MASK` of block `i >>> BLOCK_BITS`.
   */
  private n = 0;
  private readonly term: Int32Array[] = [];
  private readonly seq: Int32Array[] = [];
  private readonly counts: Uint16Array[] = [];
  /** The chunk being added: its entries' term numbers and counts, from the chunk's first. */
  private scratchTerm = new Int32Array(1024);
  private scratchCounts = new Uint16Array(3 * 1024);
  /** Chunk id and lengths by the order chunks were added in. */
  private readonly ids: number[] = [];
  private readonly lengths: number[] = [];
  private readonly totals = [0, 0, 0];
  private nextCompaction = ChampionBuilder.compactAt;
  /** With `sequences`: each chunk's term numbers in order, -1 after each field. */
  private readonly seqs: Int32Array[] | undefined;
  private seqScratch = new Int32Array(1024);
  private seqN = 0;

  constructor(options: ChampionOptions = {}) {
    this.minDf = options.minDf ?? championTuning.minDf;
    this.size = options.size ?? championTuning.size;
    this.complete = Math.min(options.complete ?? Number.POSITIVE_INFINITY, this.minDf);
    if (options.sequences) this.seqs = [];
  }

  /**
   * With the `sequences` option: every chunk added (ids, in the order added) with its terms'
   * numbers in order (-1 after each field), and the terms and document frequencies by number.
   */
  sequences(): {
    ids: readonly number[];
    seqs: readonly Int32Array[];
    terms: readonly string[];
    df: Int32Array;
  } {
    if (!this.seqs) throw new Error('this builder keeps no sequences');
    return { ids: this.ids, seqs: this.seqs, ...this.frequencies() };
  }

  /** Adds one written chunk. */
  add(id: number, chunk: AnalysedChunk): void {
    const seq = this.ids.length;
    this.ids.push(id);
    const { title, headings, body } = chunk;
    this.lengths.push(title.length, headings.length, body.length);
    this.totals[0]! += title.length;
    this.totals[1]! += headings.length;
    this.totals[2]! += body.length;
    const words = title.terms.length + headings.terms.length + body.terms.length;
    if (words > this.scratchTerm.length) {
      const size = 2 ** Math.ceil(Math.log2(words));
      this.scratchTerm = new Int32Array(size);
      this.scratchCounts = new Uint16Array(3 * size);
    }
    if (this.seqs && words + 3 > this.seqScratch.length) {
      this.seqScratch = new Int32Array(2 ** Math.ceil(Math.log2(words + 3)));
    }
    this.seqN = 0;
    let distinct = this.field(title.terms, 0, 0);
    distinct = this.field(headings.terms, 1, distinct);
    distinct = this.field(body.terms, 2, distinct);
    this.seqs?.push(this.seqScratch.slice(0, this.seqN));
    this.append(distinct, seq);
    if (this.n > this.nextCompaction) {
      // A term that may still get a complete list (at most `minDf` chunks) keeps every entry.
      const keep = Number.isFinite(this.complete)
        ? Math.max(4 * this.size, this.minDf)
        : 4 * this.size;
      this.compact(keep, this.averages());
      // What is left is mostly rare terms' entries: wait until the columns double again.
      this.nextCompaction = Math.max(ChampionBuilder.compactAt, 2 * this.n);
    }
  }

  /**
   * Counts the words of one field (`f`: 0 title, 1 headings, 2 body) of the chunk being added
   * in the scratch area, which holds `distinct` entries so far; returns how many it holds after.
   * The chunk's entries will be numbered from `this.n` on.
   */
  private field(words: readonly string[], f: number, distinct: number): number {
    const numbers = this.numbers;
    const first = this.n;
    const scratchTerm = this.scratchTerm;
    const counts = this.scratchCounts;
    let last = this.lastEntry.data;
    let df = this.df.data;
    let d = distinct;
    const seq = this.seqs ? this.seqScratch : undefined;
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      let t = numbers.get(word);
      if (t === undefined) {
        t = this.newTerm(word);
        last = this.lastEntry.data;
        df = this.df.data;
      }
      if (seq) seq[this.seqN++] = t;
      let j = last[t]! - first;
      if (j < 0) {
        j = d++;
        last[t] = first + j;
        scratchTerm[j] = t;
        counts[3 * j] = 0;
        counts[3 * j + 1] = 0;
        counts[3 * j + 2] = 0;
        df[t]!++;
      }
      const c = 3 * j + f;
      if (counts[c]! < COUNT_MAX) counts[c]!++;
    }
    if (seq) seq[this.seqN++] = -1;
    return d;
  }

  /** Appends the chunk's `distinct` entries from the scratch area to the columns. */
  private append(distinct: number, seq: number): void {
    const scratchTerm = this.scratchTerm;
    const scratchCounts = this.scratchCounts;
    for (let j = 0; j < distinct; j++) {
      const i = this.n++;
      const b = i >>> BLOCK_BITS;
      if (b === this.term.length) {
        this.term.push(new Int32Array(BLOCK));
        this.seq.push(new Int32Array(BLOCK));
        this.counts.push(new Uint16Array(3 * BLOCK));
      }
      const o = i & BLOCK_MASK;
      this.term[b]![o] = scratchTerm[j]!;
      this.seq[b]![o] = seq;
      const counts = this.counts[b]!;
      counts[3 * o] = scratchCounts[3 * j]!;
      counts[3 * o + 1] = scratchCounts[3 * j + 1]!;
      counts[3 * o + 2] = scratchCounts[3 * j + 2]!;
    }
  }

  /** Numbers a term seen for the first time. */
  private newTerm(word: string): number {
    const t = this.terms.length;
    this.terms.push(word);
    this.numbers.set(word, t);
    this.df.ensure(t + 1);
    this.lastEntry.ensure(t + 1);
    this.df.data[t] = 0;
    this.lastEntry.data[t] = -1;
    return t;
  }

  private averages(): Averages {
    const n = Math.max(1, this.ids.length);
    return [this.totals[0]! / n, this.totals[1]! / n, this.totals[2]! / n];
  }

  /** Entry `i`'s chunk order. */
  private seqOf(i: number): number {
    return this.seq[i >>> BLOCK_BITS]![i & BLOCK_MASK]!;
  }

  /** Entry `i`'s count in field `f`. */
  private countOf(i: number, f: number): number {
    return this.counts[i >>> BLOCK_BITS]![3 * (i & BLOCK_MASK) + f]!;
  }

  /** Each chunk's three field norms (`fieldNorm`) by these averages, by chunk order. */
  private norms(averages: Averages): Float64Array {
    const lengths = this.lengths;
    const out = new Float64Array(lengths.length);
    for (let k = 0; k < lengths.length; k += 3) {
      out[k] = fieldNorm(lengths[k]!, averages[0]);
      out[k + 1] = fieldNorm(lengths[k + 1]!, averages[1]);
      out[k + 2] = fieldNorm(lengths[k + 2]!, averages[2]);
    }
    return out;
  }

  /**
   * Entry `i`'s pseudo-frequency with the chunks' `norms`: the very arithmetic of
   * {@link pseudoFrequency}, so a list's floor is what `admits` computes for the same chunk.
   */
  private weigh(i: number, norms: Float64Array): number {
    const b = i >>> BLOCK_BITS;
    const o = i & BLOCK_MASK;
    const s = 3 * this.seq[b]![o]!;
    const c = this.counts[b]!;
    return (
      (W0 * c[3 * o]!) / norms[s]! +
      (W1 * c[3 * o + 1]!) / norms[s + 1]! +
      (W2 * c[3 * o + 2]!) / norms[s + 2]!
    );
  }

  /**
   * The entries of each term `wanted` says (given the term and how many entries it has), in
   * the order they were added (a counting sort by term); other terms' ranges are empty.
   */
  private byTerm(wanted: (t: number, entries: number) => boolean): {
    start: Int32Array;
    order: Int32Array;
  } {
    const terms = this.terms.length;
    const count = new Int32Array(terms);
    for (let i = 0; i < this.n; i++) count[this.term[i >>> BLOCK_BITS]![i & BLOCK_MASK]!]!++;
    const start = new Int32Array(terms + 1);
    for (let t = 0; t < terms; t++) {
      start[t + 1] = start[t]! + (wanted(t, count[t]!) ? count[t]! : 0);
    }
    const fill = start.slice(0, terms);
    const order = new Int32Array(start[terms]!);
    for (let i = 0; i < this.n; i++) {
      const t = this.term[i >>> BLOCK_BITS]![i & BLOCK_MASK]!;
      if (fill[t]! < start[t + 1]!) order[fill[t]!++] = i;
    }
    return { start, order };
  }

  /**
   * Of a term's entries (`entries`, in the order added), the best `keep` (ties: the earlier
   * chunk), in the order added, or best first with `sorted`.
   */
  private best(entries: Int32Array, keep: number, norms: Float64Array, sorted: boolean): number[] {
    const weight = new Float64Array(entries.length);
    for (let k = 0; k < entries.length; k++) weight[k] = this.weigh(entries[k]!, norms);
    let chosen: number[] = [];
    if (entries.length <= keep) {
      for (let k = 0; k < entries.length; k++) chosen.push(k);
    } else {
      const threshold = kthLargest(weight.slice(), keep);
      let ties = keep;
      for (let k = 0; k < entries.length; k++) if (weight[k]! > threshold) ties--;
      for (let k = 0; k < entries.length; k++) {
        const w = weight[k]!;
        if (w > threshold || (w === threshold && ties-- > 0)) chosen.push(k);
      }
    }
    if (sorted) {
      chosen.sort(
        (a, b) => weight[b]! - weight[a]! || this.seqOf(entries[a]!) - this.seqOf(entries[b]!),
      );
    }
    chosen = chosen.map((k) => entries[k]!);
    return chosen;
  }

  /** Cuts every term with more than `keep` entries to its best `keep`. */
  private compact(keep: number, averages: Averages): void {
    const { start, order } = this.byTerm((_, entries) => entries > keep);
    const norms = this.norms(averages);
    const dropped = new Uint8Array(this.n);
    for (let t = 0; t < this.terms.length; t++) {
      if (start[t + 1] === start[t]) continue;
      const entries = order.subarray(start[t]!, start[t + 1]!);
      for (const i of entries) dropped[i] = 1;
      for (const i of this.best(entries, keep, norms, false)) dropped[i] = 0;
    }
    let to = 0;
    for (let from = 0; from < this.n; from++) {
      if (dropped[from] === 1) continue;
      if (to !== from) {
        const fb = from >>> BLOCK_BITS;
        const fo = from & BLOCK_MASK;
        const tb = to >>> BLOCK_BITS;
        const to_ = to & BLOCK_MASK;
        this.term[tb]![to_] = this.term[fb]![fo]!;
        this.seq[tb]![to_] = this.seq[fb]![fo]!;
        const fc = this.counts[fb]!;
        const tc = this.counts[tb]!;
        tc[3 * to_] = fc[3 * fo]!;
        tc[3 * to_ + 1] = fc[3 * fo + 1]!;
        tc[3 * to_ + 2] = fc[3 * fo + 2]!;
      }
      to++;
    }
    this.n = to;
    // No chunk is being added: the entries moved, and none is the next chunk's. The blocks
    // past the last entry are kept for the entries to come.
    this.lastEntry.data.fill(-1);
  }

  /**
   * Every term of the chunks added and the number of them it is in (its document frequency,
   * exact whatever was compacted), in the order the terms were first seen. A PostgreSQL rebuild
   * stores them as `term_df` once instead of counting them batch by batch on the server.
   */
  frequencies(): { terms: readonly string[]; df: Int32Array } {
    return { terms: this.terms, df: this.df.data.subarray(0, this.terms.length) };
  }

  /**
   * The lists of the terms found in more than `minDf` chunks, and the complete lists of those
   * in more than `complete` (floor 0, in chunk order), with the final averages.
   */
  finish(): ChampionLists {
    const averages = this.averages();
    const df = this.df.data;
    const lower = Math.min(this.minDf, this.complete);
    const { start, order } = this.byTerm((t) => df[t]! > lower);
    const norms = this.norms(averages);
    const lists: ChampionList[] = [];
    for (let t = 0; t < this.terms.length; t++) {
      if (df[t]! <= lower) continue;
      const all = order.subarray(start[t]!, start[t + 1]!);
      if (df[t]! <= this.minDf) {
        // Never compacted (it holds fewer entries than a compaction keeps): every chunk.
        lists.push({
          term: this.terms[t]!,
          floor: 0,
          entries: Array.from(all, (i) => ({
            chunk: this.ids[this.seqOf(i)]!,
            title: this.countOf(i, 0),
            headings: this.countOf(i, 1),
            body: this.countOf(i, 2),
          })),
        });
        continue;
      }
      const chosen = this.best(all, this.size, norms, true);
      const entries: ChampionEntry[] = chosen.map((i) => ({
        chunk: this.ids[this.seqOf(i)]!,
        title: this.countOf(i, 0),
        headings: this.countOf(i, 1),
        body: this.countOf(i, 2),
      }));
      lists.push({
        term: this.terms[t]!,
        floor: this.weigh(chosen[chosen.length - 1]!, norms),
        entries,
      });
    }
    lists.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    this.n = 0;
    this.term.length = 0;
    this.seq.length = 0;
    this.counts.length = 0;
    return { averages, lists };
  }
}

/** The `k`-th largest value of `a` (1-based; `a` is reordered): Hoare's selection. */
function kthLargest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target]!;
}

/**
 * When a search reads a term's champion list instead of every chunk holding it: for a query of
 * one clause (a word or a prefix: the list holds the chunks that term puts first), and for a
 * term in more than `COMMON_SHARE` of all chunks (scored only when every word of a question is
 * that common: see `planQuery`). Otherwise a term is read in full, so a question's ranking is
 * exact; a raw query's matches are always read in full. Returns the test on a term's document
 * frequency.
 */
export function veryCommon(
  plan: QueryPlan,
  docs: number,
  raw: boolean,
): (documentFrequency: number) => boolean {
  if (raw) return () => false;
  if (plan.clauses.length === 1) return () => true;
  return (df) => df > COMMON_SHARE * docs;
}

/**
 * The most chunks holding a phrase that are ranked for it: `championTuning.phraseCap` when every
 * word of it is in more than `COMMON_SHARE` of all chunks (the most recently indexed that many),
 * else every one (`Infinity`); a raw query's matches are always read in full.
 */
export function phraseCap(
  words: readonly string[],
  df: ReadonlyMap<string, number>,
  docs: number,
  raw: boolean,
): number {
  if (raw) return Number.POSITIVE_INFINITY;
  return words.every((w) => (df.get(w) ?? 0) > COMMON_SHARE * docs)
    ? championTuning.phraseCap
    : Number.POSITIVE_INFINITY;
}
