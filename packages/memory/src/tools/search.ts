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
    .describe(
      'A question or words: ranked by their informative words, so chunks holding most come first and chunks holding some still appear (match "any" when the first holds only some). Word forms are found (notes finds note). "Quotes" for a phrase, deploy* for a prefix; AND, OR, NOT, NEAR are plain words unless raw.',
    ),
  source: z.string().max(64).optional().describe('Only this source id, from memory_list_sources.'),
  path_glob: z
    .string()
    .max(500)
    .optional()
    .describe(
      'Only paths matching this glob, e.g. "projects/**", inside the source or as "<source>/<path>".',
    ),
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
    .describe(
      "true: query in the index's own syntax, words stemmed: SQLite FTS5 (OR, NEAR(...), title:, heading_path:, body: filters) or a PostgreSQL tsquery; a bad one fails with INVALID_QUERY.",
    ),
});

/** The `memory_search` tool over a store. */
export function memorySearchTool(store: MemoryStore) {
  return defineTool({
    name: MEMORY_SEARCH,
    title: 'Search memory',
    description: [
      'Search the indexed notes with a question or words and get ranked citations pointing to a file and its lines.',
      'Use it to learn where your notes mention something before opening any of them.',
      "Not for reading a passage: memory_read_fragment opens a citation's lines.",
      'Case and accents are ignored; quotes mark a phrase and a trailing * a prefix.',
      'A first call builds a missing index; it never modifies your notes, and stale marks files edited since the last reindex.',
      'An unknown source fails with UNKNOWN_SOURCE.',
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
