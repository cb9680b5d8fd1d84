import { resolve } from 'node:path';
import type {
  AnyToolDefinition,
  ErrorMessages,
  PackageOptions,
  ToolPackage,
  ToolSet,
} from '@lectern/core';
import { checkLimits } from '@lectern/core';
import { isPostgresUrl } from './backend/postgres/driver.js';
import { assertSqliteInstalled } from './backend/sqlite/native.js';
import type { BackendFactory } from './backend/types.js';
import { MemoryError } from './lib/errors.js';
import type { Language } from './lib/language.js';
import type { MemoryLocale } from './lib/schemas.js';
import { memoriaTools } from './presets/memoria.js';
import { MEMORIA_ERRORS } from './presets/memoria-messages.js';
import { createMemory } from './store.js';
import { memoryListSourcesTool } from './tools/list-sources.js';
import { memoryReadFragmentTool } from './tools/read-fragment.js';
import { memoryReindexTool } from './tools/reindex.js';
import { memorySearchTool } from './tools/search.js';
import type {
  Fragment,
  ListSourcesResult,
  MemoryOptions,
  MemorySourceOptions,
  MemoryStore,
  ReadFragmentOptions,
  ReindexOptions,
  ReindexResult,
  SearchOptions,
  SearchResult,
} from './types.js';

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions {
  /**
   * Language of the tools' error messages: `en` (default) or `es` (same codes, same parameter
   * names). It never changes the tools: the Spanish surface is the `memoria` preset
   * (`memoriaTools`, or `memoryPackage.presets.memoria`).
   */
  locale?: MemoryLocale;
}

/** The four native tools over a store. */
function nativeTools(store: MemoryStore): AnyToolDefinition[] {
  return [
    memorySearchTool(store),
    memoryReadFragmentTool(store),
    memoryListSourcesTool(store),
    memoryReindexTool(store),
  ];
}

/** Native tools whose errors speak `locale` (Spanish for `es`), names unchanged. */
function localized(tools: AnyToolDefinition[], locale: string | undefined): AnyToolDefinition[] {
  if (locale !== 'es') return tools;
  const errors: ErrorMessages = { locale: 'es', messages: MEMORIA_ERRORS.messages };
  return tools.map((t) => ({ ...t, errors }));
}

/**
 * The memory tools over one store: `memory_search`, `memory_read_fragment`,
 * `memory_list_sources`, `memory_reindex`, with errors in `locale`. The store stays owned by
 * the caller; close it when the server stops. Throws on a locale other than `en` or `es`.
 */
export function memoryTools(
  store: MemoryStore,
  options: MemoryToolsOptions = {},
): AnyToolDefinition[] {
  const locale = options.locale ?? 'en';
  if (locale !== 'en' && locale !== 'es') {
    throw new Error(`memoryTools: unknown locale ${JSON.stringify(locale)}; use 'en' or 'es'.`);
  }
  return localized(nativeTools(store), locale);
}

/** Limits of the memory index; each may only be lowered. */
export interface MemoryLimits {
  /** Larger files are not indexed (`FILE_TOO_LARGE`); default 4 MiB. */
  maxFileBytes: number;
  /** Most words per chunk (default 250). */
  maxChunkWords: number;
  /** Byte budget of one search or fragment response (default 64 KiB, at least 4096; may be raised). */
  maxOutputBytes: number;
}

/** Options of {@link memoryPackage}: note folders as roots, where the index lives, limits. */
export interface MemoryPackageOptions extends PackageOptions<MemorySourceOptions, MemoryLimits> {
  /**
   * SQLite database file of the index (default `<first root>/.lectern/memory.db`), or a
   * `postgres://` URL for an index shared on PostgreSQL (needs the `pg` package).
   */
  db?: string;
  /** Connection options of a PostgreSQL `db` (see `MemoryOptions.postgres`). */
  postgres?: MemoryOptions['postgres'];
  /** Where the index is stored, as a backend factory (default: SQLite at `db`). */
  backend?: BackendFactory;
  /** Language of notes that declare none, for word forms (see `MemoryOptions.language`). */
  language?: Language;
  /** Watch the note folders so a reindex stats only what changed (see `MemoryOptions.watch`). */
  watch?: boolean;
  /**
   * `es` gives the native tools' errors in Spanish (same codes, same parameter names); any
   * other value, English. Descriptions stay English. The Spanish tool surface is the `memoria`
   * preset, chosen by name.
   */
  locale?: string;
}

