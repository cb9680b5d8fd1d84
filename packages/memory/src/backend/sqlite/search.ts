import type { Language } from '@lectern/text';
import { phraseCap, unpackCounts, veryCommon } from '../../lib/champions.js';
import {
  clauseCeiling,
  clausesStillNeeded,
  type IndexStats,
  planQuery,
  type QueryPlan,
  queryClauses,
  type Ranked,
  Scorer,
  termsToLookUp,
} from '../../lib/rank.js';
import { MAX_RANKED_CHUNKS } from '../../limits.js';
import type { SearchMatch } from '../types.js';
import { RawQueryError } from '../types.js';
import {
  eachPlacedChunk,
  eachStoredPosting,
  postingsFrequency,
  readPostings,
  type StoredPostings,
} from './postings.js';
import { rawToFts } from './raw.js';
import type { Db } from './schema.js';
import { SQL } from './sql.js';

type Statement = ReturnType<Db['prepare']>;

/** What the ranking needs of every chunk, kept by the reader while the index is unchanged. */
export interface ChunkFacts {
  version: number;
  /** Slot of each chunk id (index = id), -1 for none. */
  slot: Int32Array;
  /** Chunk id of each slot. */
  id: Float64Array;
  file: Float64Array;
  lang: Uint8Array;
  lengths: Uint32Array;
  /** The languages chunks are in, by the code `lang` holds. */
  languages: Language[];
  /**
   * The languages a query is analysed in: those recorded by the reindexes since the last full
   * one (the `languages` meta row, as on every backend), sorted.
   */
  queryLanguages: Language[];
  stats: IndexStats;
  /**
   * Document frequencies and prefix expansions already looked up in this version of the index
   * (FTS5 keeps no document frequency: `fts5vocab` counts a term's documents by reading its
   * whole doclist, milliseconds for a term in tens of thousands of chunks). Emptied past
   * {@link LOOKUP_CACHE_ENTRIES}; a new version of the index starts a new one.
   */
  lookups: Map<string, number | Array<{ term: string; df: number }>>;
  /** The terms that have postings (`postings.ts`), read at the first search of the version. */
  postingTerms?: Set<string>;
}

/**
 * A clause held by more chunks than this is looked up only after checking, on the page so
 * far, whether it can still change the page (see `gather`); rarer ones are read at once.
 */
const PRUNE_CHECK_CHUNKS = 500;

/**
 * @internal Tests set `pruneCheckChunks` to 0 (check before every clause but the first) or
 * `Infinity` (never prune: every clause's chunks scored) and `runs` to false to compare the
 * pages, and read `pruned` (searches that scored some clause on the chunks already found only)
 * and `runsRead`.
 */
export const sqliteSearchTuning = {
  pruneCheckChunks: PRUNE_CHECK_CHUNKS,
  pruned: 0,
  /** Whether a prefix's small terms are read a run of index terms at a time. */
  runs: true,
  /** How many such runs were read. */
  runsRead: 0,
};

/** Most document frequencies and prefix expansions one index version remembers. */
const LOOKUP_CACHE_ENTRIES = 20_000;

const COLUMNS = ['title', 'heading_path', 'body'] as const;

/** Loads the facts of every chunk and the index totals (one pass over `chunks`). */
export function loadFacts(
  version: number,
  stmt: (sql: string) => Statement,
  meta: (key: string) => string | undefined,
): ChunkFacts {
  const rows = stmt(SQL.chunkFacts).raw(true).all() as Array<
    [number, number, string, number, number, number]
  >;
  const n = rows.length;
  let maxId = 0;
  for (const r of rows) if (r[0] > maxId) maxId = r[0];
  const slot = new Int32Array(maxId + 1).fill(-1);
  const ids = new Float64Array(n);
  const file = new Float64Array(n);
  const lang = new Uint8Array(n);
  const lengths = new Uint32Array(3 * n);
  const languages: Language[] = [];
  const codes = new Map<string, number>();
  const totals = { title: 0, headings: 0, body: 0 };
  rows.forEach(([id, f, l, t, h, b], i) => {
    slot[id] = i;
    ids[i] = id;
    file[i] = f;
    let code = codes.get(l);
    if (code === undefined) {
      code = languages.length;
      codes.set(l, code);
      languages.push(l as Language);
    }
    lang[i] = code;
    lengths[3 * i] = t;
    lengths[3 * i + 1] = h;
    lengths[3 * i + 2] = b;
    totals.title += t;
    totals.headings += h;
    totals.body += b;
  });
  const stored = meta('languages');
  const recorded = new Set<Language>(stored ? (JSON.parse(stored) as Language[]) : []);
  for (const l of languages) recorded.add(l);
  const queryLanguages = recorded.size > 0 ? [...recorded].sort() : (['simple'] as Language[]);
  return {
    version,
    slot,
    id: ids,
    file,
    lang,
    lengths,
    languages,
    queryLanguages,
    stats: { docs: n, totals },
    lookups: new Map(),
  };
}

