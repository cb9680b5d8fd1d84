import type { AnyToolDefinition } from '@lectern/core';
import type { MemoryLocale } from './lib/schemas.js';
import { memoriaTools } from './presets/memoria.js';
import { memoryListSourcesTool } from './tools/list-sources.js';
import { memoryReadFragmentTool } from './tools/read-fragment.js';
import { memoryReindexTool } from './tools/reindex.js';
import { memorySearchTool } from './tools/search.js';
import type { MemoryStore } from './types.js';

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions {
  /** `en` (default): `memory_*` tools; `es`: the Spanish `memoria` set (see `memoriaTools`). */
  locale?: MemoryLocale;
}

/**
 * The memory tools over one store: `memory_search`, `memory_read_fragment`,
 * `memory_list_sources`, `memory_reindex` (or their Spanish versions with `locale: 'es'`).
 * The store stays owned by the caller; close it when the server stops.
 */
export function memoryTools(
  store: MemoryStore,
  options: MemoryToolsOptions = {},
): AnyToolDefinition[] {
  const locale = options.locale ?? 'en';
  if (locale === 'es') return memoriaTools(store);
  if (locale !== 'en') {
    throw new Error(`memoryTools: unknown locale ${JSON.stringify(locale)}; use 'en' or 'es'.`);
  }
  return [
    memorySearchTool(store),
    memoryReadFragmentTool(store),
    memoryListSourcesTool(store),
    memoryReindexTool(store),
  ];
}
