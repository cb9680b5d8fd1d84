import { checkOutputBytes, createRootSync, Mutex, ToolError } from '@lectern/core';
import { DEFAULT_MAX_CHUNK_WORDS } from '@lectern/markdown';
import { postgresBackend } from './backend/postgres/backend.js';
import { isPostgresUrl } from './backend/postgres/driver.js';
import { sqliteBackend } from './backend/sqlite/backend.js';
import type { MemoryBackend } from './backend/types.js';
import type { StoreContext } from './context.js';
import { checkFragment, readFragmentLines } from './fragments.js';
import { reindexSources } from './indexer.js';
import { MemoryError } from './lib/errors.js';
import { LANGUAGES } from './lib/language.js';
import { StatWorker } from './lib/stat-worker.js';
import {
  compileGlobs,
  DEFAULT_EXCLUDE,
  DEFAULT_INCLUDE,
  type ResolvedSource,
  WalkCache,
} from './lib/walk.js';
import { SourceWatcher } from './lib/watch.js';
import { DEFAULT_BUSY_TIMEOUT_MS, DEFAULT_MEMORY_MAX_FILE_BYTES } from './limits.js';
import { checkSearch, runSearch } from './search.js';
import { sourceStatus } from './status.js';
import type {
  Fragment,
  ListSourcesResult,
  MemoryOptions,
  MemoryStore,
  ReadFragmentOptions,
  ReindexOptions,
  ReindexResult,
  SearchOptions,
  SearchResult,
} from './types.js';

const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

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
  if (options.language !== undefined && !LANGUAGES.includes(options.language)) {
    throw new ToolError(
      'INVALID_OPTIONS',
      `language ${JSON.stringify(options.language)} is not supported: use ${LANGUAGES.map((l) => `'${l}'`).join(', ')}.`,
    );
  }
  if (options.postgres !== undefined && !isPostgresUrl(options.dbPath)) {
    throw new ToolError(
      'INVALID_OPTIONS',
      'postgres options apply to a PostgreSQL database: set dbPath to a postgres:// URL, or remove them.',
    );
  }
  if (options.watch !== undefined && typeof options.watch !== 'boolean') {
    throw new ToolError(
      'INVALID_OPTIONS',
      `watch must be true or false, got ${JSON.stringify(options.watch)}.`,
    );
  }
  if (options.backend !== undefined && typeof options.backend !== 'function') {
    throw new ToolError(
      'INVALID_OPTIONS',
      'backend must be a backend factory, such as sqliteBackend().',
    );
  }
}

/**
 * Opens a memory store: validates the sources (each folder must exist; `ROOT_*` errors
 * otherwise) and opens the backend — by default the embedded SQLite database (WAL mode, FTS5),
 * checked on open: a damaged database is moved aside and replaced by an empty one, and the
 * warning appears in the next results. A `postgres://` URL as `dbPath` opens a shared
 * PostgreSQL index instead (see `postgresBackend`; needs the `pg` package). Nothing is indexed here: the first search (or an
 * explicit reindex) builds the index.
 */
export function createMemory(options: MemoryOptions): MemoryStore {
  validateOptions(options);
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MEMORY_MAX_FILE_BYTES;
  const sources: ResolvedSource[] = options.sources.map((s) => {
    const root = createRootSync(s.path, {
      maxFileBytes,
      allowHardLinks: s.allowHardLinks ?? false,
    });
    const include = s.include ? [...s.include] : [...DEFAULT_INCLUDE];
    const exclude = s.exclude ? [...s.exclude] : [...DEFAULT_EXCLUDE];
    return {
      id: s.id,
      root,
      include,
      exclude,
      ...compileGlobs(include, exclude),
      walkCache: new WalkCache(),
    };
  });
  const language = options.language ?? 'simple';
  const url = isPostgresUrl(options.dbPath) ? options.dbPath : undefined;
  const factory =
    options.backend ??
    (url === undefined ? sqliteBackend() : postgresBackend({ ...options.postgres, url }));
  const backend = factory({
    sources: sources.map((s) => ({ id: s.id, root: s.root.path })),
    dbPath: url === undefined ? options.dbPath : undefined,
    language,
  });
  return new Memory({
    sources,
    byId: new Map(sources.map((s) => [s.id, s])),
    sourceIds: Object.freeze(sources.map((s) => s.id)),
    backend,
    limits: {
      maxFileBytes,
      maxChunkWords: options.maxChunkWords ?? DEFAULT_MAX_CHUNK_WORDS,
      busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
      maxOutputBytes: checkOutputBytes(options.maxOutputBytes),
    },
    language,
    statWorker: new StatWorker(),
    ...(options.watch === true
      ? { watchers: new Map(sources.map((s) => [s.id, new SourceWatcher(s)])) }
      : {}),
  });
}

