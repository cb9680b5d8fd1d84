import type { QueryClause } from '@lectern/text';
import type * as Pg from 'pg';
import type { Language } from '../../lib/language.js';
import {
  clauseCeiling,
  clausesStillNeeded,
  type IndexStats,
  type PlannedClause,
  planQuery,
  type QueryPlan,
  queryClauses,
  Scorer,
  termsToLookUp,
} from '../../lib/rank.js';
import { MAX_RANKED_CHUNKS } from '../../limits.js';
import { hitFromRow } from '../hit.js';
import {
  RawQueryError,
  type SearchHit,
  type SearchMatch,
  type SearchPage,
  type SearchRequest,
} from '../types.js';
import { Candidates } from './candidates.js';
import { ChampionRows } from './champion-search.js';
import type { Run } from './driver.js';
import { rawToTsquery } from './raw.js';
import type { Names } from './schema.js';
import type { Statements } from './sql.js';
import { quoteLexeme } from './text.js';

/** A reindex committed while a search outside a transaction ran: run it again in a snapshot. */
export class IndexMoved extends Error {
  constructor() {
    super('the index changed during the search');
  }
}

export type { Run } from './driver.js';

/**
 * Most chunks the first look-up of a search may expect (by the document frequencies of the
 * clauses it takes, rarest first): enough for the rare words of a question to settle the page
 * alone in the common case, few enough that a search never reads a common word's chunks
 * before it knows it must.
 */
const FIRST_LOOKUP_CHUNKS = 1000;

/**
 * @internal Tests set a small first look-up on a small index to see the pruning at work (and
 * `Infinity` to read every clause's chunks at once, as a search without pruning would), and
 * `split` to read every candidate as a chunk of another shape would be read (see `fetch`).
 */
export const searchTuning = { firstLookupChunks: FIRST_LOOKUP_CHUNKS, split: false };

/** The totals' row of `rankingStats`. */
interface StatsRow {
  docs: string;
  title: string;
  headings: string;
  body: string;
  languages: string | null;
  generation: string | null;
  /** The averages the champion lists were ordered with (JSON), when there are lists. */
  averages: string | null;
  /** How many phrase pairs the last rebuild kept (null before the first). */
  pairs: string | null;
}

/**
 * A row of `termStats`: a term's document frequency (for a prefix, one of its terms), and its
 * champion list when it has one (chunk ids and packed counts).
 */
interface TermRow {
  prefix: string | null;
  term: string;
  df: number;
  ids: Array<string | number> | null;
  counts: Array<string | number> | null;
  floor: number | null;
}

/**
 * The word terms whose champion lists a search may read (`termStats`' $3): a stop word's are
 * not, as `planQuery` leaves stop words out when the question has another clause (a phrase
 * has no list; a prefix's terms come with theirs).
 */
function listTerms(clauses: readonly QueryClause[], languages: readonly Language[]): string[] {
  const words = clauses.filter((c) => c.kind === 'word');
  const kept = clauses.some((c) => c.kind !== 'word' || !c.words[0]!.stop)
    ? words.filter((c) => !c.words[0]!.stop)
    : words;
  return termsToLookUp(kept, languages).terms;
}

/** The languages a search stems in, from the `languages` meta value. */
function languagesOf(stored: string | null): Language[] {
  const list = stored ? (JSON.parse(stored) as Language[]) : [];
  return list.length > 0 ? [...list].sort() : ['simple'];
}

/**
 * The PostgreSQL backend's search: the same ranking as every backend (`lib/rank.ts`), fed from
 * what this schema keeps: document frequencies in `term_df`, the totals in `stats`, and each
 * candidate chunk's positions of the query's terms (its `terms` vector, found through the GIN
 * index, unnested to those terms only).
 */
export class PgSearch {
  constructor(
    private readonly n: Names,
    private readonly sql: Statements,
    /** Origin (machine and folder) of each configured source, as two parallel arrays for SQL. */
    private readonly originSources: readonly string[],
    private readonly originValues: readonly string[],
  ) {}

  /** The `languages` meta value the last search read (undefined before the first). */
  private storedLanguages: string | null | undefined;

