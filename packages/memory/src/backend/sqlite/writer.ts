import type Database from 'better-sqlite3';
import {
  type Averages,
  ChampionBuilder,
  eachAdmission,
  packCounts,
  termCounts,
} from '../../lib/champions.js';
import type { Language } from '../../lib/language.js';
import { POSTINGS_REFOLD_SHARE, postingsTerms } from '../../lib/postings.js';
import type {
  ChunkRecord,
  FileIdentity,
  FileRecord,
  FinishSummary,
  IndexWriter,
  StoredFile,
  StoredProblem,
} from '../types.js';
import { CHANGES_KEY, writeAllPostings } from './postings.js';
import type { Db } from './schema.js';
import { SQL } from './sql.js';

type Statement = Database.Statement;

/** A file's key in the writer cache. */
export const key = (source: string, path: string) => `${source}/${path}`;

/** What the writer connection knows about the committed index, valid for one data_version. */
export interface WriterCache {
  version: number;
  files: Map<string, StoredFile>;
  byId: Map<number, StoredFile>;
}

/** What a {@link SqliteWriter} needs of its backend: the writer connection. */
export interface WriterHost {
  writerStmt(sql: string): Statement;
  readonly writerDb: Db;
}

/** One reindex transaction: SQL now, the writer cache updated once the transaction commits. */
export class SqliteWriter implements IndexWriter {
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
  /** In an incremental reindex: the terms that have postings (read once). */
  private postingTerms: Set<string> | undefined;
  /** In an incremental one: the listed terms' floors and the lists' averages (read once). */
  private admission: { floors: Map<string, number>; averages: Averages } | undefined;

  constructor(
    private readonly backend: WriterHost,
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

  /**
   * Adds a new chunk to the champion lists it weighs enough in (`lib/champions.ts`) and to the
   * postings of the terms that have them (`postings.ts`).
   */
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
    const counts = termCounts(chunk.fields);
    eachAdmission(
      chunk.fields,
      floors,
      averages,
      (term, packed) => {
        insert.run(term, id, packed);
      },
      counts,
    );
    // Every term with postings gains the chunk (a row of its own until the blobs are rewritten).
    this.postingTerms ??= new Set(this.s(SQL.postingsTerms).pluck().all() as string[]);
    if (this.postingTerms.size === 0) return;
    const added = this.s(SQL.postingsAddedInsert);
    for (const [term, c] of counts) {
      if (this.postingTerms.has(term)) added.run(term, id, packCounts(c[0], c[1], c[2]));
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

  /** A file's columns as `touchFile` writes them (identity, hash, indexing time). */
  private identityRow(file: FileIdentity): unknown[] {
    return [
      file.source,
      file.path,
      file.size,
      file.mtime,
      file.ino,
      file.sha256,
      file.indexedAt,
      file.racy ? 1 : 0,
    ];
  }

  /** A file's columns as `insertFile` and `updateFile` write them (its language too). */
  private fileRow(file: FileRecord): unknown[] {
    return [...this.identityRow(file), file.language];
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
    this.s(SQL.touchFile).run(...this.identityRow(file), id);
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
      const frequent = postingsTerms(this.builder.frequencies(), chunks);
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
      writeAllPostings((sql) => this.s(sql), frequent);
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
    const terms = this.s(SQL.postingsTerms).pluck().all() as string[];
    writeAllPostings((sql) => this.s(sql), terms);
  }
}
