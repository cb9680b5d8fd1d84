import {
  analyzeQuery,
  BM25,
  bm25f,
  FIELD_WEIGHTS,
  FIELDS,
  type Field,
  idf,
  type Language,
  type QueryClause,
} from '@lectern/text';

/**
 * The one ranking of memory search, shared by every backend. A backend keeps the statistics
 * (document frequency per term, each chunk's field lengths, the totals) and finds the chunks
 * holding a query's terms with its own index; everything that decides the order — which words
 * of a question count, their weights, the score — is here, so every backend gives the same
 * scores by construction.
 *
 * Score: BM25F (`@lectern/text`'s `bm25f`, k1 = 0.9, b = 0.4) over the fields title, headings
 * and body, summed over the query's informative clauses. A chunk holding some of the clauses
 * is ranked with what it holds: no "all words or nothing".
 */

/** A clause whose document frequency is above this share of all chunks is very common. */
export const COMMON_SHARE = 0.3;

/** Longest word indexed, in characters: longer runs (encoded data, not words) are left out. */
export const MAX_TERM_CHARS = 200;

/** Most indexed terms one `prefix*` stands for (the most frequent ones). */
export const MAX_PREFIX_TERMS = 64;

/** Field order of the counts backends report: title, headings, body. */
export const FIELD_ORDER: readonly Field[] = FIELDS;

/** What a backend keeps about the whole index. */
export interface IndexStats {
  /** Chunks in the index. */
  docs: number;
  /** Sum of each field's length (terms, stop words left out) over every chunk. */
  totals: Readonly<Record<Field, number>>;
}

/** The words of a query as clauses, stemmed in every language the index holds. */
export function queryClauses(text: string, languages: readonly Language[]): QueryClause[] {
  const clauses = analyzeQuery(text, { languages: languages.length > 0 ? languages : ['simple'] });
  // A word folded to nothing (a lone combining mark) or too long to be indexed matches nothing.
  const out: QueryClause[] = [];
  for (const c of clauses) {
    const words = c.words.filter((w) => w.surface !== '' && w.surface.length <= MAX_TERM_CHARS);
    if (words.length === c.words.length) out.push(c);
    else if (words.length > 0)
      out.push({
        ...c,
        kind: words.length > 1 ? c.kind : c.kind === 'phrase' ? 'word' : c.kind,
        words,
      });
  }
  return out;
}

/** The index terms whose document frequency a plan needs, and the prefixes to expand. */
export function termsToLookUp(
  clauses: readonly QueryClause[],
  languages: readonly Language[],
): { terms: string[]; prefixes: string[] } {
  const terms = new Set<string>();
  const prefixes = new Set<string>();
  for (const c of clauses) {
    if (c.kind === 'prefix') {
      prefixes.add(c.words[0]!.surface);
      continue;
    }
    for (const w of c.words) for (const l of languages) terms.add(stemOf(w.stems, w.surface, l));
  }
  return { terms: [...terms], prefixes: [...prefixes] };
}

function stemOf(stems: QueryClause['words'][number]['stems'], surface: string, l: Language) {
  return stems[l] ?? surface;
}

/** One clause of a plan, made concrete for each language of the index. */
export interface PlannedClause {
  kind: QueryClause['kind'];
  /** The folded words as typed. */
  surface: string[];
  /**
   * Index terms per document language: the word's stem (`word`), the phrase's stems in order
   * (`phrase`), or the indexed terms the prefix stands for, in any language (`prefix`).
   */
  terms: ReadonlyMap<Language, readonly string[]>;
  /** BM25 inverse document frequency per document language. */
  idf: ReadonlyMap<Language, number>;
  /** Largest document frequency over the languages (how common the clause is). */
  df: number;
}

/** A question reduced to what is ranked. */
export interface QueryPlan {
  clauses: PlannedClause[];
  /** Clauses left out: stop words, and very common words next to rarer ones. */
  dropped: string[];
  /** What ran, for `fts_query`: the informative clauses as quoted index terms. */
  expression: string;
}

