import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ToolError } from '@lectern/core';
import type * as Pg from 'pg';
import { MemoryError } from '../../lib/errors.js';
import { type Language, STEMMED_LANGUAGES } from '../../lib/language.js';
import { pruneCommonTerms, type QueryTerm } from '../../lib/query.js';
import { MAX_RANKED_CHUNKS } from '../../limits.js';
import type { SearchMatch } from '../../types.js';
import {
  type BackendContext,
  type BackendFactory,
  type ChunkRecord,
  type FileIdentity,
  type FileLookup,
  type FileRecord,
  type FinishSummary,
  type IndexStatus,
  type IndexWriter,
  type MemoryBackend,
  RawQueryError,
  type SearchHit,
  type SearchPage,
  type SearchRequest,
  type StoredFile,
  type StoredProblem,
  type UpdateOptions,
} from '../types.js';
import {
  loadDriver,
  type PostgresConnectionOptions,
  poolConfig,
  RAISE_WORK_MEM,
  redactUrl,
  splitUrl,
} from './driver.js';
import { DEFAULT_SCHEMA, LOCK_CLASS, migrate, type Names, namesOf } from './schema.js';
import { NORMALIZATION, type Statements, statements, WEIGHTS } from './sql.js';
import { hasForms, indexWords, termsQuery } from './text.js';

/** Options of {@link postgresBackend}. */
export interface PostgresBackendOptions extends PostgresConnectionOptions {
  /**
   * Schema holding the index (default `lectern`, or the URL's `?schema=` parameter); several
   * indexes can share one database in different schemas. Created when missing.
   */
  schema?: string;
  /**
   * Name of this machine among those sharing the database (default the host name). With the
   * folder of each source it tells apart what each machine saw on its own disk.
   */
  machine?: string;
}

/**
 * A shared index in PostgreSQL: any number of servers, on any number of machines, search and
 * reindex one database. Full text uses PostgreSQL's own machinery — `tsvector` columns with
 * headings weighted above the body, GIN indexes, `ts_rank_cd` ranking, `unaccent`, and the
 * `english` and `spanish` Snowball stemmers for word forms — behind the same store, tools and
 * results as the SQLite backend. Reindexes from several processes take turns on an advisory
 * lock, each one a single transaction; searches read a consistent snapshot and never wait.
 * Needs the optional `pg` package.
 */
export function postgresBackend(options: PostgresBackendOptions): BackendFactory {
  // Fail now, not at first use, when the driver is missing or the options are wrong.
  loadDriver();
  const { url, schema: fromUrl } = splitUrl(options.url);
  const names = namesOf(options.schema ?? fromUrl ?? DEFAULT_SCHEMA);
  const config = poolConfig(options, url);
  return (context) => new PostgresBackend(names, config, redactUrl(url), options, context);
}

/** File ids taken from the sequence in a reindex's first round trip for them. */
const ID_BATCH = 256;
/** Most file ids fetched in one round trip. */
const ID_BATCH_MAX = 4096;
/** Chunks (or text bytes) buffered before they are sent in one statement. */
const FLUSH_CHUNKS = 2000;
const FLUSH_BYTES = 8 * 1024 * 1024;

const key = (source: string, path: string) => `${source}/${path}`;

function cancelled(): MemoryError {
  return new MemoryError('CANCELLED', 'the reindex was cancelled; the index is unchanged.');
}

/** Sends one statement (on the pool, or on a client inside a transaction). */
type Run = (query: Pg.QueryConfig) => Promise<Pg.QueryResult>;

/** The word-form condition of a search (see `formsQuery`). */
type FormsQuery = NonNullable<ReturnType<PostgresBackend['formsQuery']>>;

/** The stemmed languages listed in the `languages` meta value. */
function parseLanguages(stored: string | null): Array<Exclude<Language, 'simple'>> {
  const list = stored ? (JSON.parse(stored) as Language[]) : [];
  return STEMMED_LANGUAGES.filter((l) => list.includes(l));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A file as the writer knows it: this process's view of its stat, plus shared-row facts. */
interface PgFile extends StoredFile {
  chunks: number;
  /** The origin whose stat the shared row holds. */
  origin: string;
}

interface WriterCache {
  generation: string;
  files: Map<string, PgFile>;
  byId: Map<number, PgFile>;
}

interface FileRow {
  id: string;
  source: string;
  path: string;
  size: string;
  mtime: number;
  ino: number;
  sha256: string;
  racy: boolean;
  chunks: number;
  origin: string;
}

function toFile(r: FileRow): PgFile {
  return {
    id: Number(r.id),
    source: r.source,
    path: r.path,
    size: Number(r.size),
    mtime: r.mtime,
    ino: r.ino,
    sha256: r.sha256,
    racy: r.racy,
    chunks: r.chunks,
    origin: r.origin,
  };
}

/** SQLSTATE classes that mean the server cannot be used (connection, authentication, missing database). */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return (
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|EPIPE)$/.test(code) ||
    /^(08000|08001|08003|08004|08006|28|3D|57P)/.test(code) ||
    /timeout exceeded when trying to connect|Connection terminated/i.test(
      (error as Error).message ?? '',
    )
  );
}