/** A ranked page's ids and scores, and what to tell the user about it. */
export interface RankedPage {
  match: SearchMatch;
  expression: string;
  /** The best `need` chunks, best first. */
  rows: Ranked[];
  capped: boolean;
  /** Phrases found in more chunks than `championTuning.phraseCap`: the newest that many ranked. */
  cappedPhrases: string[];
  plan: QueryPlan | undefined;
}

/**
 * Ranks the chunks for a question: plan it (`lib/rank.ts`) with the vocabulary's document
 * frequencies, count each informative clause's occurrences per field in the chunks that hold
 * it (`fts5vocab` instances for words and prefixes; a column-filtered FTS5 phrase query for
 * phrases, once per field), and score them with the shared BM25F. `allowed` narrows to files.
 */
export function rankText(
  text: string,
  facts: ChunkFacts,
  stmt: (sql: string) => Statement,
  allowed: ((fileId: number) => boolean) | undefined,
  need: number,
): RankedPage {
  const languages = facts.queryLanguages;
  const clauses = queryClauses(text, languages);
  const { plan, df } = makePlan(clauses, languages, facts, stmt);
  const { scorer, capped } = gather(plan, df, facts, stmt, allowed, undefined, need);
  const rows = scorer.top(need);
  scorer.release();
  const top = rows[0];
  const match: SearchMatch =
    top === undefined || top.matched >= plan.clauses.length ? 'all' : 'any';
  return { match, expression: plan.expression, rows, capped: false, cappedPhrases: capped, plan };
}

/** The terms that have postings in this version of the index (read once per version). */
function postingTermsOf(facts: ChunkFacts, stmt: (sql: string) => Statement): Set<string> {
  facts.postingTerms ??= new Set(stmt(SQL.postingsTerms).pluck().all() as string[]);
  return facts.postingTerms;
}

/** Whether a chunk id is in the index (postings keep removed chunks' ids until rewritten). */
function isLive(facts: ChunkFacts, id: number): boolean {
  return id < facts.slot.length && facts.slot[id]! >= 0;
}

function makePlan(
  clauses: ReturnType<typeof queryClauses>,
  languages: readonly Language[],
  facts: ChunkFacts,
  stmt: (sql: string) => Statement,
): { plan: QueryPlan; df: ReadonlyMap<string, number> } {
  const { terms, prefixes } = termsToLookUp(clauses, languages);
  const dfStmt = stmt(SQL.documentFrequency).pluck();
  const range = stmt(SQL.termsInRange).raw(true);
  const cache = facts.lookups;
  if (cache.size > LOOKUP_CACHE_ENTRIES) cache.clear();
  const df = new Map<string, number>();
  for (const t of terms) {
    let d = cache.get(`=${t}`) as number | undefined;
    if (d === undefined) {
      // A common term's chunks are counted from its postings, far cheaper than `fts5vocab`.
      const postings = postingTermsOf(facts, stmt).has(t) ? readPostings(stmt, t) : undefined;
      d = postings
        ? postingsFrequency(postings, (id) => isLive(facts, id))
        : ((dfStmt.get(t) as number | undefined) ?? 0);
      cache.set(`=${t}`, d);
    }
    df.set(t, d);
  }
  const expansions = new Map<string, Array<{ term: string; df: number }>>();
  for (const p of prefixes) {
    let list = cache.get(`*${p}`) as Array<{ term: string; df: number }> | undefined;
    if (list === undefined) {
      const rows = range.all(p, `${p}\u{10ffff}`) as Array<[string, number]>;
      list = rows.map(([term, d]) => ({ term, df: d }));
      cache.set(`*${p}`, list);
    }
    expansions.set(p, list);
  }
  const plan = planQuery(clauses, languages, df, expansions, facts.stats);
  // Every term's document frequency, the prefixes' terms included.
  for (const list of expansions.values()) for (const e of list) df.set(e.term, e.df);
  return { plan, df };
}

/**
 * Scores the chunks holding the plan's clauses, a clause at a time, rarest first: the
 * occurrences of a word (or of each term a prefix stands for) come from its champion list
 * when the search reads lists, else its postings blob, else the `fts5vocab` instances grouped
 * by chunk; a phrase's presence in each field from column-filtered FTS5 phrase queries. Once
 * the page so far shows that the remaining clauses cannot lift a new chunk onto it (`need`
 * chunks), they are scored on the chunks already found only. `within`, when given, limits the
 * candidates to those chunk ids (a raw query's matches) and keeps every one of them, holding a
 * clause or not.
 */