  async search(run: Run, request: SearchRequest): Promise<SearchPage> {
    const { s } = this.n;
    let files: number[] | undefined;
    if (request.pathFilter || request.source !== undefined) {
      const rows = (
        request.source === undefined
          ? await run({ text: this.sql.filesForFilter })
          : await run({ text: this.sql.filesForFilterOfSource, values: [request.source] })
      ).rows as Array<{ id: string; source: string; path: string }>;
      const keep = request.pathFilter;
      files = rows.filter((r) => !keep || keep(r.source, r.path)).map((r) => Number(r.id));
    }
    // The languages decide the terms to look up: with those of the last search, the totals and
    // the terms' frequencies come in one round trip; kept only when the languages are the same.
    const speculate = request.query.kind !== 'raw' && this.storedLanguages !== undefined;
    let st:
      | (StatsRow & {
          terms?: Array<
            [string | null, string, number, number[] | null, number[] | null, number | null]
          >;
        })
      | undefined;
    let guessed: { clauses: QueryClause[]; found: TermRow[] } | undefined;
    if (speculate) {
      const stored = this.storedLanguages ?? null;
      const clauses = queryClauses(request.query.text, languagesOf(stored));
      const look = termsToLookUp(clauses, languagesOf(stored));
      st = (
        await run({
          text: this.sql.rankingAndTermStats,
          values: [look.terms, look.prefixes, listTerms(clauses, languagesOf(stored))],
        })
      ).rows[0] as typeof st;
      if (st?.terms && (st.languages ?? null) === stored) {
        const found = st.terms.map(([prefix, term, df, ids, counts, floor]) => ({
          prefix,
          term,
          df,
          ids,
          counts,
          floor,
        }));
        guessed = { clauses, found };
      }
    } else {
      st = (await run({ text: this.sql.rankingStats })).rows[0] as StatsRow | undefined;
    }
    if (st) this.storedLanguages = st.languages ?? null;
    const stats: IndexStats = {
      docs: Number(st?.docs ?? 0),
      totals: {
        title: Number(st?.title ?? 0),
        headings: Number(st?.headings ?? 0),
        body: Number(st?.body ?? 0),
      },
    };
    const languages = languagesOf(st?.languages ?? null);

    let match: SearchMatch;
    let expression: string;
    let within: number[] | undefined;
    let capped = false;
    let text = request.query.text;
    if (request.query.kind === 'raw') {
      const raw = rawToTsquery(request.query.text, languages);
      const values: unknown[] = [raw.query, MAX_RANKED_CHUNKS + 1];
      let where = `c.terms @@ $1::tsquery`;
      if (files) {
        values.push(files);
        where += ' AND c.file_id = ANY($3::bigint[])';
      }
      try {
        const r = await run({
          text: `SELECT c.id FROM ${s}.chunks c WHERE ${where} ORDER BY c.id DESC LIMIT $2`,
          values,
        });
        within = r.rows.map((row) => Number(row.id));
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        // 42601 syntax error; 22P02 / 22023 / 0A000 / 54000: what the tsquery parser refuses.
        if (['42601', '22P02', '22023', '0A000', '54000'].includes(code)) {
          throw new RawQueryError((error as Error).message, 'PostgreSQL tsquery');
        }
        throw error;
      }
      capped = within.length > MAX_RANKED_CHUNKS;
      if (capped) within = within.slice(0, MAX_RANKED_CHUNKS);
      text = raw.words.join(' ');
      match = 'raw';
      expression = request.query.text;
    } else {
      match = 'all';
      expression = '';
    }

    const clauses = guessed?.clauses ?? queryClauses(text, languages);
    let found = guessed?.found;
    if (!found) {
      const look = termsToLookUp(clauses, languages);
      found = (
        await run({
          text: this.sql.termStats,
          values: [look.terms, look.prefixes, listTerms(clauses, languages)],
        })
      ).rows as TermRow[];
    }
    const df = new Map<string, number>();
    const expansions = new Map<string, Array<{ term: string; df: number }>>();
    for (const row of found) {
      if (row.prefix === null) df.set(row.term, Number(row.df));
      else {
        const list = expansions.get(row.prefix) ?? [];
        list.push({ term: row.term, df: Number(row.df) });
        expansions.set(row.prefix, list);
      }
    }
    const plan = planQuery(clauses, languages, df, expansions, stats);
    if (match !== 'raw') expression = plan.expression;

    const need = request.offset + request.limit + 1;
    const champions = ChampionRows.of(
      plan,
      found,
      stats.docs,
      match === 'raw',
      st?.averages,
      Number(st?.pairs ?? 0) > 0,
    );
    const scorer = await this.score(run, plan, stats, files, within, need, champions);
    const rows = scorer.top(need);
    if (match !== 'raw') {
      const top = rows[0];
      match = top === undefined || top.matched >= plan.clauses.length ? 'all' : 'any';
    }
    const page = rows.slice(request.offset, request.offset + request.limit);
    const hits: SearchHit[] = [];
    if (page.length > 0) {
      const details = new Map<number, Record<string, unknown>>();
      const info = await run({
        text: this.sql.hitDetails,
        values: [page.map((p) => p.id), this.originSources, this.originValues],
      });
      for (const d of info.rows) details.set(Number(d.id), d);
      // A reindex committed between the statements (each sees the index as last committed):
      // the page may mix two generations; the backend runs the search again in one snapshot.
      const generation = (info.rows[0]?.generation as string | null | undefined) ?? null;
      if (
        details.size < page.length ||
        (info.rows.length > 0 && generation !== (st?.generation ?? null))
      ) {
        throw new IndexMoved();
      }
      for (const p of page) {
        const d = details.get(p.id);
        if (!d) continue;
        hits.push(hitFromRow(d, p.score));
      }
    }
    const words = plan.clauses.filter((c) => c.kind === 'word').map((c) => c.surface[0]!);
    return {
      match,
      expression,
      hits,
      more: rows.length > request.offset + request.limit,
      forms: [],
      formsOf: words.length > 0 ? languages.map((language) => ({ language, words })) : [],
      capped,
      ...(champions.capped.length > 0 ? { cappedPhrases: champions.capped } : {}),
    };
  }