class PostgresBackend implements MemoryBackend {
  readonly location: string;
  readonly sharedAcrossMachines = true;
  private readonly pool: Pg.Pool;
  private readonly n: Names;
  private readonly sql: Statements;
  private readonly ready: Promise<void>;
  /** Origin (machine and folder) of each configured source, as two parallel arrays for SQL. */
  private readonly originSources: string[];
  private readonly originValues: string[];
  private readonly origins: Map<string, string>;
  private readonly lockKey: number;
  private cache: WriterCache | undefined;
  private built = false;
  private closed = false;

  constructor(
    names: Names,
    config: Pg.PoolConfig,
    location: string,
    options: PostgresBackendOptions,
    context: BackendContext,
  ) {
    const pg = loadDriver();
    this.n = names;
    this.sql = statements(names);
    this.location = `${location}${location.includes('?') ? '&' : '?'}schema=${names.schema}`;
    const machine = options.machine ?? hostname();
    this.origins = new Map(context.sources.map((s) => [s.id, `${machine}:${s.root}`]));
    this.originSources = [...this.origins.keys()];
    this.originValues = [...this.origins.values()];
    this.lockKey = createHash('sha256').update(names.schema).digest().readInt32BE(0);
    this.pool = new pg.Pool(config);
    // An idle connection that drops is replaced on next use; it must not crash the process.
    this.pool.on('error', () => {});
    // Queued ahead of the connection's first statement; a server that refuses it keeps its own.
    this.pool.on('connect', (client) => {
      client.query(RAISE_WORK_MEM).catch(() => {});
    });
    this.ready = this.open();
    // Seen by the first call that awaits it; never an unhandled rejection meanwhile.
    this.ready.catch(() => {});
  }

