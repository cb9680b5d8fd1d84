import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ToolError } from '@lectern/core';
import type * as Pg from 'pg';
import { indexBusy, MemoryError } from '../../lib/errors.js';
import { RAW_BUDGET_MS, rawTooSlow } from '../../lib/raw-guard.js';
import {
  type BackendContext,
  type BackendFactory,
  type FileLookup,
  type IndexStatus,
  type IndexWriter,
  type MemoryBackend,
  RawQueryError,
  type SearchPage,
  type SearchRequest,
  type UpdateOptions,
} from '../types.js';
import {
  loadDriver,
  type PostgresBackendOptions,
  poolConfig,
  RAISE_WORK_MEM,
  redactUrl,
  splitUrl,
} from './driver.js';
import { type FileRow, key, type PgFile, toFile, type WriterCache } from './rows.js';
import { DEFAULT_SCHEMA, LOCK_CLASS, migrate, type Names, namesOf } from './schema.js';
import { IndexMoved, PgSearch } from './search.js';
import { type Statements, statements } from './sql.js';
import { PgWriter } from './writer.js';

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

function cancelled(): MemoryError {
  return new MemoryError('CANCELLED', 'the reindex was cancelled; the index is unchanged.');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  private readonly searcher: PgSearch;
  private cache: WriterCache | undefined;
  private readonly rawBudgetMs: number;
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
    const budget = options.rawBudgetMs ?? RAW_BUDGET_MS;
    if (!Number.isInteger(budget) || budget < 1) {
      throw new ToolError(
        'INVALID_OPTIONS',
        `rawBudgetMs must be a whole number of milliseconds of at least 1, got ${JSON.stringify(budget)}.`,
      );
    }
    this.rawBudgetMs = budget;
    this.origins = new Map(context.sources.map((s) => [s.id, `${machine}:${s.root}`]));
    this.originSources = [...this.origins.keys()];
    this.originValues = [...this.origins.values()];
    this.searcher = new PgSearch(names, this.sql, this.originSources, this.originValues);
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

  /**
   * Runs `fn` in one read-only snapshot (every statement sees the same committed index), its
   * statements bounded by `statement_timeout` when `timeoutMs` is given (set in the same round
   * trip as the BEGIN).
   */
  private snapshot<T>(fn: (c: Pg.PoolClient) => Promise<T>, timeoutMs?: number): Promise<T> {
    return this.use(async () => {
      const c = await this.pool.connect();
      let broken = false;
      try {
        await c.query(
          timeoutMs === undefined
            ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
            : `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`,
        );
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
   * A search sends four or five statements without a transaction (totals, frequencies, one or
   * two candidate look-ups, the page's details), each seeing the index as last committed. The
   * first and the last read the index generation: when a reindex committed in between, the page
   * may mix two indexes, and the search runs again in one read-only snapshot. A path filter
   * reads the file list first, so that case runs in the snapshot from the start; so does a raw
   * expression, its statements under the raw time budget (`statement_timeout`).
   */
  search(request: SearchRequest): Promise<SearchPage> {
    if (request.query.kind === 'raw') {
      // A raw expression can cost far more than its words (prefix terms, phrase distances):
      // every statement of it runs under the budget, and one stopped by it is QUERY_TOO_SLOW.
      return this.snapshot(async (c) => {
        try {
          return await this.searcher.search((q) => c.query(q), request);
        } catch (error) {
          if ((error as { code?: string }).code === '57014') throw rawTooSlow(this.rawBudgetMs);
          throw error;
        }
      }, this.rawBudgetMs);
    }
    if (request.pathFilter) {
      return this.snapshot((c) => this.searcher.search((q) => c.query(q), request));
    }
    return this.use(() => this.searcher.search((q) => this.pool.query(q), request)).catch(
      (error: unknown) => {
        // Its statements saw two generations of the index: once more, in one snapshot.
        if (!(error instanceof IndexMoved)) throw error;
        return this.snapshot((c) => this.searcher.search((q) => c.query(q), request));
      },
    );
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
        throw indexBusy(options.busyTimeoutMs);
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
          // The term index's pending list (GIN's fast update) holds the new chunks' entries
          // until a VACUUM or an autovacuum moves them, and each search reads it in full until
          // then (bench notes: 372 pages after a first build, query p95 22.5 -> 17.6 ms once
          // moved; 153 pages after 100 one-note reindexes, 16.7 -> 15.2 ms). Moved now after a
          // bulk addition, in the background after a small one.
          if (upkeep !== undefined) await this.movePending(c);
          else if (writer.wroteChunks) this.movePendingSoon();
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

  /** The chunk, file and champion-list tables, as ANALYZE and VACUUM name them. */
  private get tables(): string {
    return `${this.n.s}.chunks, ${this.n.s}.files, ${this.n.s}.champions, ${this.n.s}.champions_added`;
  }

  /** Moves the term index's pending list into the index; never fatal (it needs the index's owner). */
  private async movePending(c: Pg.PoolClient): Promise<void> {
    await c
      .query('SELECT gin_clean_pending_list($1::regclass)', [`${this.n.s}.chunks_terms`])
      .catch(() => {});
  }

  /** Whether a {@link movePendingSoon} is queued and not started yet. */
  private pendingQueued = false;

  /** {@link movePending} on a pooled connection of its own, after the reindex has returned. */
  private movePendingSoon(): void {
    if (this.pendingQueued) return;
    this.pendingQueued = true;
    this.inBackground(async (c) => {
      this.pendingQueued = false;
      await this.movePending(c);
    });
  }

  /** Runs `work` on a pooled connection after the upkeep queued before it; never fatal. */
  private inBackground(work: (c: Pg.PoolClient) => Promise<void>): void {
    this.maintenance = this.maintenance
      .then(async () => {
        const c = await this.pool.connect();
        try {
          await work(c);
        } finally {
          c.release();
        }
      })
      .catch(() => {});
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
    this.inBackground(async (c) => {
      await c.query(`VACUUM (ANALYZE, SKIP_LOCKED) ${this.tables}`);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ready.catch(() => {});
    await this.maintenance;
    await this.pool.end().catch(() => {});
  }
}
