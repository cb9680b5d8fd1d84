import type * as Pg from 'pg';
import type { Language } from '../../lib/language.js';
import {
  type IndexStats,
  type PlannedClause,
  phraseCount,
  planQuery,
  type QueryPlan,
  queryClauses,
  Scorer,
  termsToLookUp,
} from '../../lib/rank.js';
import { MAX_RANKED_CHUNKS } from '../../limits.js';
import {
  RawQueryError,
  type SearchHit,
  type SearchMatch,
  type SearchPage,
  type SearchRequest,
} from '../types.js';
import { rawToTsquery } from './raw.js';
import type { Names } from './schema.js';
import type { Statements } from './sql.js';

/** Sends one statement (on the pool, or on a client inside a transaction). */
export type Run = (query: Pg.QueryConfig) => Promise<Pg.QueryResult>;

/** Field of a `tsvector` weight: A title, B heading path, D body. */
const FIELD_OF_WEIGHT: Readonly<Record<string, number>> = { A: 0, B: 1, C: 1, D: 2 };

/** A `tsquery` operand: the term quoted. */
function operand(term: string): string {
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** One candidate chunk's terms: per term, its positions per field. */
type ChunkTerms = Map<string, [number[], number[], number[]]>;

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
    const st = (await run({ text: this.sql.rankingStats })).rows[0] as
      | { docs: string; title: string; headings: string; body: string; languages: string | null }
      | undefined;
    const stats: IndexStats = {
      docs: Number(st?.docs ?? 0),
      totals: {
        title: Number(st?.title ?? 0),
        headings: Number(st?.headings ?? 0),
        body: Number(st?.body ?? 0),
      },
    };
    const stored = st?.languages ? (JSON.parse(st.languages) as Language[]) : [];
    const languages: Language[] = stored.length > 0 ? [...stored].sort() : ['simple'];

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

    const clauses = queryClauses(text, languages);
    const look = termsToLookUp(clauses, languages);
    const found = (
      await run({
        text: this.sql.termStats,
        values: [look.terms, look.prefixes],
      })
    ).rows as Array<{ prefix: string | null; term: string; df: number }>;
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

    const scorer = await this.score(run, plan, stats, files, within);
    const rows = scorer.top(request.offset + request.limit + 1);
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
      for (const p of page) {
        const d = details.get(p.id);
        if (!d) continue;
        hits.push({
          source: d.source as string,
          path: d.path as string,
          startLine: d.start_line as number,
          endLine: d.end_line as number,
          startByte: Number(d.start_byte),
          endByte: Number(d.end_byte),
          headingPath: d.heading_path as string,
          score: p.score,
          version: d.sha256 as string,
          size: Number(d.size),
          mtime: d.mtime as number,
        });
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
    };
  }

  /**
   * Scores the chunks holding the plan's clauses (or, for a raw query, the chunks it matched):
   * one statement finds them through the GIN index and returns, per chunk, the positions of
   * the plan's terms only; each chunk's clauses are then scored in the plan's order, as the
   * SQLite backend does.
   */
  private async score(
    run: Run,
    plan: QueryPlan,
    stats: IndexStats,
    files: readonly number[] | undefined,
    within: readonly number[] | undefined,
  ): Promise<Scorer> {
    const { s } = this.n;
    const terms = new Set<string>();
    const alternatives: string[] = [];
    for (const c of plan.clauses) {
      for (const list of c.terms.values()) for (const t of list) terms.add(t);
      alternatives.push(...clauseQuery(c));
    }
    const values: unknown[] = [[...terms]];
    const where: string[] = [];
    if (within) {
      values.push(within);
      where.push(`c.id = ANY($${values.length}::bigint[])`);
    } else {
      if (alternatives.length === 0) return new Scorer(plan, stats, 0);
      values.push([...new Set(alternatives)].join(' | '));
      where.push(`c.terms @@ $${values.length}::tsquery`);
    }
    if (files) {
      values.push(files);
      where.push(`c.file_id = ANY($${values.length}::bigint[])`);
    }
    const r = await run({
      // The vector cut down to the query's terms (deleting every other lexeme: two array
      // operations in C, about half the cost of unnesting every lexeme and filtering).
      text: `SELECT c.id, c.lang, c.title_len, c.headings_len, c.body_len, u.lexeme, u.positions, u.weights
        FROM ${s}.chunks c LEFT JOIN LATERAL
          unnest(ts_delete(c.terms, tsvector_to_array(ts_delete(c.terms, $1::text[])))) u ON true
        WHERE ${where.join(' AND ')}`,
      values,
    });
    const chunks = new Map<
      number,
      { lang: Language; lengths: [number, number, number]; terms: ChunkTerms }
    >();
    for (const row of r.rows as Array<{
      id: string;
      lang: string;
      title_len: number;
      headings_len: number;
      body_len: number;
      lexeme: string | null;
      positions: number[] | null;
      weights: string[] | null;
    }>) {
      const id = Number(row.id);
      let chunk = chunks.get(id);
      if (!chunk) {
        chunk = {
          lang: row.lang as Language,
          lengths: [row.title_len, row.headings_len, row.body_len],
          terms: new Map(),
        };
        chunks.set(id, chunk);
      }
      const lexeme = row.lexeme;
      if (lexeme === null) continue;
      const at: [number[], number[], number[]] = [[], [], []];
      const positions = row.positions ?? [];
      const weights = row.weights ?? [];
      positions.forEach((p, i) => {
        at[FIELD_OF_WEIGHT[weights[i] ?? 'D'] ?? 2]!.push(p);
      });
      chunk.terms.set(lexeme, at);
    }
    // Chunk ids in ascending order: the same order SQLite's slots give ties and sums.
    const ids = [...new Set([...chunks.keys(), ...(within ?? [])])].sort((a, b) => a - b);
    const scorer = new Scorer(plan, stats, ids.length);
    ids.forEach((id, slot) => {
      if (within) scorer.touch(slot, id);
      const chunk = chunks.get(id);
      if (!chunk) return;
      plan.clauses.forEach((clause, i) => {
        const counts = clauseCounts(clause, chunk.lang, chunk.terms);
        if (counts) {
          scorer.add(i, slot, id, chunk.lang, chunk.lengths, counts[0], counts[1], counts[2]);
        }
      });
    });
    return scorer;
  }
}

