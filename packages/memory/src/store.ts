import { resolve } from 'node:path';
import {
  createRootSync,
  decodeUtf8,
  editDistance,
  isToolError,
  planLines,
  readFileInRoot,
  resolveInRoot,
  sha256,
  splitLines,
  statInRoot,
  suggest,
  ToolError,
} from '@lectern/core';
import { chunkLines, DEFAULT_MAX_CHUNK_WORDS, isMarkdownPath } from '@lectern/markdown';
import picomatch from 'picomatch';
import { type Db, isCorruptionError, openDatabase } from './lib/db.js';
import { Mutex } from './lib/mutex.js';
import { buildFtsQuery, foldWord, parseQuery, termsToFts } from './lib/query.js';
import {
  compileGlobs,
  DEFAULT_EXCLUDE,
  DEFAULT_INCLUDE,
  type ResolvedSource,
  type WalkedFile,
  walkSource,
} from './lib/walk.js';
import type {
  Citation,
  Fragment,
  ListSourcesResult,
  MemoryOptions,
  MemoryStore,
  ReadFragmentOptions,
  ReindexError,
  ReindexOptions,
  ReindexResult,
  SearchMatch,
  SearchOptions,
  SearchResult,
  SourceStatus,
} from './types.js';

/** Default size cap of an indexed file: 4 MiB. */
export const DEFAULT_MEMORY_MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Default results per search page. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** Most results per search page. */
export const MAX_SEARCH_LIMIT = 50;
/** Largest search offset. */
export const MAX_SEARCH_OFFSET = 10_000;
/** Most lines one `readFragment` returns. */
export const MAX_FRAGMENT_LINES = 200;
/** Byte budget of one fragment; a window stops at a whole line before exceeding it. */
export const MAX_FRAGMENT_BYTES = 256 * 1024;
/** Longest accepted query, in characters. */
export const MAX_QUERY_CHARS = 1000;

const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const READ_CONCURRENCY = 8;
/** A file modified this close to the start of a reindex is re-hashed next time (racy mtime). */
const RACY_MS = 2000;

interface FileRow {
  id: number;
  source: string;
  path: string;
  size: number;
  mtime: number;
  sha256: string;
  racy: number;
}

interface ProblemRow {
  source: string;
  path: string;
  size: number;
  mtime: number;
  code: string;
  message: string;
}

const key = (source: string, path: string) => `${source}/${path}`;