  /**
   * Scores the chunks holding the plan's clauses (or, for a raw query, the chunks it matched).
   * The rarest clauses' chunks are looked up first, each with the positions of every term of
   * the plan, so they are scored in full; the clauses whose chunks could not reach the page
   * then (see `clausesStillNeeded`) are never looked up, and the others are, in one more
   * statement, for the chunks not seen yet. Every chunk is scored in the plan's clause order,
   * as the SQLite backend does, so the page is the one a scan of every match would give.
   */
  private async score(
    run: Run,
    plan: QueryPlan,
    stats: IndexStats,
    files: readonly number[] | undefined,
    within: readonly number[] | undefined,
    need: number,
    champions: ChampionRows,
  ): Promise<Scorer> {
    // Listed terms count from their lists only: no chunk's vector is read for them.
    const terms = new Set<string>();
    for (const c of plan.clauses) {
      if (c.kind === 'phrase') continue;
      for (const list of c.terms.values()) {
        for (const t of list) if (!champions.listed.has(t)) terms.add(t);
      }
    }
    const chunks = new Candidates(plan, champions);
    // The chunks each phrase counts in (at most the cap, the newest), among those allowed.
    const allowed: string[] = [];
    const allowedValues: unknown[] = [];
    if (files) allowed.push(`c.file_id = ANY($${allowedValues.push(files)}::bigint[])`);
    if (within) allowed.push(`c.id = ANY($${allowedValues.push(within)}::bigint[])`);
    const variants = chunks.phrases.flatMap((i) =>
      phraseFields(plan.clauses[i]!).map((v) => ({
        clause: i,
        langs: v.langs as Language[],
        terms: v.terms,
        fields: v.fields,
      })),
    );
    await champions.readPairs(run, this.n.s, variants);
    await champions.phrases(
      run,
      this.n.s,
      champions.cappedVariants(variants),
      allowed,
      allowedValues,
    );
    // The phrase variants a look-up checks: those `phrases` did not (a capped one's fields are known).
    const phrases = chunks.phrases.map((i) =>
      phraseFields(plan.clauses[i]!).filter(
        (v) => !v.langs.every((l) => champions.knowsPhrase(i, l as Language)),
      ),
    );
    // A look-up that reads no vector and checks no phrase needs nothing of a capped phrase's
    // chunks that `phrases` did not read: they are added as they are, without reading them again.
    const bare = terms.size === 0 && phrases.every((v) => v.length === 0);
    const look = (branches: Branch[], values: unknown[]) =>
      this.fetch(run, [...terms], phrases, branches, values, files, chunks, searchTuning.split);
    if (within) {
      await look([{ where: ['c.id = ANY($2::bigint[])'] }], [idArray(within)]);
      return chunks.score(stats, within);
    }
    if (plan.clauses.length === 0) return new Scorer(plan, stats, 0);
    // Rarest first (highest ceiling); the first look-up takes clauses while their chunks are
    // few. A clause the lists (or the phrases' chunks) answer costs the chunks they give it.
    const order = plan.clauses
      .map((_, i) => i)
      .sort((a, b) => clauseCeiling(plan.clauses[b]!) - clauseCeiling(plan.clauses[a]!) || a - b);
    const first: number[] = [];
    let expected = 0;
    for (const i of order) {
      const cost = champions.cost(i);
      if (first.length > 0 && expected + cost > searchTuning.firstLookupChunks) break;
      first.push(i);
      expected += cost;
    }
    /** Whether the clauses `list` hold every unlisted term of the plan (phrases aside). */
    const covers = (list: readonly number[]) =>
      plan.clauses.every(
        (c, i) => c.kind === 'phrase' || list.includes(i) || champions.query(c).length === 0,
      );
    const query = (list: readonly number[]) =>
      [...new Set(list.flatMap((i) => champions.query(plan.clauses[i]!)))].join(' | ');
    /** Looks up clauses: the chunks the lists give them, and those their query finds. */
    const lookUp = async (list: readonly number[], not?: string, more: readonly number[] = []) => {
      let ids = champions.seed(list);
      if (more.length > 0) ids = [...new Set([...ids, ...more])];
      if (bare) {
        ids = ids.filter((id) => {
          const k = champions.known.get(id);
          if (!k) return true;
          if (!chunks.has(id)) chunks.addCombined(id, k.lang, k.title, k.headings, k.body, '', []);
          return false;
        });
      }
      const q = query(list);
      const values: unknown[] = [];
      const p = (v: unknown) => `$${values.push(v) + 1}`;
      const branches: Branch[] = [];
      if (ids.length > 0 && q !== '' && covers(list)) {
        // Every unlisted term is this look-up's: its query finds each chunk holding one (read
        // with its vector cut), and the lists' other chunks hold none, so they are read bare,
        // without the per-row check of the unlisted terms (about 3 µs a chunk for a prefix's
        // dozens of terms; bench, 'zelt*': 1,576 list chunks).
        const where = [`c.terms @@ (SELECT ${p(q)}::tsquery)`];
        if (not) where.push(`NOT (c.terms @@ ${p(not)}::tsquery)`);
        await look([{ where }], values);
        const rest = ids.filter((id) => !chunks.has(id));
        if (rest.length > 0)
          await look([{ where: ['c.id = ANY($2::bigint[])'], bare: true }], [idArray(rest)]);
        return;
      }
      if (ids.length > 0) {
        // The lists' chunks: most hold none of the unlisted terms, whose vectors need no cut.
        const at = p(idArray(ids));
        branches.push({ where: [`c.id = ANY(${at}::bigint[])`], guard: true });
        // The query as a value the planner does not see (an init plan): a prefix's unlisted
        // terms ORed were estimated at ~250 chunks each and read by a scan of every chunk
        // (bench, 'zelt*': 348 ms; with the index, 65 ms). Every chunk it finds holds one of
        // them: no check before its vector is cut.
        if (q !== '') {
          branches.push({
            where: [`c.terms @@ (SELECT ${p(q)}::tsquery)`, `NOT (c.id = ANY(${at}::bigint[]))`],
          });
        }
      } else if (q !== '') branches.push({ where: [`c.terms @@ ${p(q)}::tsquery`] });
      else return;
      if (not) {
        const excluded = `NOT (c.terms @@ ${p(not)}::tsquery)`;
        for (const b of branches) b.where.push(excluded);
      }
      await look(branches, values);
    };
    await lookUp(first);
    const pending = order.filter((i) => !first.includes(i));
    if (pending.length > 0) {
      const best = chunks.score(stats, undefined).top(need);
      const threshold = best.length >= need ? best[need - 1]!.score : 0;
      const needed = clausesStillNeeded(plan, pending, threshold);
      // Max-score on the lists' floors: a chunk found by no look-up holds only clauses left
      // out, each adding at most its ceiling, or, for a word looked up in its lists only, the
      // most a chunk outside them can get (`outside`); the weakest such words whose sum stays
      // below the threshold are looked up in their lists only.
      let sum = 0;
      for (const i of pending) if (!needed.includes(i)) sum += clauseCeiling(plan.clauses[i]!);
      const bounded = needed
        .map((i) => ({ i, o: champions.outside(i, stats) }))
        .filter((x): x is { i: number; o: { bound: number; ids: number[] } } => !!x.o)
        .sort((a, b) => a.o.bound - b.o.bound || b.i - a.i);
      const listOnly = new Set<number>();
      const listChunks: number[] = [];
      for (const { i, o } of bounded) {
        const next = sum + o.bound;
        if (!(next * (1 + 1e-9) < threshold)) break;
        sum = next;
        listOnly.add(i);
        listChunks.push(...o.ids);
      }
      const rest = needed.filter((i) => !listOnly.has(i));
      const firstQuery = query(first);
      if (rest.length > 0 || listChunks.length > 0) {
        await lookUp(rest, firstQuery !== '' ? firstQuery : undefined, listChunks);
      }
    }
    return chunks.score(stats, undefined);
  }