/** The tools of the memory package for one set of options, with their store. */
export interface MemoryToolSet extends ToolSet {
  /**
   * The store the tools use. It opens on first use (or on `start`): until then nothing is
   * loaded or written, so listing the tools never touches the database.
   */
  store: MemoryStore;
  start: () => Promise<void>;
  close: () => Promise<void>;
}

const LIMITS = ['maxFileBytes', 'maxChunkWords', 'maxOutputBytes'] as const;

/**
 * A store that opens the real one (`createMemory`: option and root checks, then the backend:
 * loading the native module, opening and checking the database) on first use, so a server can
 * list its tools before that work is done; each call waits for it. A failed opening is reported
 * by every call until one succeeds (it is tried again on the next call).
 */
class OpeningStore implements MemoryStore {
  readonly sourceIds: readonly string[];
  private opening: Promise<MemoryStore> | undefined;
  private real: MemoryStore | undefined;
  private closed = false;

  constructor(private readonly options: MemoryOptions) {
    this.sourceIds = Object.freeze(options.sources.map((s) => s.id));
  }

  /** The database location: the opened backend's, or the configured one before it opens. */
  get dbPath(): string {
    if (this.real) return this.real.dbPath;
    return this.options.dbPath ? resolve(this.options.dbPath) : '';
  }

  open(): Promise<MemoryStore> {
    if (this.closed) {
      return Promise.reject(new MemoryError('STORE_CLOSED', 'the memory store has been closed.'));
    }
    this.opening ??= Promise.resolve().then(() => {
      try {
        this.real = createMemory(this.options);
        return this.real;
      } catch (error) {
        this.opening = undefined;
        throw error;
      }
    });
    return this.opening;
  }

  async search(options: SearchOptions): Promise<SearchResult> {
    return (await this.open()).search(options);
  }

  async readFragment(options: ReadFragmentOptions): Promise<Fragment> {
    return (await this.open()).readFragment(options);
  }

  async listSources(): Promise<ListSourcesResult> {
    return (await this.open()).listSources();
  }

  async reindex(options?: ReindexOptions): Promise<ReindexResult> {
    return (await this.open()).reindex(options);
  }

  async close(): Promise<void> {
    this.closed = true;
    const opening = this.opening;
    if (!opening) return;
    const store = await opening.catch(() => undefined);
    await store?.close();
  }
}

function memorySet(
  options: MemoryPackageOptions,
  build: (store: MemoryStore) => AnyToolDefinition[],
): MemoryToolSet {
  const limits = checkLimits('memory', options.limits, LIMITS);
  // The embedded index needs the native module: say so now, before anything is served.
  if (!options.backend && !isPostgresUrl(options.db)) assertSqliteInstalled();
  const store = new OpeningStore({
    sources: [...options.roots],
    ...(options.db === undefined ? {} : { dbPath: options.db }),
    ...(options.backend === undefined ? {} : { backend: options.backend }),
    ...(options.postgres === undefined ? {} : { postgres: options.postgres }),
    ...(options.language === undefined ? {} : { language: options.language }),
    ...(options.watch === undefined ? {} : { watch: options.watch }),
    ...limits,
  });
  return {
    tools: build(store),
    store,
    start: async () => {
      await store.open();
    },
    close: () => store.close(),
  };
}

/**
 * The memory package: the four native tools (errors in Spanish with `locale: 'es'`), and the
 * preset `memoria` (seed 004, Spanish names and messages). The store opens when a tool is first
 * called or `start` is, so the tools can be listed without loading the native SQLite module.
 */
export const memoryPackage: ToolPackage<MemoryPackageOptions, MemoryToolSet> = {
  name: 'memory',
  tools: (options) => memorySet(options, (store) => localized(nativeTools(store), options.locale)),
  presets: {
    // Notes whose language is neither declared nor detected are Spanish in the memoria preset.
    memoria: (options) => memorySet({ language: 'es', ...options }, memoriaTools),
  },
};
