import { defineTool, READ_ONLY } from '@lectern/core';
import { z } from 'zod';
import { spelled, TOOL_NAMES } from '../lib/errors.js';
import { searchOutputSchema } from '../lib/schemas.js';
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_OFFSET,
} from '../limits.js';
import type { MemoryStore } from '../types.js';

/** Native name of the search tool. */
export const MEMORY_SEARCH = 'memory_search';

/** Input schema of `memory_search`. */
export const memorySearchInput = z.object({
  query: z
    .string()
    .min(1)
    .max(MAX_QUERY_CHARS)
    .describe('Question or words; "quotes" for a phrase, deploy* for a prefix.'),
  source: z.string().max(64).optional().describe('Source id from memory_list_sources.'),
  path_glob: z.string().max(500).optional().describe('Glob on paths, e.g. "projects/**".'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_LIMIT)
    .default(DEFAULT_SEARCH_LIMIT)
    .describe('Citations per page.'),
  offset: z.number().int().min(0).max(MAX_SEARCH_OFFSET).default(0).describe('Pass next_offset.'),
  raw: z
    .boolean()
    .default(false)
    .describe('true: query in FTS5 or tsquery syntax; a bad one fails with INVALID_QUERY.'),
});

/** The `memory_search` tool over a store. */
export function memorySearchTool(store: MemoryStore) {
  return defineTool({
    name: MEMORY_SEARCH,
    title: 'Search memory',
    description: [
      'Search the indexed notes with a question or words and get ranked citations pointing to a file and its lines.',
      'Use it to learn where your notes mention something before opening any.',
      'Not for reading a passage: memory_read_fragment opens a citation.',
      'A first call builds a missing index; an unknown source fails with UNKNOWN_SOURCE.',
    ].join(' '),
    inputSchema: memorySearchInput,
    outputSchema: searchOutputSchema('en'),
    annotations: READ_ONLY,
    handler: (input) =>
      spelled(TOOL_NAMES, () =>
        store.search({
          query: input.query,
          source: input.source,
          pathGlob: input.path_glob,
          limit: input.limit,
          offset: input.offset,
          raw: input.raw,
        }),
      ),
  });
}
