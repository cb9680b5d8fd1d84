import type * as Pg from 'pg';
import { type Language, STEMMED_LANGUAGES } from '../../lib/language.js';
import { pruneCommonTerms, type QueryTerm } from '../../lib/query.js';
import { MAX_RANKED_CHUNKS } from '../../limits.js';
import {
  RawQueryError,
  type SearchHit,
  type SearchMatch,
  type SearchPage,
  type SearchRequest,
} from '../types.js';
import type { Names } from './schema.js';
import { NORMALIZATION, type Statements, WEIGHTS } from './sql.js';
import { hasForms, termsQuery } from './text.js';

/** Sends one statement (on the pool, or on a client inside a transaction). */
export type Run = (query: Pg.QueryConfig) => Promise<Pg.QueryResult>;

/** The word-form condition of a search (see `formsQuery`). */
type FormsQuery = NonNullable<ReturnType<PgSearch['formsQuery']>>;

/** The stemmed languages listed in the `languages` meta value. */
function parseLanguages(stored: string | null): Array<Exclude<Language, 'simple'>> {
  const list = stored ? (JSON.parse(stored) as Language[]) : [];
  return STEMMED_LANGUAGES.filter((l) => list.includes(l));
}

/**
 * The PostgreSQL backend's search: builds and runs the ranking statement for a
 * {@link SearchRequest} and turns its rows into a page. Keeps the index's languages as last
 * seen, so the statement for a term with word forms is built for them.
 */
export class PgSearch {
  constructor(
    private readonly n: Names,
    private readonly sql: Statements,
    /** Origin (machine and folder) of each configured source, as two parallel arrays for SQL. */
    private readonly originSources: readonly string[],
    private readonly originValues: readonly string[],
  ) {}

  /** Languages with word forms, as last seen in the index's `meta` (checked by every search). */
  private searchLanguages: { stored: string | null; list: Array<Exclude<Language, 'simple'>> } = {
    stored: null,
    list: [],
  };