/**
 * Reduces a question to its informative clauses and weighs them:
 * - stop words (of any language of the index) are left out when another word is left;
 * - a word found in more than {@link COMMON_SHARE} of all chunks is left out when a rarer word
 *   that occurs somewhere is left (its IDF is small; keeping it would only make the engine
 *   score most of the index); when every word is that common, the rarest one is kept;
 * - phrases and prefixes are always kept; a phrase's IDF is the sum of its words' (as Lucene),
 *   stop words left out of the sum when it has other words; a prefix is weighed as the most
 *   frequent of the terms it stands for (as Lucene's synonym queries).
 * `df` gives each index term's document frequency (0 when absent), `expansions` each prefix's
 * indexed terms with their frequencies.
 */
export function planQuery(
  clauses: readonly QueryClause[],
  languages: readonly Language[],
  df: ReadonlyMap<string, number>,
  expansions: ReadonlyMap<string, ReadonlyArray<{ term: string; df: number }>>,
  stats: IndexStats,
): QueryPlan {
  const langs = languages.length > 0 ? languages : (['simple'] as const);
  const N = stats.docs;
  const freq = (t: string) => df.get(t) ?? 0;
  const planned: Array<PlannedClause & { stop: boolean; label: string }> = [];
  const seen = new Set<string>();
  for (const c of clauses) {
    const surface = c.words.map((w) => w.surface);
    const terms = new Map<Language, string[]>();
    const weights = new Map<Language, number>();
    let most = 0;
    if (c.kind === 'prefix') {
      const list = [...(expansions.get(surface[0]!) ?? [])]
        .sort((a, b) => b.df - a.df || (a.term < b.term ? -1 : 1))
        .slice(0, MAX_PREFIX_TERMS);
      most = list.reduce((m, e) => Math.max(m, e.df), 0);
      for (const l of langs) {
        terms.set(
          l,
          list.map((e) => e.term),
        );
        weights.set(l, idf(N, most));
      }
    } else {
      const allStop = c.words.every((w) => w.stop);
      for (const l of langs) {
        const stems = c.words.map((w) => stemOf(w.stems, w.surface, l));
        terms.set(l, stems);
        let sum = 0;
        stems.forEach((s, i) => {
          if (!c.words[i]!.stop || allStop) sum += idf(N, freq(s));
        });
        weights.set(l, sum);
        const f = c.kind === 'word' ? freq(stems[0]!) : Math.min(...stems.map((s) => freq(s)));
        most = Math.max(most, f);
      }
    }
    const label = clauseLabel(c.kind, terms, surface);
    if (seen.has(label)) continue;
    seen.add(label);
    planned.push({
      kind: c.kind,
      surface,
      terms,
      idf: weights,
      df: most,
      stop: c.kind === 'word' && c.words[0]!.stop,
      label,
    });
  }
  const dropped: string[] = [];
  let kept = planned;
  if (kept.some((c) => !c.stop)) {
    for (const c of kept) if (c.stop) dropped.push(c.surface.join(' '));
    kept = kept.filter((c) => !c.stop);
  }
  const common = (c: (typeof kept)[number]) => c.kind === 'word' && c.df > COMMON_SHARE * N;
  let keep: (c: (typeof kept)[number]) => boolean = () => true;
  if (kept.some((c) => !common(c) && c.df > 0)) {
    keep = (c) => !common(c);
  } else if (kept.filter(common).length > 1) {
    // Every word is very common: the rarest one stands for them (the others' IDF is smaller
    // still, and scoring them would mean scoring most of the index several times).
    const rarest = kept.filter(common).reduce((a, b) => (b.df < a.df ? b : a));
    keep = (c) => !common(c) || c === rarest;
  }
  for (const c of kept) if (!keep(c)) dropped.push(c.surface.join(' '));
  kept = kept.filter(keep);
  return {
    clauses: kept.map(({ stop: _s, label: _l, ...c }) => c),
    dropped,
    expression: kept.map((c) => c.label).join(' OR '),
  };
}

function quote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** A clause as shown in `fts_query`: its index terms, quoted; `(a OR b)` when languages differ. */
function clauseLabel(
  kind: QueryClause['kind'],
  terms: ReadonlyMap<Language, readonly string[]>,
  surface: readonly string[],
): string {
  if (kind === 'prefix') return `${quote(surface[0]!)}*`;
  const variants = [...new Set([...terms.values()].map((t) => quote(t.join(' '))))];
  return variants.length === 1 ? variants[0]! : `(${variants.join(' OR ')})`;
}