  private async open(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await migrate(client, this.n, this.location);
    } finally {
      client.release();
    }
  }

  private mapError(error: unknown): unknown {
    if (error instanceof ToolError || error instanceof RawQueryError) return error;
    if (isConnectionError(error)) {
      return new MemoryError(
        'DB_UNAVAILABLE',
        `cannot use the PostgreSQL memory database at ${this.location}: ${(error as Error).message}. Check that the server is up and the URL, user and password are right.`,
        { literal: true, cause: error },
      );
    }
    return error;
  }

  /** Waits for the schema, then runs `fn`; connection problems become `DB_UNAVAILABLE`. */
  private async use<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new MemoryError('STORE_CLOSED', 'the memory store has been closed.');
    try {
      await this.ready;
      return await fn();
    } catch (error) {
      throw this.mapError(error);
    }
  }

  /** Runs `fn` in one read-only snapshot (every statement sees the same committed index). */
  private snapshot<T>(fn: (c: Pg.PoolClient) => Promise<T>): Promise<T> {
    return this.use(async () => {
      const c = await this.pool.connect();
      let broken = false;
      try {
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const result = await fn(c);
        await c.query('COMMIT');
        return result;
      } catch (error) {
        await c.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        c.release(broken);
      }
    });
  }

  warnings(): readonly string[] {
    return [];
  }

  clearWarnings(): void {}

  async isBuilt(): Promise<boolean> {
    if (this.built) return true;
    return this.use(async () => {
      const r = await this.pool.query(this.sql.isBuilt);
      this.built = r.rowCount !== null && r.rowCount > 0;
      return this.built;
    });
  }

  // ---------------------------------------------------------------- search

  /**
   * A search is one statement in the common case: ranking, the second tier of word forms, the
   * page's chunk and file details, and the index's languages are read together, so the result
   * comes from one snapshot without an explicit transaction. The any-term fallback adds one
   * statement (its own snapshot). A path filter reads the file list first, so that case runs in
   * a read-only transaction to keep one snapshot.
   */
  search(request: SearchRequest): Promise<SearchPage> {
    if (request.pathFilter) {
      return this.snapshot((c) => this.searchWith((q) => c.query(q), request));
    }
    return this.use(() => this.searchWith((q) => this.pool.query(q), request));
  }

  /** Languages with word forms, as last seen in the index's `meta` (checked by every search). */
  private searchLanguages: { stored: string | null; list: Array<Exclude<Language, 'simple'>> } = {
    stored: null,
    list: [],
  };

  private async searchWith(run: Run, request: SearchRequest): Promise<SearchPage> {
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
          throw new RawQueryError((error as Error).message, 'PostgreSQL tsquery');
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

  // ---------------------------------------------------------------- reads

  lookup(source: string, path: string): Promise<FileLookup> {
    return this.snapshot(async (c) => {
      const r = await c.query<FileRow>(this.sql.fileByPath, [
        this.originSources,
        this.originValues,
        source,
        path,
      ]);
      const row = r.rows[0];
      if (row) {
        const { chunks: _c, origin: _o, ...file } = toFile(row);
        return { kind: 'file', file };
      }
      const p = (await c.query(this.sql.problemByPath, [source, path])).rows[0];
      if (!p) return { kind: 'none' };
      return {
        kind: 'problem',
        problem: {
          source: p.source,
          path: p.path,
          size: Number(p.size),
          mtime: p.mtime,
          code: p.code,
          message: p.message,
        },
      };
    });
  }

  paths(source: string): Promise<string[]> {
    return this.use(async () =>
      (await this.pool.query<{ path: string }>(this.sql.pathsOfSource, [source])).rows.map(
        (r) => r.path,
      ),
    );
  }

  status(): Promise<IndexStatus> {
    return this.snapshot(async (c) => {
      const built = ((await c.query(this.sql.isBuilt)).rowCount ?? 0) > 0;
      const files = (
        await c.query({
          text: this.sql.fileStatus,
          values: [this.originSources, this.originValues],
          rowMode: 'array',
        })
      ).rows.map(([source, path, size, mtime]) => ({
        source: source as string,
        path: path as string,
        size: Number(size),
        mtime: mtime as number,
      }));
      const chunks = new Map(
        (await c.query<{ source: string; n: string }>(this.sql.chunksPerSource)).rows.map((r) => [
          r.source,
          Number(r.n),
        ]),
      );
      const problems = (await c.query(this.sql.problemStatus)).rows.map((p) => ({
        source: p.source as string,
        path: p.path as string,
        size: Number(p.size),
        mtime: p.mtime as number,
      }));
      const sources = (
        await c.query<{ id: string; root: string; indexed_at: string | null }>(this.sql.sources)
      ).rows.map((r) => ({ id: r.id, root: r.root, indexedAt: r.indexed_at }));
      if (built) this.built = true;
      return { built, files, chunks, problems, sources };
    });
  }

  // ---------------------------------------------------------------- writes

  /** Takes the index's advisory lock, waiting without blocking while another process holds it. */
  private async lock(c: Pg.PoolClient, options: UpdateOptions): Promise<void> {
    const deadline = Date.now() + options.busyTimeoutMs;
    let wait = 10;
    for (;;) {
      const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS ok', [
        LOCK_CLASS,
        this.lockKey,
      ]);
      if (r.rows[0]?.ok) return;
      if (Date.now() >= deadline) {
        throw new MemoryError(
          'INDEX_BUSY',
          `another process has been updating the memory index for over ${Math.round(options.busyTimeoutMs / 1000)} s; try again when it finishes.`,
        );
      }
      if (options.signal?.aborted) throw cancelled();
      await sleep(wait);
      wait = Math.min(wait * 2, 200);
      if (this.closed) throw new MemoryError('STORE_CLOSED', 'the memory store has been closed.');
    }
  }

  /**
   * The committed files, reloaded when another process committed since this one last looked,
   * and the index's `meta` rows (read once per reindex: under the lock only this transaction
   * changes them).
   */
  private async writerCache(
    c: Pg.PoolClient,
  ): Promise<{ cache: WriterCache; meta: Map<string, string> }> {
    const meta = new Map<string, string>(
      (await c.query<{ key: string; value: string }>(this.sql.metaAll)).rows.map((r) => [
        r.key,
        r.value,
      ]),
    );
    const generation = meta.get('generation') ?? '';
    if (this.cache && this.cache.generation === generation) return { cache: this.cache, meta };
    const files = new Map<string, PgFile>();
    const byId = new Map<number, PgFile>();
    const r = await c.query<FileRow>(this.sql.allFiles, [this.originSources, this.originValues]);
    for (const row of r.rows) {
      const f = toFile(row);
      files.set(key(f.source, f.path), f);
      byId.set(f.id, f);
    }
    this.cache = { generation, files, byId };
    return { cache: this.cache, meta };
  }

  update<T>(work: (writer: IndexWriter) => Promise<T>, options: UpdateOptions): Promise<T> {
    return this.use(async () => {
      if (options.signal?.aborted) throw cancelled();
      const c = await this.pool.connect();
      let broken = false;
      try {
        await c.query('BEGIN');
        let writer: PgWriter | undefined;
        try {
          await this.lock(c, options);
          const { cache, meta } = await this.writerCache(c);
          writer = new PgWriter(this, c, cache, meta, randomUUID());
          const result = await work(writer);
          await writer.flush();
          if (options.signal?.aborted) throw cancelled();
          // `finish` writes the new generation with the other meta rows; without it, do it here.
          if (!writer.finished) await c.query(this.sql.setMeta, ['generation', writer.generation]);
          await c.query('COMMIT');
          writer.committed();
          const upkeep = writer.upkeep();
          if (upkeep === 'vacuum') this.vacuumSoon();
          else if (upkeep === 'analyze') {
            // Planner statistics for a bulk addition now, not when autovacuum next wakes: until
            // then a new index is searched with plans made without any (bench notes: query p95
            // 100 -> 78 ms). Skipped while another process analyzes; never fatal.
            await c.query(`ANALYZE (SKIP_LOCKED) ${this.tables}`).catch(() => {});
          }
          return result;
        } catch (error) {
          // A batch may still be on its way: ROLLBACK only after it, or its later statements
          // would run outside the transaction.
          await writer?.settled();
          await c.query('ROLLBACK').catch(() => {
            broken = true;
          });
          throw error;
        }
      } finally {
        c.release(broken);
      }
    });
  }

  /** @internal For {@link PgWriter}. */
  get statements(): Statements {
    return this.sql;
  }

  /** @internal The origin (machine and folder) of a source. */
  originOf(source: string): string {
    return this.origins.get(source) ?? `${hostname()}:?`;
  }

  /** The chunk and file tables, as ANALYZE and VACUUM name them. */
  private get tables(): string {
    return `${this.n.s}.chunks, ${this.n.s}.files`;
  }

  /** Background upkeep started by a reindex (see {@link vacuumSoon}); `close` waits for it. */
  private maintenance: Promise<void> = Promise.resolve();

  /**
   * Vacuums and analyzes the chunk and file tables on a pooled connection of their own, after
   * the reindex that deleted many rows has returned. The dead row versions a rebuild leaves are
   * otherwise stepped over by every search until autovacuum's next visit (bench notes: query
   * p95 64 ms after a vacuum, 240 ms with four rebuilds' dead rows). Skipped while another
   * process vacuums; never fatal; one at a time.
   */
  private vacuumSoon(): void {
    this.maintenance = this.maintenance
      .then(async () => {
        const c = await this.pool.connect();
        try {
          await c.query(`VACUUM (ANALYZE, SKIP_LOCKED) ${this.tables}`);
        } finally {
          c.release();
        }
      })
      .catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ready.catch(() => {});
    await this.maintenance;
    await this.pool.end().catch(() => {});
  }
}