/** Up to five candidates close to `input`: within 40% of its length in edits, or sharing its file name. */
function closest(input: string, candidates: Iterable<string>): string[] {
  const base = input.slice(input.lastIndexOf('/') + 1).toLowerCase();
  const limit = Math.max(2, Math.floor(input.length * 0.4));
  return suggest(input, candidates, { max: 50 })
    .filter(
      (c) =>
        editDistance(c.toLowerCase(), input.toLowerCase()) <= limit ||
        c.slice(c.lastIndexOf('/') + 1).toLowerCase() === base,
    )
    .slice(0, 5);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function validateOptions(options: MemoryOptions): void {
  if (!options || !Array.isArray(options.sources) || options.sources.length === 0) {
    throw new ToolError(
      'INVALID_OPTIONS',
      'createMemory needs at least one source: { sources: [{ id, path }] }.',
    );
  }
  const seen = new Set<string>();
  for (const s of options.sources) {
    if (typeof s?.id !== 'string' || !SOURCE_ID.test(s.id)) {
      throw new ToolError(
        'INVALID_OPTIONS',
        `source id ${JSON.stringify(s?.id)} is invalid: use 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit.`,
      );
    }
    if (seen.has(s.id)) {
      throw new ToolError('INVALID_OPTIONS', `source id "${s.id}" is used twice.`);
    }
    seen.add(s.id);
    for (const field of ['include', 'exclude'] as const) {
      const globs = s[field];
      if (
        globs !== undefined &&
        (!Array.isArray(globs) || globs.some((g) => typeof g !== 'string'))
      ) {
        throw new ToolError(
          'INVALID_OPTIONS',
          `source "${s.id}": ${field} must be an array of glob strings.`,
        );
      }
    }
  }
  const positive = (name: string, v: number | undefined) => {
    if (v !== undefined && !(Number.isInteger(v) && v > 0)) {
      throw new ToolError('INVALID_OPTIONS', `${name} must be a positive whole number, got ${v}.`);
    }
  };
  positive('maxFileBytes', options.maxFileBytes);
  positive('maxChunkWords', options.maxChunkWords);
  if (options.busyTimeoutMs !== undefined && !(options.busyTimeoutMs >= 0)) {
    throw new ToolError('INVALID_OPTIONS', 'busyTimeoutMs must be 0 or more.');
  }
}

/**
 * Opens a memory store: validates the sources (each folder must exist; `ROOT_*` errors
 * otherwise), opens or creates the SQLite database (WAL mode, FTS5) and checks it. A damaged
 * database is moved aside and replaced by an empty one; the warning appears in the next results.
 * Nothing is indexed here: the first search (or an explicit reindex) builds the index.
 */
export function createMemory(options: MemoryOptions): MemoryStore {
  validateOptions(options);
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MEMORY_MAX_FILE_BYTES;
  const sources: ResolvedSource[] = options.sources.map((s) => {
    const root = createRootSync(s.path, { maxFileBytes });
    const include = s.include ? [...s.include] : [...DEFAULT_INCLUDE];
    const exclude = s.exclude ? [...s.exclude] : [...DEFAULT_EXCLUDE];
    return { id: s.id, root, include, exclude, ...compileGlobs(include, exclude) };
  });
  const dbPath = resolve(options.dbPath ?? resolve(sources[0]!.root.path, '.lectern', 'memory.db'));
  return new SqliteMemoryStore(sources, dbPath, {
    maxFileBytes,
    maxChunkWords: options.maxChunkWords ?? DEFAULT_MAX_CHUNK_WORDS,
    busyTimeoutMs: options.busyTimeoutMs ?? 60_000,
  });
}

class SqliteMemoryStore implements MemoryStore {
  readonly dbPath: string;
  readonly sourceIds: readonly string[];
  private readonly sources: ResolvedSource[];
  private readonly byId: Map<string, ResolvedSource>;
  private reader: Db;
  private writer: Db;
  private pendingWarnings: string[];
  private readonly lock = new Mutex();
  private closed = false;
  private readonly limits: { maxFileBytes: number; maxChunkWords: number; busyTimeoutMs: number };

  constructor(
    sources: ResolvedSource[],
    dbPath: string,
    limits: { maxFileBytes: number; maxChunkWords: number; busyTimeoutMs: number },
  ) {
    this.sources = sources;
    this.byId = new Map(sources.map((s) => [s.id, s]));
    this.sourceIds = Object.freeze(sources.map((s) => s.id));
    this.dbPath = dbPath;
    this.limits = limits;
    const opened = openDatabase(dbPath);
    this.reader = opened.reader;
    this.writer = opened.writer;
    // A reindex waits for another process's writer with its own async retry loop.
    this.writer.pragma('busy_timeout = 0');
    this.pendingWarnings = opened.warnings;
  }

  // ---------------------------------------------------------------- helpers

  private assertOpen(): void {
    if (this.closed) throw new ToolError('STORE_CLOSED', 'the memory store has been closed.');
  }

  private warnings(): string[] {
    return [...this.pendingWarnings];
  }

  private isBuilt(): boolean {
    return this.reader.prepare("SELECT 1 FROM meta WHERE key = 'built_at'").get() !== undefined;
  }

  /** Builds the index when it has never been built; returns a note when it did. */
  private async ensureBuilt(): Promise<string[]> {
    if (this.isBuilt()) return [];
    const result = await this.reindex();
    return [
      ...result.warnings,
      `the index had never been built, so it was built now: ${result.files} files, ${result.chunks} chunks.`,
    ];
  }

  /** Runs a read-only function inside one read transaction (one consistent snapshot). */
  private snapshot<T>(fn: () => T): T {
    try {
      return this.reader.transaction(fn).deferred();
    } catch (error) {
      throw this.mapDbError(error);
    }
  }

  private mapDbError(error: unknown): unknown {
    if (isCorruptionError(error)) {
      return new ToolError(
        'INDEX_CORRUPT',
        `the memory database ${this.dbPath} is damaged (${(error as Error).message}). Restart the server (a damaged database is detected and rebuilt on start), or delete the file.`,
      );
    }
    return error;
  }

  private source(id: string): ResolvedSource {
    const s = this.byId.get(id);
    if (!s) {
      throw new ToolError(
        'UNKNOWN_SOURCE',
        `source "${id}" does not exist; sources are: ${this.sourceIds.join(', ')}.`,
        { suggestions: suggest(id, this.sourceIds, { max: 3 }) },
      );
    }
    return s;
  }

  /** Splits `<source>/<path>` and normalises the path with the source's root guard. */
  private parsePath(path: string): { source: ResolvedSource; rel: string } {
    if (typeof path !== 'string' || path.trim() === '') {
      throw new ToolError('INVALID_PATH', '`path` is empty; pass a path as returned by a search.');
    }
    const trimmed = path.replace(/^\.?\/+/, '');
    const slash = trimmed.indexOf('/');
    const id = slash === -1 ? trimmed : trimmed.slice(0, slash);
    if (!this.byId.has(id)) {
      throw new ToolError(
        'UNKNOWN_SOURCE',
        `\`path\` ${JSON.stringify(path)} must start with a source id (${this.sourceIds.join(', ')}), then the file's path in that source, as search results give it.`,
        {
          suggestions: this.sourceIds.map((s) => `${s}/${trimmed}`).slice(0, 3),
        },
      );
    }
    const source = this.byId.get(id)!;
    const rel = resolveInRoot(source.root, slash === -1 ? '' : trimmed.slice(slash + 1)).relative;
    if (rel === '') {
      throw new ToolError(
        'INVALID_PATH',
        `\`path\` ${JSON.stringify(path)} names the source folder, not a file.`,
      );
    }
    return { source, rel };
  }

  // ---------------------------------------------------------------- search

  async search(options: SearchOptions): Promise<SearchResult> {
    this.assertOpen();
    const query = options.query;
    if (typeof query !== 'string' || query.trim() === '') {
      throw new ToolError('EMPTY_QUERY', '`query` is empty; give at least one word to search for.');
    }
    if (query.length > MAX_QUERY_CHARS) {
      throw new ToolError(
        'QUERY_TOO_LONG',
        `\`query\` is ${query.length} characters; at most ${MAX_QUERY_CHARS} are allowed.`,
      );
    }
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
      throw new ToolError(
        'INVALID_LIMIT',
        `\`limit\` must be a whole number from 1 to ${MAX_SEARCH_LIMIT}, got ${limit}.`,
      );
    }
    const offset = options.offset ?? 0;
    if (!Number.isInteger(offset) || offset < 0 || offset > MAX_SEARCH_OFFSET) {
      throw new ToolError(
        'INVALID_OFFSET',
        `\`offset\` must be a whole number from 0 to ${MAX_SEARCH_OFFSET}, got ${offset}.`,
      );
    }
    if (options.source !== undefined) this.source(options.source);
    let globMatch: ((p: string) => boolean) | undefined;
    if (options.pathGlob !== undefined) {
      const glob = options.pathGlob.trim();
      if (glob === '') {
        throw new ToolError(
          'INVALID_GLOB',
          '`path_glob` is empty; omit it or give a glob such as `projects/**/*.md`.',
        );
      }
      try {
        const m = picomatch(glob, { dot: false, nocase: false });
        globMatch = m;
      } catch (cause) {
        throw new ToolError(
          'INVALID_GLOB',
          `\`path_glob\` ${JSON.stringify(glob)} is not a valid glob.`,
          {
            cause,
          },
        );
      }
    }
    const raw = options.raw === true;
    // Escape first, so a bad query fails before any indexing work.
    const all = raw ? query : buildFtsQuery(query, 'all');
    const any = raw ? query : buildFtsQuery(query, 'any');
    const notes = await this.ensureBuilt();

    const rows = this.snapshot(() => {
      let ids: string | undefined;
      if (globMatch) {
        const files = (
          options.source === undefined
            ? this.reader.prepare('SELECT id, source, path FROM files').all()
            : this.reader
                .prepare('SELECT id, source, path FROM files WHERE source = ?')
                .all(options.source)
        ) as Array<{ id: number; source: string; path: string }>;
        ids = JSON.stringify(
          files
            .filter((f) => globMatch!(f.path) || globMatch!(key(f.source, f.path)))
            .map((f) => f.id),
        );
      }
      const filters: string[] = [];
      const params: Record<string, unknown> = {};
      if (options.source !== undefined) {
        filters.push('f.source = @source');
        params.source = options.source;
      }
      if (ids !== undefined) {
        filters.push('c.file IN (SELECT value FROM json_each(@ids))');
        params.ids = ids;
      }
      const join = filters.length > 0;
      const from = `FROM chunks_fts${
        join ? ' JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file' : ''
      } WHERE chunks_fts MATCH @q${join ? ` AND ${filters.join(' AND ')}` : ''}`;
      let mode: SearchMatch = raw ? 'raw' : 'all';
      let fts = all;
      try {
        const terms = raw ? [] : parseQuery(query);
        // Unordered probe: ranking is only paid for the query that is actually returned.
        if (
          terms.length > 1 &&
          !this.reader.prepare(`SELECT 1 ${from} LIMIT 1`).get({ ...params, q: all })
        ) {
          mode = 'any';
          fts = this.anyQuery(terms) ?? any;
        }
        const top = this.reader
          .prepare(
            `SELECT chunks_fts.rowid AS id, chunks_fts.rank AS rank ${from} ORDER BY rank LIMIT @limit OFFSET @offset`,
          )
          .all({ ...params, q: fts, limit: limit + 1, offset }) as Array<{
          id: number;
          rank: number;
        }>;
        const page = top.slice(0, limit);
        const details = new Map<number, Record<string, unknown>>();
        if (page.length > 0) {
          const pageIds = JSON.stringify(page.map((r) => r.id));
          const info = this.reader
            .prepare(
              `SELECT chunks_fts.rowid AS id, snippet(chunks_fts, 1, '«', '»', '…', 24) AS snippet,
                 c.start_line, c.end_line, c.heading_path, f.source, f.path, f.sha256, f.size, f.mtime
               FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file
               WHERE chunks_fts MATCH @q AND chunks_fts.rowid IN (SELECT value FROM json_each(@ids))`,
            )
            .all({ q: fts, ids: pageIds }) as Array<Record<string, unknown> & { id: number }>;
          for (const row of info) details.set(row.id, row);
        }
        return { mode, fts, more: top.length > limit, page, details };
      } catch (error) {
        if (raw && (error as { code?: string }).code === 'SQLITE_ERROR') {
          throw new ToolError(
            'INVALID_QUERY',
            `\`query\` is not valid FTS5 syntax (${(error as Error).message}). Fix the expression, or call again without \`raw\` to search the words literally.`,
          );
        }
        throw error;
      }
    });

    const results: Citation[] = [];
    for (const r of rows.page) {
      const d = rows.details.get(r.id);
      if (!d) continue;
      results.push({
        path: key(d.source as string, d.path as string),
        source: d.source as string,
        start_line: d.start_line as number,
        end_line: d.end_line as number,
        heading_path: d.heading_path as string,
        snippet: d.snippet as string,
        score: Number((-r.rank).toPrecision(4)),
        version: d.sha256 as string,
        stale: false,
      });
    }
    // Staleness by size and mtime, one checked lstat per distinct file.
    const staleByPath = new Map<string, boolean>();
    await Promise.all(
      [...new Set(results.map((c) => c.path))].map(async (p) => {
        const d = [...rows.details.values()].find(
          (x) => key(x.source as string, x.path as string) === p,
        )!;
        const source = this.byId.get(d.source as string);
        let stale = true;
        if (source) {
          try {
            const st = await statInRoot(source.root, d.path as string);
            stale = !st.stat.isFile() || st.stat.size !== d.size || st.stat.mtimeMs !== d.mtime;
          } catch {
            stale = true;
          }
        }
        staleByPath.set(p, stale);
      }),
    );
    for (const c of results) c.stale = staleByPath.get(c.path) ?? true;
    return {
      results,
      match: rows.mode,
      fts_query: rows.fts,
      next_offset: rows.more ? offset + limit : null,
      warnings: [...this.warnings(), ...notes.filter((n) => !this.pendingWarnings.includes(n))],
    };
  }

  /**
   * The any-term query without terms found in more than half of all chunks, when at least one
   * other term remains. FTS5's bm25 clamps the IDF of such terms to almost zero, so they cannot
   * change the order; they would only make the engine rank nearly every chunk. Returns
   * undefined when nothing is dropped.
   */
  private anyQuery(terms: ReturnType<typeof parseQuery>): string | undefined {
    const chunks = Number(
      (
        this.reader.prepare("SELECT value FROM meta WHERE key = 'chunk_count'").get() as
          | { value: string }
          | undefined
      )?.value ?? 0,
    );
    if (chunks === 0) return undefined;
    const df = this.reader.prepare('SELECT doc FROM temp.chunks_vocab WHERE term = ?').pluck();
    // Prefixes and phrases: unknown frequency, always kept and assumed to occur.
    const freq = terms.map((t) =>
      t.prefix || t.words.length !== 1
        ? -1
        : ((df.get(foldWord(t.words[0]!)) as number | undefined) ?? 0),
    );
    const kept = terms.filter((_, i) => freq[i]! <= chunks / 2);
    const occurs = freq.some((f) => f !== 0 && f <= chunks / 2);
    if (!occurs || kept.length === terms.length) return undefined;
    return termsToFts(kept, 'any');
  }

  // ---------------------------------------------------------------- read

  async readFragment(options: ReadFragmentOptions): Promise<Fragment> {
    this.assertOpen();
    const { source, rel } = this.parsePath(options.path);
    const { startLine, endLine } = options;
    for (const [name, v] of [
      ['start_line', startLine],
      ['end_line', endLine],
    ] as const) {
      if (v !== undefined && !(Number.isInteger(v) && v >= 1)) {
        throw new ToolError(
          'INVALID_RANGE',
          `\`${name}\` must be a whole number of at least 1, got ${v}.`,
        );
      }
    }
    if (startLine !== undefined && endLine !== undefined && endLine < startLine) {
      throw new ToolError(
        'INVALID_RANGE',
        `\`end_line\` ${endLine} is before \`start_line\` ${startLine}; \`end_line\` is the last line to return, inclusive.`,
      );
    }
    const start =
      startLine ?? (endLine !== undefined ? Math.max(1, endLine - MAX_FRAGMENT_LINES + 1) : 1);
    const count = endLine !== undefined ? endLine - start + 1 : MAX_FRAGMENT_LINES;
    if (count > MAX_FRAGMENT_LINES) {
      throw new ToolError(
        'RANGE_TOO_LARGE',
        `lines ${start}-${endLine} are ${count} lines; at most ${MAX_FRAGMENT_LINES} can be read per call. Ask for \`start_line\` ${start} to \`end_line\` ${start + MAX_FRAGMENT_LINES - 1}, then continue from there.`,
        {
          details: {
            max_lines: MAX_FRAGMENT_LINES,
            suggested_end_line: start + MAX_FRAGMENT_LINES - 1,
          },
        },
      );
    }
    await this.ensureBuilt();
    const row = this.snapshot(
      () =>
        this.reader
          .prepare('SELECT id, size, mtime, sha256 FROM files WHERE source = ? AND path = ?')
          .get(source.id, rel) as
          | { id: number; size: number; mtime: number; sha256: string }
          | undefined,
    );
    const shown = key(source.id, rel);
    if (!row) {
      const problem = this.snapshot(
        () =>
          this.reader
            .prepare('SELECT code, message FROM problems WHERE source = ? AND path = ?')
            .get(source.id, rel) as { code: string; message: string } | undefined,
      );
      if (problem) {
        throw new ToolError(
          'NOT_INDEXED',
          `${shown} is not indexed: the last reindex could not index it (${problem.code}: ${problem.message}).`,
          { details: { reason: problem.code } },
        );
      }
      const candidates = this.snapshot(() =>
        (
          this.reader.prepare('SELECT path FROM files WHERE source = ?').all(source.id) as Array<{
            path: string;
          }>
        ).map((r) => key(source.id, r.path)),
      );
      throw new ToolError(
        'NOT_INDEXED',
        `${shown} is not in the memory index; only indexed files can be read. Use a path from memory_search, or run memory_reindex if the file is new.`,
        { suggestions: closest(shown, candidates) },
      );
    }
    let bytes: Buffer;
    try {
      ({ bytes } = await readFileInRoot(source.root, rel, { maxBytes: this.limits.maxFileBytes }));
    } catch (error) {
      if (isToolError(error) && error.code === 'PATH_NOT_FOUND') {
        throw new ToolError(
          'FILE_DELETED',
          `${shown} was indexed but no longer exists on disk; run memory_reindex, then search again.`,
        );
      }
      throw error;
    }
    const version = sha256(bytes);
    const { text } = decodeUtf8(bytes, { subject: `file ${shown}` });
    const lines = splitLines(text);
    let plan: ReturnType<typeof planLines>;
    try {
      plan = planLines({
        totalLines: lines.length,
        startLine: start,
        lineCount: count,
        maxBytes: MAX_FRAGMENT_BYTES,
        lineBytes: (n) => Buffer.byteLength(lines[n - 1]!, 'utf8') + 1,
      });
    } catch (error) {
      if (isToolError(error) && error.code === 'LINE_TOO_LONG') {
        const line = (error.details?.line as number | undefined) ?? start;
        throw new ToolError(
          'LINE_TOO_LONG',
          `line ${line} of ${shown} is longer than ${MAX_FRAGMENT_BYTES} bytes, more than one read can return; it can only be found through memory_search snippets.`,
          { details: error.details ? { ...error.details } : undefined },
        );
      }
      throw error;
    }
    const width = String(plan.end_line).length;
    const out: string[] = [];
    for (let n = plan.start_line; n <= plan.end_line; n++) {
      out.push(`${String(n).padStart(width, ' ')}\t${lines[n - 1]!}`);
    }
    return {
      path: shown,
      source: source.id,
      start_line: plan.start_line,
      end_line: plan.end_line,
      total_lines: plan.total_lines,
      content: out.join('\n'),
      has_more: plan.has_more,
      next_start_line: plan.next_start_line,
      version,
      indexed_version: row.sha256,
      stale: version !== row.sha256,
    };
  }

  // ---------------------------------------------------------------- list

  async listSources(): Promise<ListSourcesResult> {
    this.assertOpen();
    const db = this.snapshot(() => ({
      built: this.isBuilt(),
      files: this.reader.prepare('SELECT source, path, size, mtime FROM files').all() as FileRow[],
      chunks: this.reader
        .prepare(
          'SELECT f.source AS source, COUNT(*) AS n FROM chunks c JOIN files f ON f.id = c.file GROUP BY f.source',
        )
        .all() as Array<{ source: string; n: number }>,
      problems: this.reader
        .prepare('SELECT source, path, size, mtime FROM problems')
        .all() as ProblemRow[],
      indexed: this.reader.prepare('SELECT id, root, indexed_at FROM sources').all() as Array<{
        id: string;
        root: string;
        indexed_at: string | null;
      }>,
    }));
    const sources: SourceStatus[] = this.sources.map((s) => {
      const rows = new Map<string, FileRow>();
      let bytes = 0;
      for (const f of db.files) {
        if (f.source !== s.id) continue;
        rows.set(f.path, f);
        bytes += f.size;
      }
      const problems = new Map<string, ProblemRow>();
      for (const p of db.problems) if (p.source === s.id) problems.set(p.path, p);
      const meta = db.indexed.find((x) => x.id === s.id);
      const sameRoot = meta?.root === s.root.path;
      const pending = { new: 0, changed: 0, deleted: 0 };
      const seen = new Set<string>();
      for (const f of walkSource(s)) {
        seen.add(f.path);
        const row = sameRoot ? rows.get(f.path) : undefined;
        if (row) {
          if (row.size !== f.size || row.mtime !== f.mtime) pending.changed++;
          continue;
        }
        const p = problems.get(f.path);
        if (p && p.size === f.size && p.mtime === f.mtime) continue;
        pending.new++;
      }
      for (const p of rows.keys()) if (!seen.has(p)) pending.deleted++;
      return {
        id: s.id,
        include: [...s.include],
        exclude: [...s.exclude],
        files: rows.size,
        chunks: db.chunks.find((c) => c.source === s.id)?.n ?? 0,
        bytes,
        indexed_at: meta?.indexed_at ?? null,
        pending,
        problems: problems.size,
      };
    });
    return { built: db.built, sources, warnings: this.warnings() };
  }

  // ---------------------------------------------------------------- reindex

  reindex(options: ReindexOptions = {}): Promise<ReindexResult> {
    this.assertOpen();
    return this.lock.run(() => this.reindexLocked(options));
  }

  /** BEGIN IMMEDIATE on the writer, retrying without blocking while another process writes. */
  private async begin(signal: AbortSignal | undefined): Promise<void> {
    const deadline = Date.now() + this.limits.busyTimeoutMs;
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
          throw new ToolError(
            'INDEX_BUSY',
            `another process has been updating the memory index for over ${Math.round(this.limits.busyTimeoutMs / 1000)} s; try again when it finishes.`,
          );
        }
        if (signal?.aborted) throw cancelled();
        await sleep(wait);
        wait = Math.min(wait * 2, 200);
      }
    }
  }

  private async reindexLocked(options: ReindexOptions): Promise<ReindexResult> {
    this.assertOpen();
    const t0 = performance.now();
    const full = options.full === true;
    const signal = options.signal;
    if (signal?.aborted) throw cancelled();
    const startedAt = Date.now();
    const now = new Date(startedAt).toISOString();
    const warnings = this.warnings();
    const errors: ReindexError[] = [];
    const counts = { added: 0, updated: 0, renamed: 0, removed: 0, unchanged: 0 };

    // Walk the folders before taking the write lock: it only reads the disk.
    const disk = new Map<string, { source: ResolvedSource; file: WalkedFile }>();
    for (const s of this.sources) {
      const files = walkSource(s);
      if (files.length === 0) {
        warnings.push(
          `source "${s.id}" has no files matching ${s.include.join(', ')}; nothing is indexed from it.`,
        );
      }
      for (const file of files) disk.set(key(s.id, file.path), { source: s, file });
    }

    await this.begin(signal);
    const w = this.writer;
    try {
      const st = {
        chunksOf: w.prepare('SELECT id, heading_path, text FROM chunks WHERE file = ?'),
        ftsDelete: w.prepare(
          "INSERT INTO chunks_fts (chunks_fts, rowid, heading_path, body) VALUES ('delete', ?, ?, ?)",
        ),
        ftsInsert: w.prepare('INSERT INTO chunks_fts (rowid, heading_path, body) VALUES (?, ?, ?)'),
        deleteChunks: w.prepare('DELETE FROM chunks WHERE file = ?'),
        deleteFile: w.prepare('DELETE FROM files WHERE id = ?'),
        insertChunk: w.prepare(
          'INSERT INTO chunks (file, start_line, end_line, heading_path, text) VALUES (?, ?, ?, ?, ?)',
        ),
        insertFile: w.prepare(
          'INSERT INTO files (source, path, size, mtime, sha256, indexed_at, racy) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ),
        updateFile: w.prepare(
          'UPDATE files SET source = ?, path = ?, size = ?, mtime = ?, sha256 = ?, indexed_at = ?, racy = ? WHERE id = ?',
        ),
        upsertProblem: w.prepare(
          'INSERT OR REPLACE INTO problems (source, path, size, mtime, code, message) VALUES (?, ?, ?, ?, ?, ?)',
        ),
        deleteProblem: w.prepare('DELETE FROM problems WHERE source = ? AND path = ?'),
      };
      const dropChunks = (fileId: number) => {
        for (const c of st.chunksOf.all(fileId) as Array<{
          id: number;
          heading_path: string;
          text: string;
        }>) {
          st.ftsDelete.run(c.id, c.heading_path, c.text);
        }
        st.deleteChunks.run(fileId);
      };
      const dropFile = (fileId: number) => {
        dropChunks(fileId);
        st.deleteFile.run(fileId);
      };
      const addChunks = (fileId: number, path: string, text: string) => {
        const chunks = chunkLines(splitLines(text), {
          markdown: isMarkdownPath(path),
          maxWords: this.limits.maxChunkWords,
        });
        for (const c of chunks) {
          const id = st.insertChunk.run(
            fileId,
            c.startLine,
            c.endLine,
            c.headingPath,
            c.text,
          ).lastInsertRowid;
          st.ftsInsert.run(id, c.headingPath, c.text);
        }
      };

      // Sources no longer configured, or whose folder moved: forget what was indexed from them.
      const known = w.prepare('SELECT id, root FROM sources').all() as Array<{
        id: string;
        root: string;
      }>;
      for (const k of known) {
        const s = this.byId.get(k.id);
        if (s && s.root.path === k.root) continue;
        for (const f of w.prepare('SELECT id FROM files WHERE source = ?').all(k.id) as Array<{
          id: number;
        }>) {
          dropFile(f.id);
          counts.removed++;
        }
        w.prepare('DELETE FROM problems WHERE source = ?').run(k.id);
        w.prepare('DELETE FROM sources WHERE id = ?').run(k.id);
      }
      for (const f of w
        .prepare(`SELECT id FROM files WHERE source NOT IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(this.sourceIds)) as Array<{ id: number }>) {
        dropFile(f.id);
        counts.removed++;
      }

      let prev = new Map<string, FileRow>();
      // Raw arrays and no sha256 here: this runs over every indexed file on every reindex.
      for (const [id, source, path, size, mtime, racy] of w
        .prepare('SELECT id, source, path, size, mtime, racy FROM files')
        .raw(true)
        .all() as Array<[number, string, string, number, number, number]>) {
        prev.set(key(source, path), { id, source, path, size, mtime, racy, sha256: '' });
      }
      let problems = new Map<string, ProblemRow>();
      for (const p of w.prepare('SELECT * FROM problems').all() as ProblemRow[]) {
        problems.set(key(p.source, p.path), p);
      }
      let before = new Set<string>();
      if (full) {
        before = new Set(prev.keys());
        w.exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')");
        w.exec('DELETE FROM chunks; DELETE FROM files; DELETE FROM problems;');
        prev = new Map();
        problems = new Map();
        for (const k of before) if (!disk.has(k)) counts.removed++;
      }

      type Work = { k: string; source: ResolvedSource; file: WalkedFile; row?: FileRow };
      const work: Work[] = [];
      for (const [k, { source, file }] of disk) {
        const row = prev.get(k);
        if (row) {
          if (row.size === file.size && row.mtime === file.mtime && row.racy === 0) {
            counts.unchanged++;
          } else {
            work.push({ k, source, file, row });
          }
          continue;
        }
        const problem = problems.get(k);
        if (problem && problem.size === file.size && problem.mtime === file.mtime) {
          errors.push({ path: k, code: problem.code, message: problem.message });
          continue;
        }
        work.push({ k, source, file });
      }
      for (const [k, p] of problems) if (!disk.has(k)) st.deleteProblem.run(p.source, p.path);
      const missingBySha = new Map<string, FileRow[]>();
      const missing = new Set<FileRow>();
      const shaOf = w.prepare('SELECT sha256 FROM files WHERE id = ?').pluck();
      for (const [k, row] of prev) {
        if (disk.has(k)) continue;
        row.sha256 = shaOf.get(row.id) as string;
        missing.add(row);
        const list = missingBySha.get(row.sha256) ?? [];
        list.push(row);
        missingBySha.set(row.sha256, list);
      }

      const total = work.length;
      let done = 0;
      let lastReport = 0;
      const report = async (force: boolean) => {
        if (!options.onProgress) return;
        const t = performance.now();
        if (!force && t - lastReport < 100) return;
        lastReport = t;
        await options.onProgress(done, total, `indexed ${done} of ${total} changed files`);
      };
      await report(true);

      const fail = (item: Work, code: string, message: string) => {
        if (item.row) {
          dropFile(item.row.id);
          counts.removed++;
        }
        st.upsertProblem.run(
          item.source.id,
          item.file.path,
          item.file.size,
          item.file.mtime,
          code,
          message,
        );
        errors.push({ path: item.k, code, message });
      };

      const apply = (item: Work, bytes: Buffer, size: number, mtime: number) => {
        const sha = sha256(bytes);
        const racy = startedAt - mtime < RACY_MS ? 1 : 0;
        const { source, file, row } = item;
        if (row && row.sha256 === '') row.sha256 = shaOf.get(row.id) as string;
        if (row && row.sha256 === sha) {
          st.updateFile.run(source.id, file.path, size, mtime, sha, now, racy, row.id);
          counts.unchanged++;
          return;
        }
        if (!row) {
          const moved = missingBySha.get(sha)?.find((r) => missing.has(r));
          if (moved) {
            missing.delete(moved);
            st.updateFile.run(source.id, file.path, size, mtime, sha, now, racy, moved.id);
            st.deleteProblem.run(source.id, file.path);
            counts.renamed++;
            return;
          }
        }
        let text: string;
        try {
          ({ text } = decodeUtf8(bytes, { subject: `file ${item.k}` }));
        } catch (error) {
          if (!isToolError(error)) throw error;
          fail(item, error.code, error.message);
          return;
        }
        if (row) {
          dropChunks(row.id);
          st.updateFile.run(source.id, file.path, size, mtime, sha, now, racy, row.id);
          addChunks(row.id, file.path, text);
          counts.updated++;
        } else {
          const id = Number(
            st.insertFile.run(source.id, file.path, size, mtime, sha, now, racy).lastInsertRowid,
          );
          addChunks(id, file.path, text);
          if (before.has(item.k)) counts.updated++;
          else counts.added++;
        }
        st.deleteProblem.run(source.id, file.path);
      };

      let next = 0;
      let stop = false;
      const worker = async () => {
        while (next < work.length && !stop) {
          if (signal?.aborted) throw cancelled();
          const item = work[next++]!;
          if (item.file.size > this.limits.maxFileBytes) {
            fail(
              item,
              'FILE_TOO_LARGE',
              `file ${item.k} is ${item.file.size} bytes, over the ${this.limits.maxFileBytes}-byte limit; it is not indexed.`,
            );
          } else {
            let read: Awaited<ReturnType<typeof readFileInRoot>> | undefined;
            try {
              read = await readFileInRoot(item.source.root, item.file.path, {
                maxBytes: this.limits.maxFileBytes,
              });
            } catch (error) {
              if (!isToolError(error)) throw error;
              if (error.code === 'PATH_NOT_FOUND') {
                // Deleted since the walk: treat like any deleted file.
                if (item.row) missing.add(item.row);
              } else {
                fail(item, error.code, error.message);
              }
            }
            // Another worker failed while this one was reading: write nothing more.
            if (stop) return;
            if (read) apply(item, read.bytes, read.stat.size, read.stat.mtimeMs);
          }
          done++;
          await report(done === total);
        }
      };
      const settled = await Promise.allSettled(
        Array.from({ length: Math.min(READ_CONCURRENCY, Math.max(1, total)) }, async () => {
          try {
            await worker();
          } catch (error) {
            stop = true;
            throw error;
          }
        }),
      );
      for (const r of settled) if (r.status === 'rejected') throw r.reason;
      if (signal?.aborted) throw cancelled();

      for (const row of missing) {
        dropFile(row.id);
        counts.removed++;
      }
      const upsertSource = w.prepare(
        'INSERT OR REPLACE INTO sources (id, root, indexed_at) VALUES (?, ?, ?)',
      );
      for (const s of this.sources) upsertSource.run(s.id, s.root.path, now);
      w.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('built_at', ?)").run(now);
      w.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('chunk_count', ?)").run(
        String((w.prepare('SELECT COUNT(*) AS n FROM chunks').get() as { n: number }).n),
      );
      if (full) w.exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')");
      const totals = w
        .prepare(
          'SELECT (SELECT COUNT(*) FROM files) AS files, (SELECT COUNT(*) FROM chunks) AS chunks',
        )
        .get() as { files: number; chunks: number };
      w.exec('COMMIT');
      // What opening the database had to repair has now been rebuilt: report it once more here.
      this.pendingWarnings = [];
      errors.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return {
        full,
        ...counts,
        errors,
        files: totals.files,
        chunks: totals.chunks,
        duration_ms: Math.round(performance.now() - t0),
        warnings,
      };
    } catch (error) {
      if (w.inTransaction) w.exec('ROLLBACK');
      throw this.mapDbError(error);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reader.close();
    this.writer.close();
  }
}

function cancelled(): ToolError {
  return new ToolError('CANCELLED', 'the reindex was cancelled; the index is unchanged.');
}
