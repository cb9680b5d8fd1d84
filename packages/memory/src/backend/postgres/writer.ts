import type * as Pg from 'pg';
import type { Language } from '../../lib/language.js';
import type {
  ChunkRecord,
  FileIdentity,
  FileRecord,
  FinishSummary,
  IndexWriter,
  StoredFile,
  StoredProblem,
} from '../types.js';
import { ChampionWriter } from './champions.js';
import { chunkColumns, fileColumns, key, type PgFile, type WriterCache } from './rows.js';
import type { Statements } from './sql.js';

/** File ids taken from the sequence in a reindex's first round trip for them. */
const ID_BATCH = 256;
/** Most file ids fetched in one round trip. */
const ID_BATCH_MAX = 4096;
/** Chunks (or text bytes) buffered before they are sent in one statement. */
const FLUSH_CHUNKS = 2000;
const FLUSH_BYTES = 8 * 1024 * 1024;

/** What a writer needs of its backend. */
export interface WriterHost {
  /** The backend's statements. */
  readonly statements: Statements;
  /** The origin (machine and folder) of a source. */
  originOf(source: string): string;
}

type Op =
  | {
      kind: 'add';
      id: number;
      file: FileRecord;
      chunks: readonly ChunkRecord[];
      ids: number[] | undefined;
    }
  | {
      kind: 'replace';
      id: number;
      file: FileRecord;
      chunks: readonly ChunkRecord[];
      ids: number[] | undefined;
    }
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
export class PgWriter implements IndexWriter {
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

  /** Whether this transaction wrote any chunk row (entries for the term index's pending list). */
  get wroteChunks(): boolean {
    return this.inserted > 0;
  }

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
    private readonly backend: WriterHost,
    private readonly c: Pg.PoolClient,
    private readonly cache: WriterCache,
    /** The index's meta rows as this transaction found them. */
    private readonly meta: ReadonlyMap<string, string>,
    /** The generation this transaction commits. */
    readonly generation: string,
  ) {
    this.sql = backend.statements;
    this.champions = new ChampionWriter(
      (text, values) => this.q(text, values),
      this.sql.champions,
      meta,
      cache.files.size === 0,
    );
  }

  /** The champion lists kept in step with the chunks written. */
  private readonly champions: ChampionWriter;

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

  /** Chunk ids reserved from the sequence and not used yet: `next` up to `end` (excluded). */
  private chunkIds = { next: 0, end: 0 };
  /** The reservation of {@link chunkIds} under way, if any. */
  private reserving: Promise<void> | undefined;

  /**
   * Ids for a file's chunks in a rebuild: the writer numbers them itself, as it queues them, so
   * that the champion lists are built from each chunk as it is queued (in write order), while
   * the server writes the previous batch. (Otherwise the sequence numbers them on insert.) A
   * range is reserved at once, twice the chunks the index had (a round trip waits behind the
   * batch being written).
   */
  private async nextChunkIds(n: number): Promise<number[]> {
    const ids = this.chunkIds;
    while (ids.end - ids.next < n) {
      // One reservation at a time: the files read concurrently all wait for it (each of them
      // reserving its own range cost a round trip behind the batch being written, 65 in a
      // first build of 54k chunks instead of 13).
      this.reserving ??= (async () => {
        const want = Math.max(n, 4096, 2 * Number(this.meta.get('chunk_count') ?? 0));
        const r = await this.q(this.sql.reserveChunkIds, [want]);
        ids.next = Number(r.rows[0]!.first);
        ids.end = ids.next + want;
      })().finally(() => {
        this.reserving = undefined;
      });
      await this.reserving;
    }
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(ids.next++);
    return out;
  }

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
      // A rebuild's champion lists take the queued chunks, while the previous batch is written.
      this.champions.drain();
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
    list: ReadonlyArray<{
      id: number;
      file: FileRecord;
      chunks: readonly ChunkRecord[];
      ids: readonly number[] | undefined;
    }>,
  ): Promise<void> {
    // Chunks the writer numbered (a rebuild), then those the sequence numbers.
    for (const numbered of [true, false]) {
      const { cols, fields } = chunkColumns(list, numbered);
      if (cols[0]!.length === 0) continue;
      if (numbered) {
        await this.q(this.sql.insertChunks, cols);
        continue;
      }
      const rows = (await this.q(this.sql.insertChunksNumbered, cols)).rows as Array<{
        id: string | null;
        file_id: string | null;
        start_line: number | null;
        term: string | null;
        floor: number | null;
      }>;
      const floors = new Map<string, number>();
      const written: Array<{ id: number; fields: ChunkRecord['fields'] }> = [];
      for (const r of rows) {
        if (r.term !== null) floors.set(r.term, Number(r.floor));
        else
          written.push({ id: Number(r.id), fields: fields.get(`${r.file_id}:${r.start_line}`)! });
      }
      // In the order written (ids from the sequence grow).
      written.sort((a, b) => a.id - b.id);
      await this.champions.written(written, floors);
    }
  }

  // ------------------------------------------------------------ IndexWriter

  async recordedSources(): Promise<Array<{ id: string; root: string }>> {
    await this.flush();
    return (await this.q(this.sql.sources)).rows.map((r) => ({ id: r.id, root: r.root }));
  }

  async dropSource(id: string): Promise<number> {
    this.champions.removing();
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
    this.champions.clear();
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
    const ids = this.champions.building ? await this.nextChunkIds(chunks.length) : undefined;
    if (ids) this.champions.queued(ids, chunks);
    await this.queue({ kind: 'add', id, file, chunks, ids }, chunks);
    return id;
  }

  async replaceFile(id: number, file: FileRecord, chunks: readonly ChunkRecord[]): Promise<void> {
    this.champions.removing();
    this.languages.add(file.language);
    const before = this.chunksOf(id);
    this.chunkDelta += chunks.length - before;
    this.inserted += chunks.length;
    this.deleted += before;
    this.chunkCounts.set(id, chunks.length);
    this.remember(id, file, chunks.length, this.backend.originOf(file.source));
    const ids = this.champions.building ? await this.nextChunkIds(chunks.length) : undefined;
    if (ids) this.champions.queued(ids, chunks);
    await this.queue({ kind: 'replace', id, file, chunks, ids }, chunks);
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
    this.champions.removing();
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
    const flushed = this.flush();
    // A rebuild's champion lists are made while the server writes the last batch.
    this.champions.prepare();
    await flushed;
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
    entries.push(...(await this.champions.finish()));
    await this.q(this.sql.finish, [
      summary.sources.map((s) => s.id),
      summary.sources.map((s) => s.root),
      summary.sources.map(() => summary.indexedAt),
      entries.map((e) => e[0]),
      entries.map((e) => e[1]),
    ]);
    this.finished = true;
    this.total = chunks;
    // Terms whose last chunk went: searches skip them (df 0); a rebuild or a large change
    // sweeps them out.
    if (summary.full || this.deleted > 1000) await this.q(this.sql.dropUnusedTerms);
    // Other machines' stat rows nobody refreshed for a month: a full reindex tidies them up.
    if (summary.full) await this.q(this.sql.pruneSeen);
    const files = (this.cleared ? 0 : this.cache.files.size) + this.fileDelta;
    return { files, chunks };
  }
}