type Op =
  | { kind: 'add'; id: number; file: FileRecord; chunks: readonly ChunkRecord[] }
  | { kind: 'replace'; id: number; file: FileRecord; chunks: readonly ChunkRecord[] }
  | { kind: 'touch'; id: number; file: FileIdentity; renamed: boolean }
  | { kind: 'seen'; id: number; file: FileIdentity }
  | { kind: 'remove'; id: number }
  | { kind: 'problem'; problem: StoredProblem }
  | { kind: 'unproblem'; source: string; path: string };

/**
 * One reindex transaction. Changes are queued and sent in batches (one statement per run of
 * similar changes, in order), so a full index of thousands of notes costs a few hundred round
 * trips; reads flush the queue first. The writer cache is updated once the transaction commits.
 */
class PgWriter implements IndexWriter {
  private ops: Op[] = [];
  private queuedChunks = 0;
  private queuedBytes = 0;
  private ids: number[] = [];
  private idFetch: Promise<void> | undefined;
  private readonly log: Array<(cache: WriterCache) => void> = [];
  private cleared = false;
  private fileDelta = 0;
  private chunkDelta = 0;
  /**
   * Chunk rows this transaction inserted, and deleted (for a cleared index or a dropped source,
   * its old count), which {@link upkeep} weighs against the index.
   */
  private inserted = 0;
  private deleted = 0;
  /** The chunk count `finish` recorded, if it ran. */
  private total: number | undefined;

