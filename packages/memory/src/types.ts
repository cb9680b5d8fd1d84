import type { PostgresBackendOptions } from './backend/postgres/driver.js';
import type { BackendFactory, SearchMatch } from './backend/types.js';
import type { Language } from './lib/language.js';
import type { Unlisted } from './lib/unlisted.js';

/** One folder of notes to index. */
export interface MemorySourceOptions {
  /**
   * Short name of the source: letters, digits, `_`, `-`, `.` (1-64 characters, starting with a
   * letter or digit). It is the first segment of every path the store returns.
   */
  id: string;
  /** The folder; resolved with realpath once, when the store is created. */
  path: string;
  /** Globs (relative to the folder) of files to index; default Markdown and `.txt`. */
  include?: string[];
  /** Globs (relative to the folder) of files and folders to skip; default `**\/node_modules/**`. */
  exclude?: string[];
  /**
   * Index files that have more than one hard link (default false: such a file may be a second
   * name of a file outside the folder, so it is reported as `PATH_HARD_LINK` and not indexed).
   */
  allowHardLinks?: boolean;
}

/** Options of `createMemory`. */
export interface MemoryOptions {
  /** The folders to index; at least one. */
  sources: MemorySourceOptions[];
  /**
   * SQLite database file (default `<first source>/.lectern/memory.db`), or a `postgres://`
   * URL: a PostgreSQL index that servers on several machines share (needs the `pg` package).
   */
  dbPath?: string;
  /** Connection options of a PostgreSQL `dbPath`: schema, password variable, TLS, pool size. */
  postgres?: Omit<PostgresBackendOptions, 'url'>;
  /**
   * Where the index is stored: a backend factory. Default `sqliteBackend()`, the embedded
   * SQLite database at `dbPath`.
   */
  backend?: BackendFactory;
  /**
   * Language of notes whose language is neither declared in front matter (`lang:` or
   * `language:`) nor detected from their text: a Snowball language (`en`, `es`, `fr`, …) stems
   * their words ("pruebas" finds "prueba"); `simple` (default) folds them only.
   */
  language?: Language;
  /** Larger files are not indexed and are reported as `FILE_TOO_LARGE`; default 4 MiB. */
  maxFileBytes?: number;
  /** Most words per chunk (default 250). */
  maxChunkWords?: number;
  /**
   * How long a reindex waits for another process's reindex to finish before failing with
   * `INDEX_BUSY`, in milliseconds (default 60 000).
   */
  busyTimeoutMs?: number;
  /**
   * Byte budget of one search or fragment response (compact JSON): default core's
   * `DEFAULT_OUTPUT_BYTES` (64 KiB), at least 4096; raise it for clients that take more.
   */
  maxOutputBytes?: number;
  /**
   * Watch the source folders for changes (default false). After the first full walk, a reindex
   * then stats only the files and folders that change events named, instead of every file;
   * the index is the same. Trusts the operating system's change events: use it on local file
   * systems, not on network mounts. Any doubt (a watcher error, too many events, a watcher
   * that cannot start) makes that reindex walk everything and set the watchers up again.
   */
  watch?: boolean;
}

/** Options of `MemoryStore.search`. */
export interface SearchOptions {
  /** Words to find; `"…"` marks a phrase and a trailing `*` a prefix. */
  query: string;
  /** Only search this source id. */
  source?: string;
  /** Only search files whose path matches this glob (relative to the source, or with the source id). */
  pathGlob?: string;
  /** Results per page, 1-50 (default 10). */
  limit?: number;
  /** Results to skip, 0-10 000 (default 0); use `next_offset` of the previous page. */
  offset?: number;
  /** Pass `query` to FTS5 unchanged (operators, columns, NEAR); default false. */
  raw?: boolean;
}

/** One search hit: where to read, and why it matched. */
export interface Citation {
  /** `<source id>/<path in the source>`: exactly what `readFragment` accepts. */
  path: string;
  /** Source id. */
  source: string;
  /** First line of the matching chunk, 1-based. */
  start_line: number;
  /** Last line of the matching chunk, 1-based, inclusive. */
  end_line: number;
  /** Headings enclosing the chunk, outermost first, joined with ` > `. */
  heading_path: string;
  /** A short excerpt with the matched words between « and ». */
  snippet: string;
  /** Relevance (BM25, headings weigh 4x body); higher is better, comparable within one query. */
  score: number;
  /** SHA-256 of the file as it was indexed. */
  version: string;
  /** True when the file's size or modification time differs from when it was indexed. */
  stale: boolean;
}

// Defined beside the backend interface, which returns it, so that file needs nothing from here.
export type { SearchMatch } from './backend/types.js';

/** Result of `MemoryStore.search`. */
export interface SearchResult {
  results: Citation[];
  /** `all` when the first result holds every word searched for, `any` otherwise, `raw` for raw queries. */
  match: SearchMatch;
  /** What was ranked: the query's informative terms, quoted (the raw text for raw queries). */
  fts_query: string;
  /** Offset of the next page, or null when this is the last. */
  next_offset: number | null;
  /** Notes about the index (rebuilt, built on first use, damaged and replaced). */
  warnings: string[];
}

/** Options of `MemoryStore.readFragment`. */
export interface ReadFragmentOptions {
  /** `<source id>/<path>` as returned in a citation. */
  path: string;
  /** First line, 1-based (default 1, or `endLine - 199` when only `endLine` is given). */
  startLine?: number;
  /** Last line, inclusive; at most 200 lines after `startLine`. */
  endLine?: number;
  /** Characters of `startLine` to skip: a cut line's `next_start_char` (default 0). */
  startChar?: number;
}