/** The change watchers of a store made by {@link createMemory}, by source id (tests, bench). */
export function sourceWatchers(store: MemoryStore): ReadonlyMap<string, SourceWatcher> | undefined {
  return store instanceof Memory ? store.watchers : undefined;
}

/**
 * A memory store over a backend: checks every input, serialises reindexes in this process,
 * builds the index on first use and carries the backend's opening notes into results until a
 * reindex has rebuilt what they were about. The work itself lives in `indexer.ts`,
 * `search.ts`, `fragments.ts` and `status.ts`.
 */
class Memory implements MemoryStore {
  readonly dbPath: string;
  readonly sourceIds: readonly string[];
  private readonly ctx: StoreContext;
  private readonly backend: MemoryBackend;
  private readonly lock = new Mutex();
  private closed = false;

  /** Change watchers, when the store watches. */
  get watchers(): ReadonlyMap<string, SourceWatcher> | undefined {
    return this.ctx.watchers;
  }

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
    this.backend = ctx.backend;
    this.dbPath = ctx.backend.location;
    this.sourceIds = ctx.sourceIds;
  }

  private assertOpen(): void {
    if (this.closed) throw new MemoryError('STORE_CLOSED', 'the memory store has been closed.');
  }

  private warnings(): string[] {
    return [...this.backend.warnings()];
  }

  /** Builds the index when it has never been built; returns a note when it did. */
  private async ensureBuilt(): Promise<string[]> {
    if (await this.backend.isBuilt()) return [];
    const result = await this.reindex();
    return [
      ...result.warnings,
      `the index had never been built, so it was built now: ${result.files} files, ${result.chunks} chunks.`,
    ];
  }

  async search(options: SearchOptions): Promise<SearchResult> {
    this.assertOpen();
    const checked = checkSearch(this.ctx, options);
    const notes = await this.ensureBuilt();
    const pending = this.warnings();
    const result = await runSearch(
      this.ctx,
      checked,
      options.source,
      this.ctx.limits.maxOutputBytes,
    );
    return {
      ...result,
      warnings: [...pending, ...notes.filter((n) => !pending.includes(n)), ...result.warnings],
    };
  }

  async readFragment(options: ReadFragmentOptions): Promise<Fragment> {
    this.assertOpen();
    const checked = checkFragment(this.ctx, options);
    await this.ensureBuilt();
    return readFragmentLines(this.ctx, checked);
  }

  async listSources(): Promise<ListSourcesResult> {
    this.assertOpen();
    const status = await sourceStatus(this.ctx);
    return { ...status, warnings: this.warnings() };
  }

  reindex(options: ReindexOptions = {}): Promise<ReindexResult> {
    this.assertOpen();
    return this.lock.run(async () => {
      this.assertOpen();
      const result = await reindexSources(this.ctx, options, this.warnings());
      // What opening the database had to repair has now been rebuilt: reported once more here.
      this.backend.clearWarnings();
      return result;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ctx.watchers) for (const w of this.ctx.watchers.values()) w.close();
    await this.ctx.statWorker?.close();
    await this.backend.close();
  }
}