  /**
   * What the tables need once this transaction has committed, by autovacuum's default rules:
   * `vacuum` when it deleted more chunk rows than 50 plus a fifth of the index, `analyze` when
   * it inserted or deleted more than 50 plus a tenth, else nothing.
   */
  upkeep(): 'vacuum' | 'analyze' | undefined {
    if (this.total === undefined) return undefined;
    if (this.deleted > 50 + 0.2 * this.total) return 'vacuum';
    if (this.inserted + this.deleted > 50 + 0.1 * this.total) return 'analyze';
    return undefined;
  }
  private readonly languages = new Set<Language>();
  private readonly sql: Statements;

  /** True once `finish` has written the meta rows (and the new generation). */
  finished = false;

  constructor(
    private readonly backend: PostgresBackend,
    private readonly c: Pg.PoolClient,
    private readonly cache: WriterCache,
    /** The index's meta rows as this transaction found them. */
    private readonly meta: ReadonlyMap<string, string>,
    /** The generation this transaction commits. */
    readonly generation: string,
  ) {
    this.sql = backend.statements;
  }

  committed(): void {
    for (const apply of this.log) apply(this.cache);
    this.cache.generation = this.generation;
  }

  /** Resolves once nothing is being sent on the connection (never rejects). */
  async settled(): Promise<void> {
    for (;;) {
      const flushing = this.flushing;
      const chain = this.chain;
      await flushing;
      await chain;
      if (flushing === this.flushing && chain === this.chain) return;
    }
  }

  /** One statement at a time on the transaction's connection, in the order they are asked for. */
  private q(text: string, values?: unknown[]): Promise<Pg.QueryResult> {
    const run = this.chain.then(() => this.c.query(text, values));
    this.chain = run.catch(() => {});
    return run;
  }
  private chain: Promise<unknown> = Promise.resolve();
  private flushing: Promise<unknown> = Promise.resolve();

  /** File ids fetched per round trip; doubles up to {@link ID_BATCH_MAX} in a long reindex. */
  private idBatch = ID_BATCH;

  private async nextId(): Promise<number> {
    while (this.ids.length === 0) {
      this.idFetch ??= (async () => {
        const r = await this.q(this.sql.nextIds, [this.idBatch]);
        this.idBatch = Math.min(this.idBatch * 2, ID_BATCH_MAX);
        this.ids.push(...r.rows.map((row) => Number(row.id)));
      })().finally(() => {
        this.idFetch = undefined;
      });
      await this.idFetch;
    }
    return this.ids.shift()!;
  }

  /** The batch being sent in the background while the next one is prepared, if any. */
  private sending: Promise<void> | undefined;
  /** The first error of a flush: every later flush (and so the commit) fails with it. */
  private failure: { error: unknown } | undefined;

  /**
   * Queues a change. A full batch is sent in the background, so reading and chunking the next
   * notes overlaps with the server indexing this batch; at most one batch is in flight (the
   * caller waits for the previous one before starting another).
   */
  private async queue(op: Op, chunks: readonly ChunkRecord[] = []): Promise<void> {
    this.ops.push(op);
    this.queuedChunks += chunks.length;
    for (const ch of chunks) this.queuedBytes += ch.text.length + ch.headingPath.length;
    if (this.queuedChunks >= FLUSH_CHUNKS || this.queuedBytes >= FLUSH_BYTES) {
      if (this.sending) await this.sending;
      // Another caller may have started a batch while this one waited.
      if (this.queuedChunks < FLUSH_CHUNKS && this.queuedBytes < FLUSH_BYTES) return;
      const run = this.flush();
      this.sending = run;
      run.then(
        () => {
          if (this.sending === run) this.sending = undefined;
        },
        () => {}, // kept in `failure`; the next flush or queue throws it
      );
    }
  }

  /**
   * Sends every queued change, in order, one statement per run of changes of one kind. Flushes
   * asked for by concurrent callers run one after another, so changes keep their order. Once a
   * flush has failed, every later one fails with the same error (the transaction is aborted;
   * a COMMIT would silently roll back).
   */
  flush(): Promise<void> {
    const run = this.flushing.then(() => {
      if (this.failure) throw this.failure.error;
      return this.drain();
    });
    this.flushing = run.catch((error) => {
      this.failure ??= { error };
    });
    return run;
  }