/** The `tsquery` alternatives that find a clause's chunks (a phrase: its words in order). */
function clauseQuery(c: PlannedClause): string[] {
  if (c.kind === 'phrase') {
    const out = new Set<string>();
    for (const list of c.terms.values()) out.add(`(${list.map(operand).join(' <-> ')})`);
    return [...out];
  }
  const out = new Set<string>();
  for (const list of c.terms.values()) for (const t of list) out.add(operand(t));
  return [...out];
}

/**
 * A clause's per-field counts in one chunk: a word's occurrences (the stem of the chunk's
 * language), a prefix's summed over the terms it stands for, a phrase's presence per field.
 */
function clauseCounts(
  clause: PlannedClause,
  lang: Language,
  terms: ChunkTerms,
): [number, number, number] | undefined {
  const list = clause.terms.get(lang);
  if (!list) return undefined;
  if (clause.kind === 'phrase') {
    const places = list.map((t) => terms.get(t));
    if (places.some((p) => p === undefined)) return undefined;
    const out: [number, number, number] = [0, 0, 0];
    for (let f = 0; f < 3; f++) {
      out[f] = phraseCount(places.map((p) => [...p![f]!].sort((a, b) => a - b))) > 0 ? 1 : 0;
    }
    return out;
  }
  const out: [number, number, number] = [0, 0, 0];
  const each = clause.kind === 'prefix' ? list : list.slice(0, 1);
  for (const t of each) {
    const at = terms.get(t);
    if (!at) continue;
    out[0] += at[0].length;
    out[1] += at[1].length;
    out[2] += at[2].length;
  }
  return out;
}
