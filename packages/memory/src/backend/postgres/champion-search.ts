import { BM25 } from '@lectern/text';
import { type Averages, phraseCap, veryCommon } from '../../lib/champions.js';
import type { Language } from '../../lib/language.js';
import { phrasePairs } from '../../lib/pairs.js';
import type { IndexStats, PlannedClause, QueryPlan } from '../../lib/rank.js';
import type { Run } from './driver.js';
import { quoteLexeme } from './text.js';

/**
 * What one search reads of the champion lists (`lib/champions.ts`), and how it changes the
 * search, the same way on every backend:
 * - a term is listed iff its list holds a chunk; a search reads the lists only where
 *   `veryCommon` says (a query of one clause; terms in over 30% of chunks; never a raw query),
 *   and a complete list (PostgreSQL's, floor 0: every chunk holding the term) always, as it
 *   changes nothing of the ranking (its removed chunks' ids are not found by the look-up);
 * - a word or prefix term read from its list counts in the chunks of its list only, with the
 *   list's counts (never the counts of a chunk's vector), so its other chunks are never read;
 * - a phrase counts in the chunks holding it (in a language it is made for, among the chunks
 *   the search may return), and, when `phraseCap` caps it (every word in over 30% of chunks)
 *   and more chunks hold it, in the most recently indexed that many only (the highest chunk
 *   ids), which the answer reports; a phrase with a pair list (PostgreSQL's phrase pairs,
 *   `lib/pairs.ts`) is checked in its rarest pair's chunks only, which hold every chunk
 *   holding it.
 */
export class ChampionRows {
  /** The plan's terms that have a list. */
  readonly listed = new Set<string>();
  /** List chunks of each listed term. */
  private readonly byTerm = new Map<string, number[]>();
  /** Per chunk, its list rows: term and packed counts, alternating. */
  private readonly byChunk = new Map<number, Array<string | number>>();
  /**
   * Per capped phrase clause (plan index), per language: the chunks it counts in, each with the
   * fields it occurs in there (bits: 0 title, 1 heading path, 2 body).
   */
  private readonly phraseChunks = new Map<number, Map<Language, ReadonlyMap<number, number>>>();
  /**
   * The chunks of the capped phrases, as `phrases` read them: language and field lengths
   * (title, heading path, body), so a look-up that needs nothing else of them reads none.
   */
  readonly known = new Map<
    number,
    { lang: Language; title: number; headings: number; body: number }
  >();
  /** Phrases held by more chunks than the cap (as typed), once per capped variant. */
  readonly capped: string[] = [];

  /**
   * The lists of the plan's word terms that are read in full (not from their lists): each
   * list's floor and chunks, for max-score on the floors (see {@link outside}).
   */
  private readonly floors = new Map<string, { floor: number; ids: number[] }>();
  /** The field averages the lists were ordered with (undefined: no lists). */
  private averages: Averages | undefined;

  private constructor(private readonly plan: QueryPlan) {}
  private docs = 0;
  private raw = false;
  /** Document frequency of every term the search looked up. */
  private readonly df = new Map<string, number>();

  /** Whether a phrase variant (its terms) is capped: see `phraseCap`. */
  private capsPhrase(terms: readonly string[]): boolean {
    return Number.isFinite(phraseCap(terms, this.df, this.docs, this.raw));
  }

  /** Whether the index keeps phrase pairs (else {@link readPairs} reads nothing). */
  private hasPairs = false;

  /** The phrase pairs' lists read by {@link readPairs}: chunk ids as array text, and how many. */
  private readonly pairs = new Map<string, { ids: string; n: number }>();

  /**
   * Reads the lists of the phrase variants' adjacent pairs (`lib/pairs.ts`), one statement;
   * none for a raw query (its matches are read in full).
   */
  async readPairs(
    run: Run,
    /** The quoted schema. */
    s: string,
    variants: ReadonlyArray<{ terms: readonly string[] }>,
  ): Promise<void> {
    if (this.raw || !this.hasPairs) return;
    const keys = [...new Set(variants.flatMap((v) => phrasePairs(v.terms)))];
    if (keys.length === 0) return;
    const r = await run({
      text: `SELECT p.pair, a.ids::text AS ids, cardinality(a.ids) AS n FROM ${s}.phrase_pairs p,
        LATERAL (SELECT p.chunk_ids || coalesce((SELECT array_agg(x.chunk_id)
          FROM ${s}.phrase_pairs_added x WHERE x.pair = p.pair), '{}') AS ids) a
        WHERE p.pair = ANY($1::text[])`,
      values: [keys],
    });
    for (const row of r.rows as Array<{ pair: string; ids: string; n: number }>) {
      this.pairs.set(row.pair, { ids: row.ids, n: Number(row.n) });
    }
  }