  private async drain(): Promise<void> {
    while (this.ops.length > 0) {
      // Problems live in their own table: their changes keep their own order, apart from the
      // files', so the files' runs stay long.
      const ops: Op[] = this.ops.filter((o) => o.kind !== 'problem' && o.kind !== 'unproblem');
      ops.push(...this.ops.filter((o) => o.kind === 'problem' || o.kind === 'unproblem'));
      this.ops = [];
      this.queuedChunks = 0;
      this.queuedBytes = 0;
      let i = 0;
      while (i < ops.length) {
        const kind = ops[i]!.kind;
        let j = i;
        while (j < ops.length && ops[j]!.kind === kind) j++;
        await this.apply(kind, ops.slice(i, j));
        i = j;
      }
    }
  }

  private async apply(kind: Op['kind'], run: Op[]): Promise<void> {
    const sql = this.sql;
    switch (kind) {
      case 'add':
      case 'replace': {
        const list = run as Array<Extract<Op, { kind: 'add' | 'replace' }>>;
        const cols = fileColumns(
          list.map((o) => ({ id: o.id, file: o.file, chunks: o.chunks.length })),
          (o) => this.backend.originOf(o.source),
        );
        if (kind === 'add') await this.q(sql.insertFiles, cols);
        else {
          const ids = list.map((o) => o.id);
          await this.q(sql.updateFiles, cols);
          await this.q(sql.deleteSeenOf, [ids]);
          await this.q(sql.deleteChunksOf, [ids]);
        }
        await this.insertChunks(list);
        return;
      }
      case 'touch': {
        const list = run as Array<Extract<Op, { kind: 'touch' }>>;
        const f = list.map((o) => o.file);
        await this.q(sql.touchFiles, [
          list.map((o) => o.id),
          f.map((x) => x.source),
          f.map((x) => x.path),
          f.map((x) => x.size),
          f.map((x) => x.mtime),
          f.map((x) => x.ino),
          f.map((x) => x.sha256),
          f.map((x) => x.indexedAt),
          f.map((x) => x.racy),
          f.map((x) => this.backend.originOf(x.source)),
        ]);
        const renamed = list.filter((o) => o.renamed).map((o) => o.id);
        if (renamed.length > 0) await this.q(sql.deleteSeenOf, [renamed]);
        return;
      }
      case 'seen': {
        const list = run as Array<Extract<Op, { kind: 'seen' }>>;
        // One row per file and origin per statement: the last change wins.
        const last = new Map(list.map((o) => [o.id, o]));
        const rows = [...last.values()];
        await this.q(sql.upsertSeen, [
          rows.map((o) => o.id),
          rows.map((o) => this.backend.originOf(o.file.source)),
          rows.map((o) => o.file.size),
          rows.map((o) => o.file.mtime),
          rows.map((o) => o.file.ino),
          rows.map((o) => o.file.racy),
        ]);
        return;
      }
      case 'remove': {
        const ids = (run as Array<Extract<Op, { kind: 'remove' }>>).map((o) => o.id);
        await this.q(sql.deleteChunksOf, [ids]);
        await this.q(sql.deleteFiles, [ids]);
        return;
      }
      case 'problem': {
        const last = new Map(
          (run as Array<Extract<Op, { kind: 'problem' }>>).map((o) => [
            key(o.problem.source, o.problem.path),
            o.problem,
          ]),
        );
        const p = [...last.values()];
        await this.q(sql.upsertProblems, [
          p.map((x) => x.source),
          p.map((x) => x.path),
          p.map((x) => x.size),
          p.map((x) => x.mtime),
          p.map((x) => x.code),
          p.map((x) => x.message),
        ]);
        return;
      }
      case 'unproblem': {
        const list = run as Array<Extract<Op, { kind: 'unproblem' }>>;
        await this.q(sql.deleteProblems, [list.map((o) => o.source), list.map((o) => o.path)]);
        return;
      }
    }
  }