  /**
   * Adds the chunks the `branches` select (conditions on `c` with parameters from $2 on; one
   * statement, their rows apart) to `chunks`, each with the positions of `terms` it holds per
   * field: its vector with those terms set to weight C (which the index never uses) cut down
   * to weights A, B and C, as text: the terms' positions and the title and heading-path entries
   * of the others, told apart by position (`addCombined`). A chunk whose vector does not allow
   * that is read again (`split`): the terms' positions and its title and heading-path entries
   * as two vectors, matched by term and position.
   */
  private async fetch(
    run: Run,
    terms: readonly string[],
    phrases: ReadonlyArray<PhraseFields>,
    branches: readonly Branch[],
    values: unknown[],
    files: readonly number[] | undefined,
    chunks: Candidates,
    split = searchTuning.split,
  ): Promise<void> {
    const { s } = this.n;
    const all: unknown[] = [terms, ...values];
    const shared: string[] = [];
    if (files) shared.push(`c.file_id = ANY($${all.push(files)}::bigint[])`);
    const param = (v: unknown) => `$${all.push(v)}`;
    // Per phrase clause, the fields it occurs in, checked by PostgreSQL: its words in order,
    // each of one field's weight (A title, B heading path, D body; fields never touch).
    const columns = phrases.map((variants, k) => {
      if (variants.length === 0) return '';
      const cases = variants.map(({ langs, fields }) => {
        const bits = fields
          .map((q, f) => `((c.terms @@ ${param(q)}::tsquery)::int << ${f})`)
          .join(' | ');
        return `WHEN c.lang = ANY(${param(langs)}::text[]) THEN ${bits}`;
      });
      return `, CASE ${cases.join(' ')} ELSE 0 END AS p${k}`;
    });
    // The query terms' positions and the other title and heading-path entries, in one vector
    // (see `Candidates.addCombined`); `split` for chunks it cannot read: the query terms'
    // positions (weights lost) and the title and heading-path entries apart.
    const cut = `ts_filter(setweight(c.terms, 'C', $1::text[]), '{a,b,c}')::text`;
    let holds: string | undefined;
    const text = (guard: boolean | undefined, bare: boolean | undefined) => {
      if (terms.length === 0) return `'' AS v, $1::text[] IS NULL AS none`;
      if (bare) {
        // No vector, but $1 is still typed (a parameter no statement uses has no type).
        const none = `(CASE WHEN $1::text[] IS NULL THEN NULL ELSE '' END)`;
        return split ? `${none} AS q, ${none} AS ab` : `${none} AS v`;
      }
      if (split) {
        return `ts_filter(setweight(c.terms, 'C', $1::text[]), '{c}')::text AS q,
          ts_filter(c.terms, '{a,b}')::text AS ab`;
      }
      if (!guard) return `${cut} AS v`;
      holds ??= param(terms.map(quoteLexeme).join(' | '));
      return `CASE WHEN c.terms @@ ${holds}::tsquery THEN ${cut} ELSE '' END AS v`;
    };
    const statement = branches
      .map(
        (
          b,
        ) => `SELECT c.id, c.lang, c.title_len, c.headings_len, c.body_len, ${text(b.guard, b.bare)}${columns.join('')}
        FROM ${s}.chunks c WHERE ${[...b.where, ...shared].join(' AND ')}`,
      )
      .join(' UNION ALL ');
    // Rows as arrays: id, language, the three lengths, the vector text (`split`: two), phrases.
    const r = await run({ text: statement, values: all, rowMode: 'array' } as Pg.QueryConfig);
    // Where the phrases' columns start: after one vector column, two for `split`, or the empty
    // vector and the column that gives $1 its type.
    const first = terms.length > 0 && !split ? 6 : 7;
    const at = phrases.flatMap((v, k) => (v.length === 0 ? [] : [k]));
    const found = phrases.map(() => 0);
    const unread: number[] = [];
    for (const row of r.rows as unknown[][]) {
      const id = Number(row[0]);
      // A chunk of a list may be found again by a later look-up: it is in already.
      if (chunks.has(id)) continue;
      const lang = row[1] as Language;
      for (let j = 0; j < at.length; j++) found[at[j]!] = Number(row[first + j]);
      const title = row[2] as number;
      const headings = row[3] as number;
      const body = row[4] as number;
      if (split && terms.length > 0) {
        chunks.add(id, lang, title, headings, body, row[5] as string, row[6] as string, found);
      } else if (!chunks.addCombined(id, lang, title, headings, body, row[5] as string, found)) {
        unread.push(id);
      }
    }
    if (unread.length > 0) {
      await this.fetch(
        run,
        terms,
        phrases,
        [{ where: ['c.id = ANY($2::bigint[])'] }],
        [unread],
        files,
        chunks,
        true,
      );
    }
  }
}

