import type { Language } from '@lectern/text';
import type { AnalysedChunk } from '../lib/analysis.js';

/**
 * The storage side of a memory store: where the index lives and how it is queried. The store
 * (`createMemory`) does everything that does not depend on the database — option and input
 * checks, walking and reading the notes, chunking, hashing, citations, stale flags, snippets,
 * fragments — and asks a backend only for what is stored. So two backends (the embedded
 * SQLite one, a shared PostgreSQL one) give the same tools, inputs, results and errors, and
 * the shared suite (`test-helpers/suite.ts`) runs unchanged against each.
 *
 * Every method is async. Reads each see one consistent, committed state of the index; a
 * reindex changes it in one write transaction ({@link MemoryBackend.update}), so a search
 * running meanwhile sees every note either as it was or as it is after the reindex.
 */
export interface MemoryBackend {
  /** Where the index lives, for messages and `MemoryStore.dbPath` (never a password). */
  readonly location: string;
  /**
   * True when stores on several machines share this index (a database server): a source is
   * then known by its id alone, since each machine has the notes in a folder of its own, and a
   * source indexed from another folder is the same source, not a moved one. False or absent
   * for an index kept beside the notes (SQLite): there a source whose folder changed is
   * indexed again from scratch.
   */
  readonly sharedAcrossMachines?: boolean;
  /** Notes about what opening had to repair (a damaged index replaced, an old schema cleared). */
  warnings(): readonly string[];
  /** Forgets the opening notes: called once a reindex has rebuilt what they were about. */
  clearWarnings(): void;
  /** True once a reindex has committed at least once. */
  isBuilt(): Promise<boolean>;
  /** One page of ranked chunks for a query (see {@link SearchRequest}). */
  search(request: SearchRequest): Promise<SearchPage>;
  /**
   * Checks a raw expression before {@link search} runs it, where the backend cannot stop a
   * query itself: `QUERY_TOO_SLOW` past a time budget, {@link RawQueryError} for bad syntax.
   */
  checkRaw?(text: string): Promise<void>;
  /** What the index holds about one file: its row, or why the last reindex rejected it. */
  lookup(source: string, path: string): Promise<FileLookup>;
  /** Paths of every indexed file of a source (for "did you mean" suggestions). */
  paths(source: string): Promise<string[]>;
  /** Everything `listSources` reports, read in one snapshot. */
  status(): Promise<IndexStatus>;
  /**
   * Runs `work` inside one write transaction and commits when it resolves; rolls back when it
   * throws or `signal` aborts (`CANCELLED`). Waits, without blocking the event loop, while
   * another process holds the index, for at most `busyTimeoutMs` (`INDEX_BUSY`).
   */
  update<T>(work: (writer: IndexWriter) => Promise<T>, options: UpdateOptions): Promise<T>;
  /** Closes connections; later calls fail. */
  close(): Promise<void>;
}

/** Options of {@link MemoryBackend.update}. */
export interface UpdateOptions {
  signal?: AbortSignal;
  busyTimeoutMs: number;
}

/** Opens a backend for a store; called once by `createMemory`, synchronously. */
export type BackendFactory = (context: BackendContext) => MemoryBackend;

/** What a backend is told when it is opened. */
export interface BackendContext {
  /** The configured sources: id and real folder path, in configuration order. */
  sources: ReadonlyArray<{ id: string; root: string }>;
  /** The `dbPath` option, if given. */
  dbPath: string | undefined;
  /** Language of notes that declare none (see `MemoryOptions.language`). */
  language: Language;
}

/**
 * A search, in backend-neutral terms. `text` is the user's question (never backend syntax);
 * `raw` is text in the backend's own query language, passed through with its words analysed
 * the way the index analysed the notes.
 *
 * Semantics every backend implements for `text` (see `lib/rank.ts`, which does the deciding):
 * 1. The question is read with `@lectern/text`'s `analyzeQuery` in every language the index
 *    holds, and reduced to its informative clauses by `planQuery` (stop words and very common
 *    words left out when rarer ones are left), with document frequencies the backend keeps.
 * 2. Every chunk holding at least one clause (in the chunk's own language) is a candidate; its
 *    per-field frequencies of each clause go to `scoreCandidates`, which ranks by BM25F.
 * 3. A raw query's matches are ranked the same way, by the words it contains.
 */
export interface SearchRequest {
  query: { kind: 'text'; text: string } | { kind: 'raw'; text: string };
  /** Only chunks of this source. */
  source?: string;
  /** Only chunks of files for which this returns true. */
  pathFilter?: (source: string, path: string) => boolean;
  /** Hits per page. */
  limit: number;
  /** Hits to skip. */
  offset: number;
}

/** One ranked chunk. */
export interface SearchHit {
  source: string;
  path: string;
  startLine: number;
  endLine: number;
  /** Byte range of the chunk in the file as indexed: `[startByte, endByte)`. */
  startByte: number;
  endByte: number;
  headingPath: string;
  /** Relevance (BM25F), higher is better. */
  score: number;
  /** The language the chunk was indexed in (its snippet marks word forms in it). */
  language?: Language;
  /** SHA-256 of the file as indexed. */
  version: string;
  /** Size and modification time of the file as indexed (for the stale flag). */
  size: number;
  mtime: number;
}

/** How a search combined its terms. */
export type SearchMatch = 'all' | 'any' | 'raw';