  /** The smallest list of a phrase's adjacent pairs, if one has a list: a superset of its chunks. */
  private pairOf(terms: readonly string[]): { ids: string; n: number } | undefined {
    let rarest: { ids: string; n: number } | undefined;
    for (const key of phrasePairs(terms)) {
      const list = this.pairs.get(key);
      if (list && (!rarest || list.n < rarest.n)) rarest = list;
    }
    return rarest;
  }

  /** Whether {@link phrases} finds a phrase variant's chunks (capped, or with a pair list). */
  private knowsVariant(terms: readonly string[]): boolean {
    return this.capsPhrase(terms) || this.pairOf(terms) !== undefined;
  }

  /** The phrase variants {@link phrases} finds the chunks of (after {@link readPairs}). */
  cappedVariants<V extends { clause: number; terms: readonly string[] }>(
    variants: readonly V[],
  ): V[] {
    return variants.filter((v) => this.knowsVariant(v.terms));
  }

  /**
   * The lists of the plan's word and prefix terms, from the rows of `termStats` (which carry
   * each term's list, when it has one).
   */
  static of(
    plan: QueryPlan,
    rows: ReadonlyArray<{
      term: string;
      df: number;
      ids: ReadonlyArray<string | number> | null;
      counts: ReadonlyArray<string | number> | null;
      floor?: number | string | null;
    }>,
    docs: number,
    raw: boolean,
    /** The `champion_averages` meta value (JSON; empty or null when there are no lists). */
    averages?: string | null,
    /** Whether the index keeps phrase pairs (the `phrase_pairs` meta value is above 0). */
    pairs = false,
  ): ChampionRows {
    const out = new ChampionRows(plan);
    out.hasPairs = pairs;
    out.docs = docs;
    out.raw = raw;
    if (averages) out.averages = JSON.parse(averages) as Averages;
    for (const row of rows) out.df.set(row.term, Number(row.df));
    const read = veryCommon(plan, docs, raw);
    const terms = new Set<string>();
    for (const c of plan.clauses) {
      if (c.kind === 'phrase') continue;
      for (const list of c.terms.values()) for (const t of list) terms.add(t);
    }
    for (const row of rows) {
      if (!row.ids || row.ids.length === 0 || !terms.has(row.term)) continue;
      const floor = row.floor === null || row.floor === undefined ? undefined : Number(row.floor);
      // A complete list (floor 0) holds every chunk with the term: reading it is always exact.
      if (floor !== 0 && !read(Number(row.df))) {
        if (floor !== undefined && !out.floors.has(row.term)) {
          out.floors.set(row.term, { floor, ids: row.ids.map(Number) });
        }
        continue;
      }
      if (out.listed.has(row.term)) continue;
      out.listed.add(row.term);
      const chunks = row.ids.map(Number);
      out.byTerm.set(row.term, chunks);
      chunks.forEach((id, k) => {
        let entries = out.byChunk.get(id);
        if (!entries) {
          entries = [];
          out.byChunk.set(id, entries);
        }
        entries.push(row.term, Number(row.counts![k]));
      });
    }
    return out;
  }