/**
 * Chunk ids as `bigint[]` text, ascending: `pg` quotes and escapes each element of an array
 * parameter (bench, 4,871 ids: 2.5 ms of an 11 ms look-up), and the index reads them in order.
 */
function idArray(ids: readonly number[]): string {
  return `{${[...ids].sort((a, b) => a - b).join(',')}}`;
}

/**
 * One part of a look-up: conditions on `c`, and whether most of its rows hold no query term
 * (`guard`: checked per row) or none at all (`bare`: no vector read).
 */
interface Branch {
  where: string[];
  guard?: boolean;
  bare?: boolean;
}

/** A phrase clause's checks per field, per group of languages that share its terms. */
type PhraseFields = Array<{
  langs: string[];
  terms: readonly string[];
  fields: [string, string, string];
}>;

function phraseFields(c: PlannedClause): PhraseFields {
  const byTerms = new Map<string, { langs: string[]; list: readonly string[] }>();
  for (const [lang, list] of c.terms) {
    const key = JSON.stringify(list);
    const entry = byTerms.get(key) ?? { langs: [], list };
    entry.langs.push(lang);
    byTerms.set(key, entry);
  }
  return [...byTerms.values()].map(({ langs, list }) => ({
    langs,
    terms: list,
    fields: (['A', 'B', 'D'] as const).map((w) =>
      list.map((t) => `${quoteLexeme(t)}:${w}`).join(' <-> '),
    ) as [string, string, string],
  }));
}