/**
 * The most one clause can add to a chunk's score: BM25F saturates below idf · (k1 + 1), so no
 * chunk, however often it holds the clause, gets more (the largest idf over the languages).
 */
export function clauseCeiling(clause: PlannedClause): number {
  let most = 0;
  for (const w of clause.idf.values()) most = Math.max(most, w);
  return most * (BM25.k1 + 1);
}

/**
 * Max-score pruning (Turtle and Flood, 1995), the exact kind: `threshold` is the `need`-th best
 * score among chunks already scored in full, and `pending` the clauses whose chunks have not
 * been looked up yet. A chunk found by none of the looked-up clauses holds only pending ones,
 * so its score is at most the sum of their ceilings: the weakest pending clauses whose
 * ceilings sum below the threshold cannot lift such a chunk onto the page, and their chunks
 * need not be looked up (the candidates already found are scored on every clause anyway).
 * Returns the pending clauses that must still be looked up. The sum is compared with a margin
 * far above rounding error, so a chunk that could tie is always looked up.
 */
export function clausesStillNeeded(
  plan: QueryPlan,
  pending: readonly number[],
  threshold: number,
): number[] {
  const weakest = [...pending].sort(
    (a, b) => clauseCeiling(plan.clauses[a]!) - clauseCeiling(plan.clauses[b]!) || b - a,
  );
  let sum = 0;
  let skip = 0;
  for (const i of weakest) {
    const next = sum + clauseCeiling(plan.clauses[i]!);
    if (!(next * (1 + 1e-9) < threshold)) break;
    sum = next;
    skip++;
  }
  const skipped = new Set(weakest.slice(0, skip));
  return pending.filter((i) => !skipped.has(i));
}

/** Scores are kept in multiples of 1 / GRID, so sums are exact (below 2²¹, far above any). */
const GRID = 2 ** 32;

/** A scored chunk. */
export interface Ranked {
  id: number;
  score: number;
  /** How many of the plan's clauses it holds. */
  matched: number;
}

/**
 * Scores a plan term at a time: a backend hands each chunk's per-field counts of one clause
 * (title, headings, body; a phrase counts once per field it occurs in) with the chunk's
 * language and field lengths, clause after clause in the plan's order, and {@link top} sorts.
 * Chunks are known by a dense `slot` (0 … size − 1) the backend chooses, and by their id.
 */
export class Scorer {
  private readonly scores: Float64Array;
  private readonly matched: Uint16Array;
  private readonly seen: Uint8Array;
  private readonly touched: number[] = [];
  private readonly ids: Float64Array;
  private readonly avg: Record<Field, number>;
  private readonly fields: Partial<Record<Field, number>> = {};
  private readonly lengths: Partial<Record<Field, number>> = {};

  /** Arrays a {@link release}d scorer left, cleared, for the next one of the same size. */
  private static spare:
    | { scores: Float64Array; matched: Uint16Array; seen: Uint8Array; ids: Float64Array }
    | undefined;

  constructor(
    private readonly plan: QueryPlan,
    stats: IndexStats,
    size: number,
  ) {
    const spare = Scorer.spare;
    if (spare && spare.scores.length === size) {
      Scorer.spare = undefined;
      this.scores = spare.scores;
      this.matched = spare.matched;
      this.seen = spare.seen;
      this.ids = spare.ids;
    } else {
      this.scores = new Float64Array(size);
      this.matched = new Uint16Array(size);
      this.seen = new Uint8Array(size);
      this.ids = new Float64Array(size);
    }
    const N = Math.max(1, stats.docs);
    this.avg = {
      title: stats.totals.title / N,
      headings: stats.totals.headings / N,
      body: stats.totals.body / N,
    };
  }

  /** Makes a chunk a candidate without a match (a raw query's match holding none of the words). */
  touch(slot: number, id: number): void {
    if (this.seen[slot] === 0) {
      this.seen[slot] = 1;
      this.ids[slot] = id;
      this.touched.push(slot);
    }
  }

  /** Whether a chunk is a candidate already (it holds a clause scored so far). */
  holds(slot: number): boolean {
    return this.seen[slot] === 1;
  }