  async search(run: Run, request: SearchRequest): Promise<SearchPage> {
    const { s } = this.n;
    // Narrowing shared by every ranking statement: parameters $1.. are the filter's.
    const filterParams: unknown[] = [];
    const filter: string[] = [];
    if (request.source !== undefined) {
      filterParams.push(request.source);
      filter.push(
        `c.file_id IN (SELECT id FROM ${s}.files WHERE source = $${filterParams.length})`,
      );
    }
    if (request.pathFilter) {
      const rows = (
        request.source === undefined
          ? await run({ text: this.sql.filesForFilter })
          : await run({ text: this.sql.filesForFilterOfSource, values: [request.source] })
      ).rows as Array<{ id: string; source: string; path: string }>;
      const keep = request.pathFilter;
      filterParams.push(rows.filter((r) => keep(r.source, r.path)).map((r) => r.id));
      filter.push(`c.file_id = ANY($${filterParams.length}::bigint[])`);
    }
    const need = request.offset + request.limit + 1;
    const simple = this.n.simple;
    const exactWhere = `c.exact @@ to_tsquery(${simple}, $q0)`;
    const exactScore = `ts_rank_cd(${WEIGHTS}, c.exact, to_tsquery(${simple}, $q0), ${NORMALIZATION})`;

    /**
     * One statement: the exact tier, the word-form tier (when `forms` is given, only as many
     * rows as the exact tier left short of `need`), details of the rows on the requested page,
     * the stored languages, and, when `prune` terms are given and both tiers are empty, how
     * many chunks hold each of them (capped past half of all chunks, as `pruneCommonTerms`
     * needs). Always returns at least one row (id null when nothing matched).
     */
    const statement = (
      expression: string,
      headed: string,
      forms: FormsQuery | undefined,
      prune: readonly QueryTerm[] | undefined,
    ): Pg.QueryConfig => {
      const values: unknown[] = [...filterParams];
      const param = (v: unknown) => {
        values.push(v);
        return `$${values.length}`;
      };
      /** Replaces `$q0…` in texts by parameters for `qs`, each sent once, only when used. */
      const filler = (qs: readonly string[]) => {
        const at = new Map<number, string>();
        return (text: string) =>
          text.replace(/\$q(\d+)/g, (_, i: string) => {
            const n = Number(i);
            let p = at.get(n);
            if (p === undefined) {
              p = param(qs[n]);
              at.set(n, p);
            }
            return p;
          });
      };
      const narrow = filter.length ? ` AND ${filter.join(' AND ')}` : '';
      const needP = param(need);
      const capP = param(MAX_RANKED_CHUNKS);
      const exact = filler([expression, headed]);
      /**
       * Each tier scores at most MAX_RANKED_CHUNKS matches. `a<t>`: any cap + 1 matches, in
       * whatever order the scan meets them (it stops there); when there are at most cap, they
       * are all of them and `m<t>` is just that set. Otherwise `m<t>` is cap of the matches:
       * with a `headed` condition (the heading holds a query term), those first, newest first
       * (`h<t>`, read through the headings' own index), then the newest others; without one,
       * the newest matches. Read only in that case.
       */
      const candidates = (t: number, cols: string, where: string, headed?: string) => {
        const over = `(SELECT count(*) FROM a${t}) > ${capP}`;
        const ctes = [
          `a${t} AS (SELECT ${cols} FROM ${s}.chunks c WHERE ${where} LIMIT ${capP}::bigint + 1)`,
        ];
        if (headed === undefined) {
          ctes.push(`m${t} AS (SELECT * FROM a${t} WHERE NOT ${over}
            UNION ALL (SELECT ${cols} FROM ${s}.chunks c
              WHERE ${where} AND ${over}
              ORDER BY c.id DESC LIMIT ${capP}))`);
        } else {
          ctes.push(
            `h${t} AS (SELECT ${cols} FROM ${s}.chunks c WHERE ${where} AND ${headed} AND ${over}
              ORDER BY c.id DESC LIMIT ${capP})`,
            `n${t} AS (SELECT ${cols} FROM ${s}.chunks c WHERE ${where} AND ${over}
              ORDER BY c.id DESC LIMIT ${capP})`,
            `m${t} AS (SELECT * FROM a${t} WHERE NOT ${over}
              UNION ALL SELECT * FROM h${t}
              UNION ALL (SELECT * FROM n${t} WHERE id NOT IN (SELECT id FROM h${t})
                ORDER BY id DESC LIMIT ${capP}::bigint - (SELECT count(*) FROM h${t})))`,
          );
        }
        return ctes;
      };
      const ctes = [
        ...candidates(
          1,
          'c.id, c.exact',
          `${exact(exactWhere)}${narrow}`,
          exact(`ts_filter(c.exact, '{a}') @@ to_tsquery(${simple}, $q1)`),
        ),
        `r1 AS (SELECT c.id, ${exact(exactScore)} AS score FROM m1 c
          ORDER BY score DESC, c.id LIMIT ${needP})`,
      ];
      let ranked = 'SELECT id, score, 1 AS tier FROM r1';
      const cappedWhen = [`(SELECT count(*) FROM a1) > ${capP}`];
      if (forms) {
        const fill = filler([...forms.qs, forms.scoreQuery, expression]);
        const notExact = `$q${forms.qs.length + 1}`;
        const where = fill(
          `(${forms.where}) AND NOT (c.exact @@ to_tsquery(${simple}, ${notExact}))`,
        );
        const score = fill(forms.score);
        ctes.push(...candidates(2, 'c.id, c.lang, c.forms', `${where}${narrow}`));
        ctes.push(`r2 AS (SELECT c.id, ${score} AS score FROM m2 c
          ORDER BY score DESC, c.id
          LIMIT ${needP}::bigint - (SELECT count(*) FROM r1))`);
        // The word-form tier runs only when the exact one left the page short.
        cappedWhen.push(
          `((SELECT count(*) FROM r1) < ${needP}::bigint AND (SELECT count(*) FROM a2) > ${capP})`,
        );
        ranked += ' UNION ALL SELECT id, score, 2 AS tier FROM r2';
        // The word-form tier runs only when the exact one left the page short.
        cappedWhen.push(
          `((SELECT count(*) FROM r1) < ${needP}::bigint AND (SELECT count(*) FROM m2) > ${capP})`,
        );
      }
      ctes.push(`k AS (SELECT id, score, tier, row_number() OVER (ORDER BY tier, score DESC, id) AS n
        FROM (${ranked}) u)`);
      const counts: string[] = [];
      if (prune) {
        const cap = `(coalesce((SELECT value::bigint FROM ${s}.meta WHERE key = 'chunk_count'), 0) / 2 + 1)`;
        prune.forEach((t, i) => {
          if (!hasForms(t)) return;
          counts.push(`CASE WHEN NOT EXISTS (SELECT 1 FROM k) THEN (SELECT count(*) FROM (SELECT 1
            FROM ${s}.chunks c WHERE c.exact @@ to_tsquery(${simple}, ${param(termsQuery([t], 'all'))})
            LIMIT ${cap}) x) END AS df${i}`);
        });
        counts.push(`(SELECT value FROM ${s}.meta WHERE key = 'chunk_count') AS chunk_count`);
      }
      const first = param(request.offset);
      const last = param(request.offset + request.limit);
      const sources = param(this.originSources);
      const origins = param(this.originValues);
      const text = `WITH ${ctes.join(',\n')}
        SELECT k.id, k.score, k.tier, d.start_line, d.end_line, d.start_byte, d.end_byte,
          d.heading_path, d.source, d.path, d.sha256, d.size, d.mtime,
          m.languages, m.capped${counts.map((x) => `, ${x}`).join('')}
        FROM (SELECT (SELECT value FROM ${s}.meta WHERE key = 'languages') AS languages,
          ${cappedWhen.join(' OR ')} AS capped) m
        LEFT JOIN k ON true
        LEFT JOIN LATERAL (SELECT c.start_line, c.end_line, c.start_byte, c.end_byte,
            c.heading_path, f.source, f.path, f.sha256,
            coalesce(z.size, f.size) AS size, coalesce(z.mtime, f.mtime) AS mtime
          FROM ${s}.chunks c JOIN ${s}.files f ON f.id = c.file_id
          LEFT JOIN unnest(${sources}::text[], ${origins}::text[]) AS o (source, origin)
            ON o.source = f.source
          LEFT JOIN ${s}.seen z ON z.file_id = f.id AND z.origin = o.origin
          WHERE c.id = k.id AND k.n > ${first} AND k.n <= ${last}) d ON true
        ORDER BY k.n`;
      return { text, values };
    };

    type Row = Record<string, unknown> & { id: string | null; score: number; tier: number };
    /**
     * Runs the statement built for the languages known so far; when the index says otherwise
     * (a reindex changed them), learns them and, if the statement depended on them (some term
     * has word forms), runs it again. Languages that keep changing under a stream of reindexes
     * stop the retries after a few: that search then used a list a moment old.
     */
    const ranked = async (
      build: (languages: ReadonlyArray<Exclude<Language, 'simple'>>) => Pg.QueryConfig,
      dependsOnLanguages: boolean,
    ) => {
      for (let attempt = 0; ; attempt++) {
        const known = this.searchLanguages;
        const r = await run(build(known.list));
        const rows = r.rows as Row[];
        const stored = (rows[0]?.languages as string | null | undefined) ?? null;
        if (stored === known.stored) return rows;
        this.searchLanguages = { stored, list: parseLanguages(stored) };
        if (!dependsOnLanguages || attempt >= 3) return rows;
      }
    };

    let match: SearchMatch;
    let expression: string;
    let rows: Row[];
    let formsOf: Array<{ language: Exclude<Language, 'simple'>; words: string[] }> = [];
    if (request.query.kind === 'raw') {
      match = 'raw';
      expression = request.query.text;
      const raw = expression;
      try {
        rows = await ranked(() => statement(raw, raw, undefined, undefined), false);
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        // 42601: syntax error in the tsquery text; 22023, 22P02, 54000: other invalid input.
        if (code === '42601' || code === '22023' || code === '22P02' || code === '54000') {
          throw new RawQueryError((error as Error).message);
        }
        throw error;
      }
    } else {
      let terms = request.query.terms;
      match = 'all';
      expression = termsQuery(terms, 'all');
      const all = expression;
      // The word-form condition of the statement that produced `rows`.
      const last: { forms?: FormsQuery } = {};
      const first = terms;
      rows = await ranked((languages) => {
        last.forms = this.formsQuery(first, 'all', languages);
        return statement(
          all,
          first.length > 1 ? termsQuery(first, 'any') : all,
          last.forms,
          first.length > 1 ? first : undefined,
        );
      }, first.some(hasForms));
      if (rows[0]?.id == null && terms.length > 1) {
        // Nothing holds every term, in any form: any term will do, without the common ones.
        match = 'any';
        const chunks = Number(rows[0]?.chunk_count ?? 0);
        const df = terms.map((t, i) => (hasForms(t) ? Number(rows[0]?.[`df${i}`] ?? 0) : -1));
        const kept = pruneCommonTerms(terms, df, chunks);
        if (kept) terms = kept;
        expression = termsQuery(terms, 'any');
        const any = expression;
        const anyTerms = terms;
        rows = await ranked((languages) => {
          last.forms = this.formsQuery(anyTerms, 'any', languages);
          return statement(any, any, last.forms, undefined);
        }, anyTerms.some(hasForms));
      }
      // Second tier: chunks found only through other forms of the words, ranked below every
      // exact match (their scores are scaled under the lowest exact score).
      const exact = rows.filter((r) => r.id != null && r.tier === 1);
      const second = rows.filter((r) => r.id != null && r.tier === 2);
      const floor = exact.at(-1)?.score;
      const top = second[0]?.score;
      if (floor !== undefined && top !== undefined && top >= floor) {
        const factor = floor > 0 ? (floor / top) * 0.99 : 0.5;
        for (const row of second) row.score *= factor;
      }
      if (second.length > 0 && last.forms) formsOf = last.forms.formsOf;
    }
    const found = rows.filter((r) => r.id != null);
    const hits: SearchHit[] = [];
    for (const d of found.slice(request.offset, request.offset + request.limit)) {
      if (d.path == null) continue;
      hits.push({
        source: d.source as string,
        path: d.path as string,
        startLine: d.start_line as number,
        endLine: d.end_line as number,
        startByte: Number(d.start_byte),
        endByte: Number(d.end_byte),
        headingPath: d.heading_path as string,
        score: d.score,
        version: d.sha256 as string,
        size: Number(d.size),
        mtime: d.mtime as number,
      });
    }
    return {
      match,
      expression,
      hits,
      more: found.length > request.offset + request.limit,
      forms: [],
      formsOf,
      capped: rows[0]?.capped === true,
    };
  }

