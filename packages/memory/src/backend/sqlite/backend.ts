import { join, resolve } from 'node:path';
import { ToolError } from '@lectern/core';
import type Database from 'better-sqlite3';
import { indexBusy, MemoryError } from '../../lib/errors.js';
import type { Language } from '../../lib/language.js';
import { mayBeCostly, timeRawQuery } from '../../lib/raw-guard.js';
import { hitFromRow } from '../hit.js';
import type {
  BackendContext,
  BackendFactory,
  FileLookup,
  IndexStatus,
  IndexWriter,
  MemoryBackend,
  SearchHit,
  SearchPage,
  SearchRequest,
  StoredFile,
  StoredProblem,
  UpdateOptions,
} from '../types.js';
import { checkDbPath, type Db, isCorruptionError, markDamaged, openDatabase } from './schema.js';
import { type ChunkFacts, loadFacts, rankRaw, rankText } from './search.js';
import { SQL } from './sql.js';
import { key, SqliteWriter, type WriterCache } from './writer.js';

/** Options of {@link sqliteBackend}. */
export interface SqliteBackendOptions {
  /** Database file; default `<first source>/.lectern/memory.db`. */
  path?: string;
}

/**
 * The embedded SQLite backend (the default): one database file in WAL mode with two
 * connections, a reader for searches and a writer for reindexes, so searches keep reading the
 * last committed index while a reindex runs, in this process or another.
 */
export function sqliteBackend(options: SqliteBackendOptions = {}): BackendFactory {
  return (context) => {
    const first = context.sources[0];
    const path = resolve(
      options.path ?? context.dbPath ?? join(first?.root ?? '.', '.lectern', 'memory.db'),
    );
    // A database among the notes would be moved aside as damaged and replaced: refuse it first.
    checkDbPath(
      path,
      context.sources.map((s) => s.root),
    );
    return new SqliteBackend(path, context);
  };
}

type Statement = Database.Statement;

