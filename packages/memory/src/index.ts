export { postgresBackend } from './backend/postgres/backend.js';
export {
  isPostgresUrl,
  type PostgresBackendOptions,
  type PostgresConnectionOptions,
  type PostgresTlsOptions,
} from './backend/postgres/driver.js';
export { type SqliteBackendOptions, sqliteBackend } from './backend/sqlite/backend.js';
export {
  type BackendContext,
  type BackendFactory,
  type ChunkRecord,
  type FileIdentity,
  type FileLookup,
  type FileRecord,
  type FinishSummary,
  type IndexStatus,
  type IndexWriter,
  type MemoryBackend,
  RawQueryError,
  type SearchHit,
  type SearchPage,
  type SearchRequest,
  type StoredFile,
  type StoredProblem,
  type UpdateOptions,
} from './backend/types.js';
export {
  API_NAMES,
  isMemoryError,
  MemoryError,
  type MemoryOperation,
  type MemoryParam,
  renderError,
  type SurfaceNames,
  TOOL_NAMES,
} from './lib/errors.js';
export type { Language } from './lib/language.js';
export {
  buildFtsQuery,
  parseQuery,
  type QueryTerm,
} from './lib/query.js';
export {
  fragmentOutputSchema,
  type MemoryLocale,
  reindexOutputSchema,
  searchOutputSchema,
  sourcesOutputSchema,
} from './lib/schemas.js';
export type { Unlisted } from './lib/unlisted.js';
export { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from './lib/walk.js';
export {
  DEFAULT_MEMORY_MAX_FILE_BYTES,
  DEFAULT_SEARCH_LIMIT,
  MAX_FRAGMENT_BYTES,
  MAX_FRAGMENT_LINES,
  MAX_QUERY_CHARS,
  MAX_RANKED_CHUNKS,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_OFFSET,
} from './limits.js';
export {
  type MemoryLimits,
  type MemoryPackageOptions,
  type MemoryToolSet,
  type MemoryToolsOptions,
  memoryPackage,
  memoryTools,
} from './package.js';
export { memoriaTools } from './presets/memoria.js';
export { createMemory } from './store.js';
export { MEMORY_LIST_SOURCES, memoryListSourcesTool } from './tools/list-sources.js';
export { MEMORY_READ_FRAGMENT, memoryReadFragmentTool } from './tools/read-fragment.js';
export { MEMORY_REINDEX, memoryReindexTool } from './tools/reindex.js';
export { MEMORY_SEARCH, memorySearchTool } from './tools/search.js';
export type {
  Citation,
  Fragment,
  ListSourcesResult,
  MemoryOptions,
  MemorySourceOptions,
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