function gather(
  plan: QueryPlan,
  df: ReadonlyMap<string, number>,
  facts: ChunkFacts,
  stmt: (sql: string) => Statement,
  allowed: ((fileId: number) => boolean) | undefined,
  within: ReadonlySet<number> | undefined,
  need: number,
): { scorer: Scorer; capped: string[] } {
  const capped: string[] = [];
  const scorer = new Scorer(plan, facts.stats, facts.id.length);
  const langCode = new Map<Language, number>(facts.languages.map((l, i) => [l, i]));
  const lengths = facts.lengths;
  const slotOf = (id: number): number => {
    const s = id < facts.slot.length ? facts.slot[id]! : -1;
    if (s < 0) return -1;
    if (within && !within.has(id)) return -1;
    if (allowed && !allowed(facts.file[s]!)) return -1;
    return s;
  };
  const places = stmt(SQL.places).pluck();
  // A term's champion list (`lib/champions.ts`) when it has one: then it counts there only.
  const listStmt = stmt(SQL.championList).raw(true);
  const lists = new Map<string, Array<[number, number]> | undefined>();
  const useLists = veryCommon(plan, facts.stats.docs, within !== undefined);
  const listOf = (term: string) => {
    if (!useLists(df.get(term) ?? 0)) return undefined;
    if (!lists.has(term)) {
      const rows = listStmt.all(term) as Array<[number, number]>;
      lists.set(term, rows.length > 0 ? rows : undefined);
    }
    return lists.get(term);
  };
  const postingTerms = postingTermsOf(facts, stmt);
  const hasPostings = (term: string) => postingTerms.has(term);
  type Visit = (slot: number, title: number, headings: number, body: number) => void;
  /** `visit` for the chunks by id that the search may return (in `lang` when given). */
  const bySlot =
    (visit: Visit, lang?: ReadonlySet<number>) =>
    (id: number, title: number, headings: number, body: number) => {
      const s = slotOf(id);
      if (s >= 0 && (!lang || lang.has(facts.lang[s]!))) visit(s, title, headings, body);
    };
  /** Visits a term's occurrences: its list's chunks with their counts, or every chunk's. */
  const eachChunk = (term: string, visit: Visit, lang?: ReadonlySet<number>) => {
    const inIndex = bySlot(visit, lang);
    const list = listOf(term);
    if (list) {
      for (const [id, packed] of list) {
        const [t, h, b] = unpackCounts(packed);
        inIndex(id, t, h, b);
      }
      return;
    }
    const postings: StoredPostings | undefined = hasPostings(term)
      ? readPostings(stmt, term)
      : undefined;
    if (postings) eachStoredPosting(postings, inIndex);
    else eachPlacedChunk(places.get(term) as string | null, inIndex);
  };
  /** Scores clause `i` on the chunks holding it (only on candidates already found when `only`). */
  const readClause = (i: number, only: boolean) => {
    const clause = plan.clauses[i]!;
    const add = (s: number, title: number, headings: number, body: number) => {
      if (only && !scorer.holds(s)) return;
      scorer.add(
        i,
        s,
        facts.id[s]!,
        facts.languages[facts.lang[s]!]!,
        lengths,
        title,
        headings,
        body,
        3 * s,
      );
    };
    if (clause.kind === 'prefix') {
      // The terms it stands for, summed per chunk before saturation (in any language).
      const sums = new Map<number, Float64Array>();
      const sum = (s: number, title: number, headings: number, body: number) => {
        if (only && !scorer.holds(s)) return;
        let a = sums.get(s);
        if (!a) {
          a = new Float64Array(3);
          sums.set(s, a);
        }
        a[0]! += title;
        a[1]! += headings;
        a[2]! += body;
      };
      // Terms with a list read or postings one by one; the others (each in few chunks, but
      // often dozens of them) in one FTS5 read per run of consecutive index terms, since
      // each read costs about 40 µs besides its occurrences.
      const small = new Set<string>();
      for (const t of clause.terms.values().next().value ?? []) {
        if (listOf(t) || hasPostings(t)) eachChunk(t, sum);
        else small.add(t);
      }
      const range = facts.lookups.get(`*${clause.surface[0]}`);
      if (sqliteSearchTuning.runs && Array.isArray(range) && small.size > 1) {
        const between = stmt(SQL.placesBetween).pluck();
        let first: string | undefined;
        let last = '';
        const flush = () => {
          if (first !== undefined) {
            eachPlacedChunk(between.get(first, last) as string | null, bySlot(sum));
            sqliteSearchTuning.runsRead++;
          }
          first = undefined;
        };
        for (const { term } of range) {
          if (small.delete(term)) {
            first ??= term;
            last = term;
          } else flush();
        }
        flush();
      }
      for (const t of small) eachChunk(t, sum);
      for (const [s, a] of sums) add(s, a[0]!, a[1]!, a[2]!);
      return;
    }
    // Which languages' chunks each distinct term (or phrase) answers for.
    const byTerms = new Map<string, Set<number>>();
    for (const [l, terms] of clause.terms) {
      const code = langCode.get(l);
      if (code === undefined) continue;
      const key = terms.join(' ');
      const set = byTerms.get(key) ?? new Set<number>();
      set.add(code);
      byTerms.set(key, set);
    }
    for (const [key, langs] of byTerms) {
      if (clause.kind === 'phrase') {
        const quoted = `"${key.replace(/"/g, '""')}"`;
        const flags = new Map<number, number>();
        // The chunks holding it that the search may return, newest first; at most the cap
        // when every word is very common (see `phraseCap`).
        const words = key.split(' ');
        const cap = phraseCap(words, df, facts.stats.docs, within !== undefined);
        // Each field's matches, newest first, merged: a chunk is counted once, whatever
        // fields hold the phrase, and FTS5 stops reading when the cap is reached.
        const streams = COLUMNS.map(
          (col, f) =>
            stmt(SQL.matchingIn[f]!)
              .pluck()
              .iterate(`{${col}} : ${quoted}`) as IterableIterator<number>,
        );
        const heads = streams.map((it) => it.next());
        let held = 0;
        try {
          for (;;) {
            let id = -1;
            for (const h of heads) if (!h.done && (h.value as number) > id) id = h.value as number;
            if (id < 0) break;
            const s = slotOf(id);
            const kept = s >= 0 && langs.has(facts.lang[s]!);
            if (kept && ++held > cap) {
              capped.push(clause.surface.join(' '));
              break;
            }
            heads.forEach((h, f) => {
              if (!h.done && h.value === id) {
                if (kept) flags.set(s, (flags.get(s) ?? 0) | (1 << f));
                heads[f] = streams[f]!.next();
              }
            });
          }
        } finally {
          for (const it of streams) it.return?.();
        }
        for (const [s, m] of flags) add(s, m & 1, (m >> 1) & 1, (m >> 2) & 1);
        continue;
      }
      eachChunk(key, add, langs);
    }
  };
  // Rarest clauses first (highest ceiling). Before a common clause, the page so far may show
  // that a chunk holding only it and weaker clauses cannot reach the page (exact max-score,
  // `clausesStillNeeded`): those clauses are then scored on the chunks already found only.
  // Sums do not depend on the order clauses are added in (`Scorer.add`).
  const order = plan.clauses
    .map((_, i) => i)
    .sort((a, b) => clauseCeiling(plan.clauses[b]!) - clauseCeiling(plan.clauses[a]!) || a - b);
  const prune = within === undefined && need > 0 && order.length > 1;
  let only = false;
  order.forEach((i, at) => {
    if (prune && !only && at > 0 && plan.clauses[i]!.df > sqliteSearchTuning.pruneCheckChunks) {
      const best = scorer.top(need);
      const threshold = best.length >= need ? best[need - 1]!.score : 0;
      only = !clausesStillNeeded(plan, order.slice(at), threshold).includes(i);
      if (only) sqliteSearchTuning.pruned++;
    }
    readClause(i, only);
  });
  if (within) {
    for (const id of within) {
      const s = slotOf(id);
      if (s >= 0) scorer.touch(s, id);
    }
  }
  return { scorer, capped };
}