/** One page of a search. */
export interface SearchPage {
  match: SearchMatch;
  /** The query that ran, in the backend's syntax (shown to users as `fts_query`). */
  expression: string;
  hits: SearchHit[];
  /** True when hits follow this page. */
  more: boolean;
  /** Other word forms (folded) the search matched besides the query's words, for highlighting. */
  forms: string[];
  /**
   * Words of the query whose forms match by stem: snippets mark every word with the same
   * Snowball stem in that language.
   */
  formsOf?: ReadonlyArray<{ language: Language; words: readonly string[] }>;
  /** True when a raw query matched more than `MAX_RANKED_CHUNKS` chunks, of which that many were ranked. */
  capped?: boolean;
  /**
   * Phrases of the query found in more than `championTuning.phraseCap` chunks: for each, the most
   * recently indexed that many of them were ranked (as the phrase's words typed).
   */
  cappedPhrases?: string[];
}

/** Thrown by {@link MemoryBackend.search} for a raw query the backend cannot parse. */
export class RawQueryError extends Error {
  constructor(
    message: string,
    /** The query language the backend speaks, for the message (`FTS5`, `PostgreSQL tsquery`). */
    readonly syntax = 'FTS5',
  ) {
    super(message);
    this.name = 'RawQueryError';
  }
}

/** A file as the index holds it. */
export interface StoredFile {
  id: number;
  source: string;
  path: string;
  size: number;
  /**
   * Change time in milliseconds (fractional): the later of mtime and ctime (`changeTime` in
   * lib/walk.ts), so an edit that restores the mtime is still seen.
   */
  mtime: number;
  /** Inode number (0 when unknown). */
  ino: number;
  sha256: string;
  /** True when it was indexed so soon after a change that its mtime cannot be trusted. */
  racy: boolean;
}

/** A file the last reindex could not index, and why. */
export interface StoredProblem {
  source: string;
  path: string;
  size: number;
  mtime: number;
  code: string;
  message: string;
}

/** What {@link MemoryBackend.lookup} found. */
export type FileLookup =
  | { kind: 'file'; file: StoredFile }
  | { kind: 'problem'; problem: StoredProblem }
  | { kind: 'none' };

/** What {@link MemoryBackend.status} reports. */
export interface IndexStatus {
  built: boolean;
  /** Every indexed file (size and mtime as indexed). */
  files: ReadonlyArray<Pick<StoredFile, 'source' | 'path' | 'size' | 'mtime'>>;
  /** Chunk count per source id. */
  chunks: ReadonlyMap<string, number>;
  problems: ReadonlyArray<Pick<StoredProblem, 'source' | 'path' | 'size' | 'mtime'>>;
  /** Sources as recorded by the last reindex. */
  sources: ReadonlyArray<{ id: string; root: string; indexedAt: string | null }>;
}

/** Where a file is and what it was when indexed. */
export interface FileIdentity {
  source: string;
  path: string;
  size: number;
  mtime: number;
  ino: number;
  sha256: string;
  /** When it was indexed (ISO 8601). */
  indexedAt: string;
  racy: boolean;
}

/** A file to store with its chunks: its identity and the language it was indexed in. */
export interface FileRecord extends FileIdentity {
  language: Language;
}

/** One chunk to store. */
export interface ChunkRecord {
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  headingPath: string;
  /** The chunk's text: indexed, not necessarily kept. */
  text: string;
  /** Its fields analysed in the note's language (`lib/analysis.ts`): what the index holds. */
  fields: AnalysedChunk;
}

/**
 * Changes to the index inside one {@link MemoryBackend.update} transaction. Reads return the
 * state at the start of the transaction plus this transaction's own changes.
 */
export interface IndexWriter {
  /** Sources recorded by earlier reindexes, with the folder each was indexed from. */
  recordedSources(): Promise<Array<{ id: string; root: string }>>;
  /** Removes a source's files, chunks, problems and record; returns the files removed. */
  dropSource(id: string): Promise<number>;
  /** Every indexed file, keyed `<source>/<path>`. The map must not be modified. */
  files(): Promise<ReadonlyMap<string, StoredFile>>;
  /** Every recorded problem, keyed `<source>/<path>`. */
  problems(): Promise<ReadonlyMap<string, StoredProblem>>;
  /** Removes every file, chunk and problem (a full reindex). */
  clear(): Promise<void>;
  /** Stores a new file with its chunks; returns its id. */
  addFile(file: FileRecord, chunks: readonly ChunkRecord[]): Promise<number>;
  /** Replaces a file's row and all its chunks (its content changed). */
  replaceFile(id: number, file: FileRecord, chunks: readonly ChunkRecord[]): Promise<void>;
  /**
   * Updates a file's identity (path, size, mtime, inode, time) and keeps its chunks and
   * language: the content is the same (touched, or renamed with identical bytes).
   */
  touchFile(id: number, file: FileIdentity): Promise<void>;
  /** Removes a file and its chunks. */
  removeFile(id: number): Promise<void>;
  /** Records (or replaces) why a file could not be indexed. */
  setProblem(problem: StoredProblem): Promise<void>;
  /** Forgets a recorded problem. */
  clearProblem(source: string, path: string): Promise<void>;
  /** The default language the index was last built with, if it was built. */
  builtLanguage(): Promise<Language | undefined>;
  /** Records the sources and the build time, tidies up; returns the totals after the changes. */
  finish(summary: FinishSummary): Promise<{ files: number; chunks: number }>;
}

/** What {@link IndexWriter.finish} records. */
export interface FinishSummary {
  sources: ReadonlyArray<{ id: string; root: string }>;
  indexedAt: string;
  full: boolean;
  /** The default language the index was built with. */
  language: Language;
}