/** Result of `MemoryStore.readFragment`. */
export interface Fragment {
  path: string;
  source: string;
  /** First line returned. */
  start_line: number;
  /** Last line returned (`start_line - 1` when none, e.g. an empty file). */
  end_line: number;
  /** Lines in the file now. */
  total_lines: number;
  /** The lines, each prefixed with its number and a tab. */
  content: string;
  /** True when lines follow `end_line`. */
  has_more: boolean;
  /** Where to continue, or null. */
  next_start_line: number | null;
  /**
   * When the window's only line was cut to fit the budget: the character of `next_start_line`
   * to pass as `startChar` to read on; else null.
   */
  next_start_char: number | null;
  /** SHA-256 of the file now. */
  version: string;
  /** SHA-256 of the file when it was indexed. */
  indexed_version: string;
  /** True when the file changed since it was indexed (citations may point at moved lines). */
  stale: boolean;
}

/** Counts of one source. */
export interface SourceStatus {
  id: string;
  include: string[];
  exclude: string[];
  /** Files in the index. */
  files: number;
  /** Chunks in the index. */
  chunks: number;
  /** Total size of the indexed files, in bytes. */
  bytes: number;
  /** When the source was last indexed (ISO 8601), or null if never. */
  indexed_at: string | null;
  /** Differences between the folder now and the index (by size and modification time). */
  pending: { new: number; changed: number; deleted: number };
  /** Files that could not be indexed last time (invalid UTF-8, binary, too large). */
  problems: number;
  /**
   * Entries of the folder passed over because their names are not valid UTF-8 (no request can
   * name them): the count, and the first paths with each invalid byte as `\xHH`, folders
   * (never entered) ending in `/`.
   */
  unlisted: Unlisted;
}

/** Result of `MemoryStore.listSources`. */
export interface ListSourcesResult {
  /** True once the index has been built at least once. */
  built: boolean;
  sources: SourceStatus[];
  warnings: string[];
}

/** Options of `MemoryStore.reindex`. */
export interface ReindexOptions {
  /** Re-read and re-chunk every file instead of only what changed (default false). */
  full?: boolean;
  /** Called as files are processed: done so far, total to process, a short message. */
  onProgress?: (done: number, total: number, message: string) => void | Promise<void>;
  /** Cancels the reindex; the index stays as it was. */
  signal?: AbortSignal;
}

/** A file a reindex could not index. */
export interface ReindexError {
  /** `<source id>/<path>`. */
  path: string;
  /** `INVALID_UTF8`, `BINARY_CONTENT`, `FILE_TOO_LARGE`, or a root-guard code. */
  code: string;
  message: string;
}

/** Result of `MemoryStore.reindex`. */
export interface ReindexResult {
  full: boolean;
  /** Files indexed for the first time. */
  added: number;
  /** Files whose content changed and were re-chunked. */
  updated: number;
  /** Files moved or renamed with identical content (their chunks were kept). */
  renamed: number;
  /** Files dropped from the index: deleted, excluded, or no longer readable as text. */
  removed: number;
  /** Files left as they were. */
  unchanged: number;
  /** Files that could not be indexed, with the reason. */
  errors: ReindexError[];
  /** Files in the index after the reindex. */
  files: number;
  /** Chunks in the index after the reindex. */
  chunks: number;
  duration_ms: number;
  /**
   * Entries passed over because their names are not valid UTF-8, in every source: the count,
   * and the first as `<source id>/<path>` with each invalid byte as `\xHH`, folders ending in `/`.
   */
  unlisted: Unlisted;
  warnings: string[];
}

/** An open memory store. Create it with `createMemory`; close it when done. */
export interface MemoryStore {
  /** Absolute path of the SQLite database. */
  readonly dbPath: string;
  /** Configured source ids, in order. */
  readonly sourceIds: readonly string[];
  /**
   * Full-text search over the indexed chunks, best first. Builds the index first if it has
   * never been built. Errors: `EMPTY_QUERY`, `QUERY_TOO_LONG`, `INVALID_QUERY` (raw),
   * `UNKNOWN_SOURCE`, `INVALID_LIMIT`, `INVALID_OFFSET`, `INVALID_GLOB`.
   */
  search(options: SearchOptions): Promise<SearchResult>;
  /**
   * Reads numbered lines of an indexed file as it is now, at most 200 per call. Errors:
   * `INVALID_PATH`, `UNKNOWN_SOURCE`, `NOT_INDEXED`, `FILE_DELETED`, `INVALID_RANGE`,
   * `RANGE_TOO_LARGE`, `LINE_OUT_OF_RANGE`, `INVALID_UTF8`, root-guard codes.
   */
  readFragment(options: ReadFragmentOptions): Promise<Fragment>;
  /** Per-source counts and what changed on disk since the last reindex (a stat walk). */
  listSources(): Promise<ListSourcesResult>;
  /**
   * Brings the index up to date in one transaction (searches see the old index until it
   * commits). Errors: `INDEX_BUSY`, `CANCELLED`.
   */
  reindex(options?: ReindexOptions): Promise<ReindexResult>;
  /**
   * Closes the index (the SQLite backend closes before this returns). Calls after this throw
   * `STORE_CLOSED`.
   */
  close(): Promise<void>;
}