  /**
   * Finds the chunks each phrase counts in: per variant (the languages sharing its terms), the
   * newest `phraseCap` + 1 chunks holding it that the search may return (every one when it is
   * not capped; only among its rarest pair's chunks when it has a pair list: see
   * {@link readPairs}) (`where`: conditions on
   * `c` with parameters from `values.length + 1` on), in one statement, each with the fields
   * the phrase occurs in (`fields`: the variant's per-field `tsquery`, title, heading path and
   * body), its language and its field lengths: what a look-up would read of it again.
   */
  async phrases(
    run: Run,
    /** The quoted schema. */
    s: string,
    variants: ReadonlyArray<{
      clause: number;
      langs: Language[];
      terms: readonly string[];
      fields: readonly [string, string, string];
    }>,
    where: string[],
    values: unknown[],
  ): Promise<void> {
    if (variants.length === 0) return;
    const all = [...values];
    const param = (v: unknown) => `$${all.push(v)}`;
    const caps = variants.map((v) => phraseCap(v.terms, this.df, this.docs, this.raw));
    const parts = variants.map(({ langs, terms, fields }, k) => {
      const cap = caps[k]!;
      const conditions = [
        // Seen by the planner: a phrase many chunks hold is best read newest first until the
        // cap (an init plan hiding it made the bench's capped phrases slower: p95 49 -> 79 ms).
        `c.terms @@ ${param(terms.map(quoteLexeme).join(' <-> '))}::tsquery`,
        `c.lang = ANY(${param(langs)}::text[])`,
        ...where,
      ];
      // Only chunks of its rarest pair can hold it (a superset: the check above decides).
      const rarest = this.pairOf(terms);
      if (rarest) conditions.push(`c.id = ANY(${param(rarest.ids)}::bigint[])`);
      const limit = Number.isFinite(cap) ? ` LIMIT ${param(cap + 1)}` : '';
      // The fields, checked on the chunks holding the phrase only (a look-up checked them again).
      const bits = fields
        .map((q, f) => `((c.terms @@ ${param(q)}::tsquery)::int << ${f})`)
        .join(' | ');
      return `(SELECT ${k} AS k, c.id, c.lang, c.title_len, c.headings_len, c.body_len, ${bits} AS bits
        FROM ${s}.chunks c WHERE ${conditions.join(' AND ')} ORDER BY c.id DESC${limit})`;
    });
    const r = await run({ text: parts.join(' UNION ALL '), values: all });
    const found = new Map<number, Array<[number, number]>>();
    for (const row of r.rows as Array<{
      k: number;
      id: string;
      lang: string;
      title_len: number;
      headings_len: number;
      body_len: number;
      bits: number;
    }>) {
      const k = Number(row.k);
      let list = found.get(k);
      if (!list) {
        list = [];
        found.set(k, list);
      }
      // Newest first: past the cap, a row is only the sign that the phrase was capped.
      if (list.length >= caps[k]!) {
        list.push([0, 0]);
        continue;
      }
      const id = Number(row.id);
      list.push([id, Number(row.bits)]);
      this.known.set(id, {
        lang: row.lang as Language,
        title: row.title_len,
        headings: row.headings_len,
        body: row.body_len,
      });
    }
    variants.forEach(({ clause, langs }, k) => {
      const rows = found.get(k) ?? [];
      const cap = caps[k]!;
      if (rows.length > cap) {
        rows.length = cap;
        this.capped.push(this.plan.clauses[clause]!.surface.join(' '));
      }
      const map = new Map(rows);
      let byLang = this.phraseChunks.get(clause);
      if (!byLang) {
        byLang = new Map();
        this.phraseChunks.set(clause, byLang);
      }
      for (const l of langs) byLang.set(l, map);
    });
  }

  /** Whether a phrase clause's fields in chunks of a language are known (see {@link phrases}). */
  knowsPhrase(clause: number, lang: Language): boolean {
    return this.phraseChunks.get(clause)?.has(lang) ?? false;
  }

