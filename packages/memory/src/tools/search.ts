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
      `A question or words to find, in a sentence if you like: ranked by its informative words (stop words and very common words left out), so chunks holding most of them come first and chunks holding some still appear (match is "any" when the first holds only some). Case, accents and word forms are ignored (notes finds note). Wrap words in double quotes for a phrase; end a word with * for a prefix (deploy* finds deployment). Other punctuation and the words AND, OR, NOT, NEAR are plain text unless raw is true.`,
    ),
  source: z
    .string()
    .max(64)
    .optional()
    .describe(
      'Only search this source id, as listed by memory_list_sources; leave out to search them all.',
    ),
  path_glob: z
    .string()
    .max(500)
    .optional()
    .describe(
      'Only search files whose path matches this glob, e.g. "projects/**" or "**/2024-*.md"; it is tried against the path inside the source and against the full "<source>/<path>". Default: every file.',
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_LIMIT)
    .default(DEFAULT_SEARCH_LIMIT)
    .describe('How many citations one page holds; raise it to see more hits at once.'),
  offset: z
    .number()
    .int()
    .min(0)
    .max(MAX_SEARCH_OFFSET)
    .default(0)
    .describe('Citations to skip; pass next_offset from the previous page to continue.'),
  raw: z
    .boolean()
    .default(false)
    .describe(
      "true reads query as the index's own syntax with its words stemmed: SQLite FTS5 (AND/OR/NOT, NEAR(...), title:, heading_path: or body: column filters) or a PostgreSQL tsquery; an invalid expression fails with INVALID_QUERY.",
    ),
});

/** The `memory_search` tool over a store. */
export function memorySearchTool(store: MemoryStore) {
  return defineTool({
    name: MEMORY_SEARCH,
    title: 'Search memory',
    description: [
      'Search the indexed notes for words or a phrase and get ranked citations pointing to a file and its lines.',
      'Use it to learn where your notes mention something before opening any of them.',
      "Not for reading a passage: memory_read_fragment opens a citation's lines.",
      'Case and accents are ignored; quotes mark a phrase and a trailing * a prefix.',
      'It never modifies your notes: a first call with no index builds one, a cache in its own database. Results reflect the last reindex, and stale marks files edited since. An unknown source fails with UNKNOWN_SOURCE.',
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