  /**
   * The word-form condition for terms: per language, chunks in that language whose stemmed
   * vector holds the stems of the single-word terms (phrases and prefixes must still match as
   * written). Undefined when no term has forms or no note is in a stemmed language.
   */
  private formsQuery(
    terms: readonly QueryTerm[],
    mode: 'all' | 'any',
    languages: ReadonlyArray<Exclude<Language, 'simple'>>,
  ) {
    const stemmed = terms.filter(hasForms);
    if (stemmed.length === 0 || languages.length === 0) return undefined;
    const rest = terms.filter((t) => !hasForms(t));
    const join = mode === 'all' ? ' AND ' : ' OR ';
    // $q0: the stemmed words; $q1: phrases and prefixes, as written; then the score's query.
    const qs = [termsQuery(stemmed, mode)];
    if (rest.length > 0) qs.push(termsQuery(rest, mode));
    const scoreQ = qs.length;
    const parts: string[] = [];
    const scores: string[] = [];
    for (const lang of languages) {
      const cfg = lang === 'en' ? this.n.english : this.n.spanish;
      const cond = [`c.forms @@ to_tsquery(${cfg}, $q0)`];
      if (rest.length > 0) cond.push(`c.exact @@ to_tsquery(${this.n.simple}, $q1)`);
      parts.push(`(c.lang = '${lang}' AND (${cond.join(join)}))`);
      scores.push(
        `WHEN '${lang}' THEN ts_rank_cd(${WEIGHTS}, c.forms, to_tsquery(${cfg}, $q${scoreQ}), ${NORMALIZATION})`,
      );
    }
    return {
      where: parts.join(' OR '),
      score: `CASE c.lang ${scores.join(' ')} ELSE 0 END`,
      /** Queries of `where`; the score's query (all terms) follows them. */
      qs,
      scoreQuery: termsQuery(terms, mode),
      formsOf: languages.map((language) => ({
        language,
        words: stemmed.map((t) => t.words[0]!),
      })),
    };
  }
}