  /**
   * Max-score on a list's floor (exact): a word clause whose terms are read in full, each with
   * a list, adds at most `bound` to a chunk outside its terms' lists (`ids`). Every chunk
   * holding a listed term outside its list weighs at most the list's floor (`tf′` with the
   * averages the list was ordered with: a full build keeps the best, an incremental one admits
   * a chunk weighing at least the floor); with today's averages, a field's `tf′` grows at most
   * by today's average over that one (a longer chunk nears that ratio, an empty field keeps
   * 1), or by 1 / (1 − b) where the field's average was 0. Undefined for other clauses, and
   * when a term in some chunk has no list or the index no stored averages.
   */
  outside(i: number, stats: IndexStats): { bound: number; ids: number[] } | undefined {
    const c = this.plan.clauses[i]!;
    const old = this.averages;
    if (c.kind !== 'word' || !old) return undefined;
    const n = Math.max(1, stats.docs);
    const now = [stats.totals.title / n, stats.totals.headings / n, stats.totals.body / n];
    let grow = 1;
    for (let f = 0; f < 3; f++) {
      const before = old[f]!;
      const after = now[f]!;
      if (before > 0 && after > 0) grow = Math.max(grow, after / before);
      else if (after > 0) grow = Math.max(grow, 1 / (1 - BM25.b));
    }
    const { k1 } = BM25;
    let bound = 0;
    const ids = new Set<number>();
    for (const [lang, list] of c.terms) {
      const term = list[0]!;
      if ((this.df.get(term) ?? 0) === 0) continue;
      const listed = this.floors.get(term);
      if (!listed) return undefined;
      const x = listed.floor * grow;
      const w = c.idf.get(lang) ?? 0;
      bound = Math.max(bound, (w * x * (k1 + 1)) / (x + k1));
      for (const id of listed.ids) ids.add(id);
    }
    return { bound, ids: [...ids] };
  }

  /** Whether a clause needs no look-up besides the lists' (none of its chunks is elsewhere). */
  handles(i: number): boolean {
    return this.query(this.plan.clauses[i]!).length === 0;
  }

  /**
   * The `tsquery` alternatives that find a clause's chunks outside the lists: a word's unlisted
   * stems; a phrase's variants not made of listed words only, its words in order; a prefix as
   * a prefix operand (`'zelt':*`) when none of its terms is listed (PostgreSQL estimates that
   * well and checks it in one search of a vector; bench: 16 ms against 1.9 s for 'prin*' as 64
   * ORed terms), else its unlisted terms ORed (chunks holding only terms past the 64 are
   * fetched by the former and score 0).
   */
  query(c: PlannedClause): string[] {
    const out = new Set<string>();
    if (c.kind === 'prefix') {
      const all = new Set<string>();
      for (const list of c.terms.values()) for (const t of list) all.add(t);
      if (all.size === 0) return [];
      if (![...all].some((t) => this.listed.has(t))) return [`${quoteLexeme(c.surface[0]!)}:*`];
      for (const t of all) if (!this.listed.has(t)) out.add(quoteLexeme(t));
      return [...out];
    }
    // A capped phrase's chunks are known (`phrases`): they are looked up with the lists'.
    if (c.kind === 'phrase') {
      for (const list of c.terms.values()) {
        if (!this.knowsVariant(list)) out.add(`(${list.map(quoteLexeme).join(' <-> ')})`);
      }
      return [...out];
    }
    for (const list of c.terms.values())
      for (const t of list) if (!this.listed.has(t)) out.add(quoteLexeme(t));
    return [...out];
  }

  /**
   * The chunks the lists (and the phrases' chunks) give these clauses: looked up with the
   * clauses' `query`, they are every chunk the clauses count in.
   */
  seed(clauses: readonly number[]): number[] {
    const ids = new Set<number>();
    for (const i of clauses) {
      const c = this.plan.clauses[i]!;
      if (c.kind === 'phrase') {
        for (const map of this.phraseChunks.get(i)?.values() ?? [])
          for (const id of map.keys()) ids.add(id);
        continue;
      }
      for (const list of c.terms.values()) {
        for (const t of list) for (const id of this.byTerm.get(t) ?? []) ids.add(id);
      }
    }
    return [...ids];
  }

  /** About how many chunks looking a clause up reads (for the first look-up's budget). */
  cost(i: number): number {
    return this.handles(i) ? this.seed([i]).length : this.plan.clauses[i]!.df;
  }

  /** A chunk's list rows: term and packed counts, alternating (undefined: in no list). */
  rowsOf(id: number): ReadonlyArray<string | number> | undefined {
    return this.byChunk.get(id);
  }

  /**
   * A phrase clause's fields in a chunk (bits: 0 title, 1 heading path, 2 body): those
   * {@link phrases} found when it capped the clause in the chunk's language (none when the
   * phrase does not count there), else `fields` (what the look-up checked).
   */
  phraseFields(clause: number, lang: Language, id: number, fields: number): number {
    const kept = this.phraseChunks.get(clause)?.get(lang);
    return kept ? (kept.get(id) ?? 0) : fields;
  }
}
