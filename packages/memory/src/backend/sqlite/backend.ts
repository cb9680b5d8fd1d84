import { join, resolve } from 'node:path';
import { ToolError } from '@lectern/core';
import type Database from 'better-sqlite3';
import {
  type Averages,
  ChampionBuilder,
  eachAdmission,
  packCounts,
  termCounts,
} from '../../lib/champions.js';
import { indexBusy, MemoryError } from '../../lib/errors.js';
import type { Language } from '../../lib/language.js';
import { POSTINGS_REFOLD_SHARE } from '../../lib/postings.js';
import { mayBeCostly, timeRawQuery } from '../../lib/raw-guard.js';
import { hitFromRow } from '../hit.js';
import type {
  BackendContext,
  BackendFactory,
  ChunkRecord,
  FileIdentity,
  FileLookup,
  FileRecord,
  FinishSummary,
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
import { CHANGES_KEY, writeAllPostings } from './postings.js';
import { checkDbPath, type Db, isCorruptionError, markDamaged, openDatabase } from './schema.js';
import { type ChunkFacts, loadFacts, rankRaw, rankText } from './search.js';
import { SQL } from './sql.js';

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

const key = (source: string, path: string) => `${source}/${path}`;

type Statement = Database.Statement;

/** What the writer connection knows about the committed index, valid for one data_version. */
interface WriterCache {
  version: number;
  files: Map<string, StoredFile>;
  byId: Map<number, StoredFile>;
}

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

/** One reindex transaction: SQL now, the writer cache updated once the transaction commits. */
class SqliteWriter implements IndexWriter {
  private readonly log: Array<(cache: WriterCache) => void> = [];
  private cleared = false;
  /** Languages of the files written in this transaction. */
  private readonly languages = new Set<Language>();
  /** Chunks and files added minus removed in this transaction. */
  private chunkDelta = 0;
  private fileDelta = 0;
  /** In a full reindex: the champion lists being built from every chunk written. */
  private builder: ChampionBuilder | undefined;
  /** Chunks added and removed in an incremental reindex (see `postings.ts`). */
  private postingChanges = 0;
  /** In an incremental one: the listed terms' floors and the lists' averages (read once). */
  private admission: { floors: Map<string, number>; averages: Averages } | undefined;

  constructor(
    private readonly backend: SqliteBackend,
    private readonly cache: WriterCache,
  ) {
    // The first build of an index is a full one: it builds the champion lists too.
    if (cache.files.size === 0) this.builder = new ChampionBuilder();
  }

  private s(sql: string): Statement {
    return this.backend.writerStmt(sql);
  }

  /** Applies this transaction's changes to the cache (after COMMIT). */
  committed(): void {
    for (const apply of this.log) apply(this.cache);
  }

  async recordedSources(): Promise<Array<{ id: string; root: string }>> {
    return this.s(SQL.sources).all() as Array<{ id: string; root: string }>;
  }

  async dropSource(id: string): Promise<number> {
    let n = 0;
    for (const fileId of this.s(SQL.filesOfSource).pluck().all(id) as number[]) {
      await this.removeFile(fileId);
      n++;
    }
    this.s(SQL.deleteProblemsOfSource).run(id);
    this.s(SQL.deleteSource).run(id);
    return n;
  }

  async files(): Promise<ReadonlyMap<string, StoredFile>> {
    return this.cache.files;
  }

  async problems(): Promise<ReadonlyMap<string, StoredProblem>> {
    const out = new Map<string, StoredProblem>();
    for (const p of this.s(SQL.problems).all() as StoredProblem[])
      out.set(key(p.source, p.path), p);
    return out;
  }

  async clear(): Promise<void> {
    this.backend.writerDb.exec(SQL.ftsDeleteAll);
    this.backend.writerDb.exec(SQL.clear);
    this.cleared = true;
    this.builder = new ChampionBuilder();
    this.chunkDelta = 0;
    this.fileDelta = 0;
    this.log.push((c) => {
      c.files.clear();
      c.byId.clear();
    });
  }

  private insertChunks(fileId: number, file: FileRecord, chunks: readonly ChunkRecord[]): void {
    const insertChunk = this.s(SQL.insertChunk);
    const insertFts = this.s(SQL.ftsInsert);
    for (const c of chunks) {
      const f = c.fields;
      const id = insertChunk.run(
        fileId,
        c.startLine,
        c.endLine,
        c.startByte,
        c.endByte,
        c.headingPath,
        f.language,
        f.title.length,
        f.headings.length,
        f.body.length,
      ).lastInsertRowid;
      insertFts.run(
        id,
        f.title.terms.join(' '),
        f.headings.terms.join(' '),
        f.body.terms.join(' '),
      );
      if (this.builder) this.builder.add(Number(id), f);
      else this.admit(Number(id), c);
    }
    if (!this.builder) this.postingChanges += chunks.length;
    this.chunkDelta += chunks.length;
    this.languages.add(file.language);
  }

  /** Adds a new chunk to the champion lists it weighs enough in (`lib/champions.ts`). */
  private admit(id: number, chunk: ChunkRecord): void {
    if (!this.admission) {
      const floors = new Map<string, number>();
      for (const [term, floor] of this.s(SQL.championTerms).raw(true).all() as Array<
        [string, number]
      >) {
        floors.set(term, floor);
      }
      const stored = this.s(SQL.getMeta).pluck().get('champion_averages') as string | undefined;
      const averages = (stored ? JSON.parse(stored) : [0, 0, 0]) as Averages;
      this.admission = { floors, averages };
    }
    const { floors, averages } = this.admission;
    const insert = this.s(SQL.championInsert);
    eachAdmission(chunk.fields, floors, averages, (term, packed) => {
      insert.run(term, id, packed);
    });
    // Every listed term's postings gain the chunk (a row of its own until the blobs are rewritten).
    if (floors.size === 0) return;
    const added = this.s(SQL.postingsAddedInsert);
    for (const [term, c] of termCounts(chunk.fields)) {
      if (floors.has(term)) added.run(term, id, packCounts(c[0], c[1], c[2]));
    }
  }

  private deleteChunks(fileId: number): void {
    const ftsDelete = this.s(SQL.ftsDelete);
    const dropChampions = this.s(SQL.deleteChampionsOfChunk);
    const ids = this.s(SQL.chunkIdsOfFile).pluck().all(fileId) as number[];
    for (const id of ids) {
      ftsDelete.run(id);
      dropChampions.run(id);
    }
    this.s(SQL.deleteChunksOfFile).run(fileId);
    this.chunkDelta -= ids.length;
    if (!this.builder) this.postingChanges += ids.length;
  }

  private stored(id: number, file: FileIdentity): StoredFile {
    return {
      id,
      source: file.source,
      path: file.path,
      size: file.size,
      mtime: file.mtime,
      ino: file.ino,
      sha256: file.sha256,
      racy: file.racy,
    };
  }

  private fileRow(file: FileRecord): unknown[] {
    return [
      file.source,
      file.path,
      file.size,
      file.mtime,
      file.ino,
      file.sha256,
      file.indexedAt,
      file.racy ? 1 : 0,
      file.language,
    ];
  }

  async addFile(file: FileRecord, chunks: readonly ChunkRecord[]): Promise<number> {
    const id = Number(this.s(SQL.insertFile).run(...this.fileRow(file)).lastInsertRowid);
    this.fileDelta++;
    this.insertChunks(id, file, chunks);
    const row = this.stored(id, file);
    this.log.push((c) => {
      c.files.set(key(row.source, row.path), row);
      c.byId.set(id, row);
    });
    return id;
  }

  async replaceFile(id: number, file: FileRecord, chunks: readonly ChunkRecord[]): Promise<void> {
    this.s(SQL.updateFile).run(...this.fileRow(file), id);
    this.deleteChunks(id);
    this.insertChunks(id, file, chunks);
    this.logRow(id, file);
  }

  async touchFile(id: number, file: FileIdentity): Promise<void> {
    this.s(SQL.touchFile).run(
      file.source,
      file.path,
      file.size,
      file.mtime,
      file.ino,
      file.sha256,
      file.indexedAt,
      file.racy ? 1 : 0,
      id,
    );
    this.logRow(id, file);
  }

  private logRow(id: number, file: FileIdentity): void {
    const row = this.stored(id, file);
    this.log.push((c) => {
      const old = c.byId.get(id);
      if (old) c.files.delete(key(old.source, old.path));
      c.files.set(key(row.source, row.path), row);
      c.byId.set(id, row);
    });
  }

  async removeFile(id: number): Promise<void> {
    this.deleteChunks(id);
    this.s(SQL.deleteFile).run(id);
    this.fileDelta--;
    this.log.push((c) => {
      const old = c.byId.get(id);
      if (old) c.files.delete(key(old.source, old.path));
      c.byId.delete(id);
    });
  }

  async setProblem(p: StoredProblem): Promise<void> {
    this.s(SQL.upsertProblem).run(p.source, p.path, p.size, p.mtime, p.code, p.message);
  }

  async clearProblem(source: string, path: string): Promise<void> {
    this.s(SQL.deleteProblem).run(source, path);
  }

  async builtLanguage(): Promise<Language | undefined> {
    if (this.s(SQL.isBuilt).get() === undefined) return undefined;
    return (this.s(SQL.getMeta).pluck().get('language') as Language | undefined) ?? 'simple';
  }

  async finish(summary: FinishSummary): Promise<{ files: number; chunks: number }> {
    const db = this.backend.writerDb;
    const getMeta = this.s(SQL.getMeta).pluck();
    const setMeta = this.s(SQL.setMeta);
    const upsertSource = this.s(SQL.upsertSource);
    for (const s of summary.sources) upsertSource.run(s.id, s.root, summary.indexedAt);
    setMeta.run('built_at', summary.indexedAt);
    setMeta.run('language', summary.language);
    // Languages only ever join the list until a full reindex: a stale one costs a lookup.
    const stored = this.cleared ? undefined : (getMeta.get('languages') as string | undefined);
    const languages = new Set<Language>(stored ? (JSON.parse(stored) as Language[]) : []);
    for (const l of this.languages) languages.add(l);
    setMeta.run('languages', JSON.stringify([...languages].sort()));
    // Totals from the counts before this transaction plus its changes, without a table scan.
    const before = this.cleared ? '0' : (getMeta.get('chunk_count') as string | undefined);
    const chunks =
      before === undefined
        ? (this.s(SQL.countChunks).pluck().get() as number)
        : Number(before) + this.chunkDelta;
    const files = (this.cleared ? 0 : this.cache.files.size) + this.fileDelta;
    setMeta.run('chunk_count', String(chunks));
    if (this.builder) {
      const built = this.builder.finish();
      this.builder = undefined;
      const insert = this.s(SQL.championInsert);
      const insertTerm = this.s(SQL.championTermInsert);
      for (const list of built.lists) {
        insertTerm.run(list.term, list.floor);
        for (const e of list.entries) {
          insert.run(list.term, e.chunk, packCounts(e.title, e.headings, e.body));
        }
      }
      setMeta.run('champion_averages', JSON.stringify(built.averages));
      if (summary.full) db.exec(SQL.ftsOptimize);
      writeAllPostings(
        (sql) => this.s(sql),
        built.lists.map((l) => l.term),
      );
      return { files, chunks };
    }
    if (summary.full) db.exec(SQL.ftsOptimize);
    this.refoldPostings(chunks);
    return { files, chunks };
  }

  /**
   * Counts this reindex's chunk changes against the postings blobs and rewrites the blobs once
   * the changes since they were written pass {@link POSTINGS_REFOLD_SHARE} of the index: rows
   * added since, and removed chunks' entries, would otherwise make every read longer.
   */
  private refoldPostings(chunks: number): void {
    if (this.postingChanges === 0) return;
    const stored = Number(this.s(SQL.getMeta).pluck().get(CHANGES_KEY) ?? 0);
    const changes = stored + this.postingChanges;
    this.postingChanges = 0;
    if (changes <= POSTINGS_REFOLD_SHARE * chunks) {
      this.s(SQL.setMeta).run(CHANGES_KEY, String(changes));
      return;
    }
    const terms = this.s(SQL.championTerms).pluck().all() as string[];
    writeAllPostings((sql) => this.s(sql), terms);
  }
}
