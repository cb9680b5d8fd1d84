import { defineTool, READ_ONLY } from '@lectern/core';
import { z } from 'zod';
import { spelled, TOOL_NAMES } from '../lib/errors.js';
import { sourcesOutputSchema } from '../lib/schemas.js';
import type { MemoryStore } from '../types.js';

/** Native name of the list-sources tool. */
export const MEMORY_LIST_SOURCES = 'memory_list_sources';

/** Input schema of `memory_list_sources` (no parameters). */
export const memoryListSourcesInput = z.object({});

/** The `memory_list_sources` tool over a store. */
export function memoryListSourcesTool(store: MemoryStore) {
  return defineTool({
    name: MEMORY_LIST_SOURCES,
    title: 'List memory sources',
    description: [
      'Show each configured note source with what the index holds for it and how many of its files are new, changed or deleted since the last indexing.',
      'Use it to check coverage, to get the source ids memory_search filters on, or to decide whether memory_reindex is due.',
      'Not for finding content: use memory_search.',
      'It compares sizes and modification times only and changes nothing.',
    ].join(' '),
    inputSchema: memoryListSourcesInput,
    outputSchema: sourcesOutputSchema('en'),
    annotations: READ_ONLY,
    handler: () => spelled(TOOL_NAMES, () => store.listSources()),
  });
}