  private async insertChunks(
    list: ReadonlyArray<{ id: number; file: FileRecord; chunks: readonly ChunkRecord[] }>,
  ): Promise<void> {
    const cols: unknown[][] = [[], [], [], [], [], [], [], [], []];
    for (const o of list) {
      for (const ch of o.chunks) {
        cols[0]!.push(o.id);
        cols[1]!.push(ch.startLine);
        cols[2]!.push(ch.endLine);
        cols[3]!.push(ch.startByte);
        cols[4]!.push(ch.endByte);
        cols[5]!.push(ch.headingPath);
        cols[6]!.push(o.file.language);
        cols[7]!.push(indexWords(ch.headingPath));
        cols[8]!.push(indexWords(ch.text));
      }
    }
    if (cols[0]!.length > 0) await this.q(this.sql.insertChunks, cols);
  }

  // ------------------------------------------------------------ IndexWriter

  async recordedSources(): Promise<Array<{ id: string; root: string }>> {
    await this.flush();
    return (await this.q(this.sql.sources)).rows.map((r) => ({ id: r.id, root: r.root }));
  }

  async dropSource(id: string): Promise<number> {
    await this.flush();
    await this.q(this.sql.chunksOfSource, [id]);
    const removed = (await this.q(this.sql.filesOfSource, [id])).rows.map((r) => Number(r.id));
    await this.q(this.sql.deleteProblemsOfSource, [id]);
    this.problemKeys = undefined;
    await this.q(this.sql.deleteSource, [id]);
    for (const fileId of removed) {
      const old = this.cache.byId.get(fileId);
      if (old) {
        this.chunkDelta -= old.chunks;
        this.deleted += old.chunks;
      }
    }
    this.fileDelta -= removed.length;
    this.log.push((c) => {
      for (const fileId of removed) {
        const old = c.byId.get(fileId);
        if (old) c.files.delete(key(old.source, old.path));
        c.byId.delete(fileId);
      }
    });
    return removed.length;
  }

  async files(): Promise<ReadonlyMap<string, StoredFile>> {
    return this.cache.files;
  }

  async problems(): Promise<ReadonlyMap<string, StoredProblem>> {
    await this.flush();
    const out = new Map<string, StoredProblem>();
    const rows = (await this.q(this.sql.problems)).rows;
    // Everything is flushed: these are the problems recorded now, so their keys need no query.
    this.problemKeys = new Set(rows.map((p) => key(p.source, p.path)));
    for (const p of rows) {
      out.set(key(p.source, p.path), {
        source: p.source,
        path: p.path,
        size: Number(p.size),
        mtime: p.mtime,
        code: p.code,
        message: p.message,
      });
    }
    return out;
  }

  async clear(): Promise<void> {
    await this.flush();
    for (const statement of this.sql.clear) await this.q(statement);
    this.problemKeys = new Set();
    this.cleared = true;
    this.deleted += Number(this.meta.get('chunk_count') ?? 0);
    this.fileDelta = 0;
    this.chunkDelta = 0;
    this.log.push((c) => {
      c.files.clear();
      c.byId.clear();
    });
  }

  private remember(id: number, file: FileIdentity, chunks: number, origin: string): void {
    const row: PgFile = {
      id,
      source: file.source,
      path: file.path,
      size: file.size,
      mtime: file.mtime,
      ino: file.ino,
      sha256: file.sha256,
      racy: file.racy,
      chunks,
      origin,
    };
    this.log.push((c) => {
      const old = c.byId.get(id);
      if (old) c.files.delete(key(old.source, old.path));
      c.files.set(key(row.source, row.path), row);
      c.byId.set(id, row);
    });
  }

  /** A file's chunk count as of now in this transaction (committed, or changed here). */
  private readonly chunkCounts = new Map<number, number>();
  private chunksOf(id: number): number {
    return this.chunkCounts.get(id) ?? (this.cleared ? 0 : (this.cache.byId.get(id)?.chunks ?? 0));
  }

  async addFile(file: FileRecord, chunks: readonly ChunkRecord[]): Promise<number> {
    const id = await this.nextId();
    this.languages.add(file.language);
    this.fileDelta++;
    this.chunkDelta += chunks.length;
    this.inserted += chunks.length;
    this.chunkCounts.set(id, chunks.length);
    this.remember(id, file, chunks.length, this.backend.originOf(file.source));
    await this.queue({ kind: 'add', id, file, chunks }, chunks);
    return id;
  }

  async replaceFile(id: number, file: FileRecord, chunks: readonly ChunkRecord[]): Promise<void> {
    this.languages.add(file.language);
    const before = this.chunksOf(id);
    this.chunkDelta += chunks.length - before;
    this.inserted += chunks.length;
    this.deleted += before;
    this.chunkCounts.set(id, chunks.length);
    this.remember(id, file, chunks.length, this.backend.originOf(file.source));
    await this.queue({ kind: 'replace', id, file, chunks }, chunks);
  }

