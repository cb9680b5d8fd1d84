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
      'List the configured note sources with what the memory index holds for each (files, chunks, bytes, last indexed time) and how many files are new, changed or deleted on disk since.',
      'Use it to check coverage, to get the source ids that memory_search accepts as a filter, or to decide whether memory_reindex is needed; to find content, use memory_search.',
      'It only stats files, never reads or hashes them, so "changed" means size or modification time differs; problems counts files the last reindex could not index (memory_reindex lists them with reasons).',
      'warnings reports a damaged database that was replaced. Takes no parameters and changes nothing; the answer is one entry per source, never paginated.',
    ].join(' '),
    inputSchema: memoryListSourcesInput,
    outputSchema: sourcesOutputSchema('en'),
    annotations: READ_ONLY,
    handler: () => spelled(TOOL_NAMES, () => store.listSources()),
  });
}