  /**
   * Adds one clause's BM25F score for one chunk; its title, headings and body lengths are
   * `lengths[at]`, `lengths[at + 1]` and `lengths[at + 2]`. The score is rounded to a multiple
   * of 2⁻³² (a change below 10⁻⁹), so that a chunk's sum is exact, and the same, in whatever
   * order its clauses are added: a backend may look clauses up rarest first (see
   * {@link clausesStillNeeded}) and still give every other backend's scores to the last bit.
   */
  add(
    clause: number,
    slot: number,
    id: number,
    lang: Language,
    lengths: ArrayLike<number>,
    title: number,
    headings: number,
    body: number,
    at = 0,
  ): void {
    if (title + headings + body === 0) return;
    this.touch(slot, id);
    this.fields.title = title;
    this.fields.headings = headings;
    this.fields.body = body;
    this.lengths.title = lengths[at];
    this.lengths.headings = lengths[at + 1];
    this.lengths.body = lengths[at + 2];
    const w = this.plan.clauses[clause]!.idf.get(lang) ?? 0;
    const score = bm25f(this.fields, this.lengths, this.avg, w, BM25, FIELD_WEIGHTS);
    this.scores[slot] = this.scores[slot]! + Math.round(score * GRID) / GRID;
    this.matched[slot]! += 1;
  }

  /**
   * The candidates, best first (ties: lower chunk id first); at most `limit` of them, chosen
   * with a bounded heap so a query with many candidates sorts only a page's worth.
   */
  top(limit = Number.POSITIVE_INFINITY): Ranked[] {
    const better = (a: number, b: number) =>
      this.scores[a]! > this.scores[b]! ||
      (this.scores[a] === this.scores[b] && this.ids[a]! < this.ids[b]!);
    let chosen: number[];
    if (limit >= this.touched.length) {
      chosen = [...this.touched];
    } else {
      // A min-heap (by `better`) of the best `limit` slots seen so far.
      const heap: number[] = [];
      const down = (i: number) => {
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < heap.length && better(heap[m]!, heap[l]!)) m = l;
          if (r < heap.length && better(heap[m]!, heap[r]!)) m = r;
          if (m === i) return;
          [heap[i], heap[m]] = [heap[m]!, heap[i]!];
          i = m;
        }
      };
      for (const slot of this.touched) {
        if (heap.length < limit) {
          heap.push(slot);
          for (let i = heap.length - 1; i > 0; ) {
            const p = (i - 1) >> 1;
            if (!better(heap[p]!, heap[i]!)) break;
            [heap[i], heap[p]] = [heap[p]!, heap[i]!];
            i = p;
          }
        } else if (limit > 0 && better(slot, heap[0]!)) {
          heap[0] = slot;
          down(0);
        }
      }
      chosen = heap;
    }
    chosen.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
    return chosen.map((s) => ({
      id: this.ids[s]!,
      score: this.scores[s]!,
      matched: this.matched[s]!,
    }));
  }

  /**
   * Clears the candidates' entries and keeps the arrays for the next scorer of the same size (a
   * search over every chunk of a large index would otherwise allocate megabytes each time). The
   * scorer must not be used after.
   */
  release(): void {
    for (const s of this.touched) {
      this.scores[s] = 0;
      this.matched[s] = 0;
      this.seen[s] = 0;
    }
    this.touched.length = 0;
    Scorer.spare = {
      scores: this.scores,
      matched: this.matched,
      seen: this.seen,
      ids: this.ids,
    };
  }

  /** How many chunks are candidates. */
  get size(): number {
    return this.touched.length;
  }
}

/** Stop-word-free length of a field's terms: what BM25 normalises by. */
export type FieldLengths = [number, number, number];

/**
 * Counts of a phrase's occurrences in one field, from the positions of each of its terms in
 * that field (`positions[i]` sorted ascending, for the phrase's i-th term).
 */
export function phraseCount(positions: ReadonlyArray<readonly number[]>): number {
  if (positions.length === 0 || positions.some((p) => p.length === 0)) return 0;
  const rest = positions.slice(1).map((p) => new Set(p));
  let n = 0;
  for (const start of positions[0]!) {
    if (rest.every((set, i) => set.has(start + i + 1))) n++;
  }
  return n;
}