/**
 * Ranks a raw FTS5 query: its words are analysed as the notes were (`raw.ts`), the matches
 * (at most {@link MAX_RANKED_CHUNKS}, the most recently indexed) are scored by BM25F over the
 * words it contains. Throws {@link RawQueryError} for an expression FTS5 refuses.
 */
export function rankRaw(
  text: string,
  facts: ChunkFacts,
  stmt: (sql: string) => Statement,
  allowed: ((fileId: number) => boolean) | undefined,
  need: number,
): RankedPage {
  const languages = facts.queryLanguages;
  const { expression, words } = rawToFts(text, languages);
  let ids: number[];
  try {
    ids = stmt(SQL.matching)
      .pluck()
      .all(expression, MAX_RANKED_CHUNKS + 1) as number[];
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_ERROR') {
      throw new RawQueryError((error as Error).message);
    }
    throw error;
  }
  const capped = ids.length > MAX_RANKED_CHUNKS;
  if (capped) ids = ids.slice(0, MAX_RANKED_CHUNKS);
  const clauses = queryClauses(words.join(' '), languages);
  const { plan, df } = makePlan(clauses, languages, facts, stmt);
  const { scorer } = gather(plan, df, facts, stmt, allowed, new Set(ids), need);
  const rows = scorer.top(need);
  scorer.release();
  return { match: 'raw', expression: text, rows, capped, cappedPhrases: [], plan };
}