  async touchFile(id: number, file: FileIdentity): Promise<void> {
    const old = this.cache.byId.get(id);
    const origin = this.backend.originOf(file.source);
    const renamed = !old || old.source !== file.source || old.path !== file.path;
    const chunks = this.chunksOf(id);
    if (renamed || old.origin === origin) {
      this.remember(id, file, chunks, origin);
      await this.queue({ kind: 'touch', id, file, renamed });
    } else {
      // Same content seen from another machine's folder: record its stat beside the shared
      // row instead of rewriting it, so two machines never keep re-hashing each other's rows.
      this.remember(id, file, chunks, old.origin);
      await this.queue({ kind: 'seen', id, file });
    }
  }

  async removeFile(id: number): Promise<void> {
    const before = this.chunksOf(id);
    this.chunkDelta -= before;
    this.deleted += before;
    this.chunkCounts.set(id, 0);
    this.fileDelta--;
    this.log.push((c) => {
      const old = c.byId.get(id);
      if (old) c.files.delete(key(old.source, old.path));
      c.byId.delete(id);
    });
    await this.queue({ kind: 'remove', id });
  }

  /** Keys of the problems recorded now (committed ones, plus this transaction's changes). */
  private problemKeys: Set<string> | undefined;
  private async knownProblems(): Promise<Set<string>> {
    if (!this.problemKeys) {
      const r = await this.q(this.sql.problemKeys);
      this.problemKeys = new Set(r.rows.map((p) => key(p.source, p.path)));
    }
    return this.problemKeys;
  }

  async setProblem(problem: StoredProblem): Promise<void> {
    (await this.knownProblems()).add(key(problem.source, problem.path));
    await this.queue({ kind: 'problem', problem });
  }

  async clearProblem(source: string, path: string): Promise<void> {
    // Most files never had a problem: nothing to send for them.
    if (!(await this.knownProblems()).delete(key(source, path))) return;
    await this.queue({ kind: 'unproblem', source, path });
  }

  async builtLanguage(): Promise<Language | undefined> {
    if (!this.meta.has('built_at')) return undefined;
    return (this.meta.get('language') as Language | undefined) ?? 'simple';
  }

  async finish(summary: FinishSummary): Promise<{ files: number; chunks: number }> {
    await this.flush();
    const meta = this.meta;
    const stored = this.cleared ? undefined : meta.get('languages');
    const languages = new Set<Language>(stored ? (JSON.parse(stored) as Language[]) : []);
    for (const l of this.languages) languages.add(l);
    const before = this.cleared ? '0' : meta.get('chunk_count');
    const chunks =
      before === undefined
        ? Number((await this.q(this.sql.countChunks)).rows[0]?.n ?? 0)
        : Number(before) + this.chunkDelta;
    const entries: Array<[string, string]> = [
      ['built_at', summary.indexedAt],
      ['language', summary.language],
      ['languages', JSON.stringify([...languages].sort())],
      ['chunk_count', String(chunks)],
      ['generation', this.generation],
    ];
    await this.q(this.sql.finish, [
      summary.sources.map((s) => s.id),
      summary.sources.map((s) => s.root),
      summary.sources.map(() => summary.indexedAt),
      entries.map((e) => e[0]),
      entries.map((e) => e[1]),
    ]);
    this.finished = true;
    this.total = chunks;
    // Other machines' stat rows nobody refreshed for a month: a full reindex tidies them up.
    if (summary.full) await this.q(this.sql.pruneSeen);
    const files = (this.cleared ? 0 : this.cache.files.size) + this.fileDelta;
    return { files, chunks };
  }
}

/** The twelve column arrays of `insertFiles` / `updateFiles`. */
function fileColumns(
  rows: ReadonlyArray<{ id: number; file: FileRecord; chunks: number }>,
  originOf: (file: FileRecord) => string,
): unknown[][] {
  return [
    rows.map((r) => r.id),
    rows.map((r) => r.file.source),
    rows.map((r) => r.file.path),
    rows.map((r) => r.file.size),
    rows.map((r) => r.file.mtime),
    rows.map((r) => r.file.ino),
    rows.map((r) => r.file.sha256),
    rows.map((r) => r.file.indexedAt),
    rows.map((r) => r.file.racy),
    rows.map((r) => r.file.language),
    rows.map((r) => r.chunks),
    rows.map((r) => originOf(r.file)),
  ];
}