function cancelled(): MemoryError {
  return new MemoryError('CANCELLED', 'the reindex was cancelled; the index is unchanged.');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

class SqliteBackend implements MemoryBackend {
  readonly location: string;
  private readonly reader: Db;
  private readonly writer: Db;
  private readonly defaultLanguage: Language;
  private notes: string[];
  private closed = false;
  private cache: WriterCache | undefined;
  private facts: ChunkFacts | undefined;
  private readonly statements = new Map<Db, Map<string, Statement>>();

  constructor(path: string, context: BackendContext) {
    this.location = path;
    this.defaultLanguage = context.language;
    const opened = openDatabase(path);
    this.reader = opened.reader;
    this.writer = opened.writer;
    // A reindex waits for another process's writer with its own async retry loop.
    this.writer.pragma('busy_timeout = 0');
    this.notes = opened.warnings;
  }

  /** A prepared statement, compiled once per connection. */
  private stmt(db: Db, sql: string): Statement {
    let map = this.statements.get(db);
    if (!map) {
      map = new Map();
      this.statements.set(db, map);
    }
    let s = map.get(sql);
    if (!s) {
      s = db.prepare(sql);
      map.set(sql, s);
    }
    return s;
  }

  private assertOpen(): void {
    if (this.closed) throw new MemoryError('STORE_CLOSED', 'the memory store has been closed.');
  }

  private mapDbError(error: unknown): unknown {
    if (isCorruptionError(error)) {
      markDamaged(this.location, (error as Error).message);
      return new ToolError(
        'INDEX_CORRUPT',
        `the memory database ${this.location} is damaged (${(error as Error).message}). Restart the server (a damaged database is detected and rebuilt on start), or delete the file.`,
      );
    }
    return error;
  }

  /** Runs a read-only function inside one read transaction (one consistent snapshot). */
  private snapshot<T>(fn: () => T): T {
    this.assertOpen();
    try {
      return this.reader.transaction(fn).deferred();
    } catch (error) {
      throw this.mapDbError(error);
    }
  }

  warnings(): readonly string[] {
    return this.notes;
  }

  clearWarnings(): void {
    this.notes = [];
  }

  async isBuilt(): Promise<boolean> {
    return this.snapshot(() => this.stmt(this.reader, SQL.isBuilt).get() !== undefined);
  }

  // ---------------------------------------------------------------- search

  /**
   * Times a raw expression in a child process first (better-sqlite3 cannot interrupt a query),
   * when it can be costly: prefix terms and NEAR expand and compare positions; plain words,
   * phrases, boolean operators and column filters only merge the words' lists.
   */
  async checkRaw(text: string): Promise<void> {
    if (!mayBeCostly(text)) return;
    await timeRawQuery(this.location, text);
  }

  async search(request: SearchRequest): Promise<SearchPage> {
    return this.snapshot(() => this.searchLocked(request));
  }

  /** The ranking's facts about every chunk, reloaded when another connection committed. */
  private chunkFacts(): ChunkFacts {
    const r = this.reader;
    const version = this.stmt(r, SQL.dataVersion).pluck().get() as number;
    if (this.facts?.version === version) return this.facts;
    this.facts = loadFacts(
      version,
      (sql) => this.stmt(r, sql),
      (k) => this.stmt(r, SQL.getMeta).pluck().get(k) as string | undefined,
    );
    return this.facts;
  }

  private searchLocked(request: SearchRequest): SearchPage {
    const r = this.reader;
    let allowed: ((fileId: number) => boolean) | undefined;
    if (request.pathFilter || request.source !== undefined) {
      const rows = (
        request.source === undefined
          ? this.stmt(r, SQL.filesForFilter).raw(true).all()
          : this.stmt(r, SQL.filesForFilterOfSource).raw(true).all(request.source)
      ) as Array<[number, string, string]>;
      const keep = request.pathFilter;
      const ids = new Set(rows.filter(([, s, p]) => !keep || keep(s, p)).map(([id]) => id));
      allowed = (id) => ids.has(id);
    }
    const facts = this.chunkFacts();
    const stmt = (sql: string) => this.stmt(r, sql);
    const need = request.offset + request.limit + 1;
    const ranked =
      request.query.kind === 'raw'
        ? rankRaw(request.query.text, facts, stmt, allowed, need)
        : rankText(request.query.text, facts, stmt, allowed, need);
    const rows = ranked.rows;
    const page = rows.slice(request.offset, request.offset + request.limit);
    const details = new Map<number, Record<string, unknown>>();
    if (page.length > 0) {
      const info = this.stmt(r, SQL.hitDetails).all(JSON.stringify(page.map((p) => p.id)));
      for (const row of info as Array<Record<string, unknown> & { id: number }>) {
        details.set(row.id, row);
      }
    }
    const hits: SearchHit[] = [];
    for (const p of page) {
      const d = details.get(p.id);
      if (!d) continue;
      hits.push(hitFromRow(d, p.score));
    }
    const words = ranked.plan?.clauses.filter((c) => c.kind === 'word').map((c) => c.surface[0]!);
    return {
      match: ranked.match,
      expression: ranked.expression,
      hits,
      more: rows.length > request.offset + request.limit,
      forms: [],
      formsOf:
        words && words.length > 0
          ? facts.queryLanguages.map((language) => ({ language, words }))
          : [],
      capped: ranked.capped,
      cappedPhrases: ranked.cappedPhrases,
    };
  }

  // ---------------------------------------------------------------- reads

  async lookup(source: string, path: string): Promise<FileLookup> {
    return this.snapshot(() => {
      const row = this.stmt(this.reader, SQL.fileByPath).get(source, path) as
        | (Omit<StoredFile, 'racy'> & { racy: number })
        | undefined;
      if (row) return { kind: 'file', file: { ...row, racy: row.racy !== 0 } };
      const problem = this.stmt(this.reader, SQL.problemByPath).get(source, path) as
        | StoredProblem
        | undefined;
      return problem ? { kind: 'problem', problem } : { kind: 'none' };
    });
  }

  async paths(source: string): Promise<string[]> {
    return this.snapshot(
      () => this.stmt(this.reader, SQL.pathsOfSource).pluck().all(source) as string[],
    );
  }

  async status(): Promise<IndexStatus> {
    return this.snapshot(() => {
      const r = this.reader;
      return {
        built: this.stmt(r, SQL.isBuilt).get() !== undefined,
        files: this.stmt(r, SQL.fileStatus).all() as IndexStatus['files'],
        chunks: new Map(
          (this.stmt(r, SQL.chunksPerSource).all() as Array<{ source: string; n: number }>).map(
            (c) => [c.source, c.n],
          ),
        ),
        problems: this.stmt(r, SQL.problemStatus).all() as IndexStatus['problems'],
        sources: (
          this.stmt(r, SQL.sources).all() as Array<{
            id: string;
            root: string;
            indexed_at: string | null;
          }>
        ).map((s) => ({ id: s.id, root: s.root, indexedAt: s.indexed_at })),
      };
    });
  }

  // ---------------------------------------------------------------- writes

  /** BEGIN IMMEDIATE on the writer, retrying without blocking while another process writes. */
  private async begin(options: UpdateOptions): Promise<void> {
    const deadline = Date.now() + options.busyTimeoutMs;
    let wait = 10;
    for (;;) {
      try {
        this.writer.exec('BEGIN IMMEDIATE');
        return;
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (!code.startsWith('SQLITE_BUSY') && !code.startsWith('SQLITE_LOCKED')) {
          throw this.mapDbError(error);
        }
        if (Date.now() >= deadline) {
          throw indexBusy(options.busyTimeoutMs);
        }
        if (options.signal?.aborted) throw cancelled();
        await sleep(wait);
        wait = Math.min(wait * 2, 200);
        this.assertOpen();
      }
    }
  }

  /** The writer's view of the committed files, reloaded when another connection committed. */
  private writerCache(): WriterCache {
    const version = this.stmt(this.writer, SQL.dataVersion).pluck().get() as number;
    if (this.cache?.version === version) return this.cache;
    const files = new Map<string, StoredFile>();
    const byId = new Map<number, StoredFile>();
    for (const [id, source, path, size, mtime, ino, sha256, racy] of this.stmt(
      this.writer,
      SQL.allFiles,
    )
      .raw(true)
      .all() as Array<[number, string, string, number, number, number, string, number]>) {
      const f: StoredFile = { id, source, path, size, mtime, ino, sha256, racy: racy !== 0 };
      files.set(key(source, path), f);
      byId.set(id, f);
    }
    this.cache = { version, files, byId };
    return this.cache;
  }

  async update<T>(work: (writer: IndexWriter) => Promise<T>, options: UpdateOptions): Promise<T> {
    this.assertOpen();
    if (options.signal?.aborted) throw cancelled();
    await this.begin(options);
    const w = this.writer;
    try {
      const cache = this.writerCache();
      const writer = new SqliteWriter(this, cache);
      const result = await work(writer);
      if (options.signal?.aborted) throw cancelled();
      w.exec('COMMIT');
      writer.committed();
      return result;
    } catch (error) {
      if (w.open && w.inTransaction) w.exec('ROLLBACK');
      throw this.mapDbError(error);
    }
  }

  /** @internal For {@link SqliteWriter}. */
  writerStmt(sql: string): Statement {
    return this.stmt(this.writer, sql);
  }

  /** @internal For {@link SqliteWriter}. */
  get writerDb(): Db {
    return this.writer;
  }

  /** @internal The language of notes that declare none. */
  get language(): Language {
    return this.defaultLanguage;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.reader.close();
    this.writer.close();
  }
}
