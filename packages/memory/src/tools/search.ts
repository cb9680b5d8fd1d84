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
      `Words to find, 1-${MAX_QUERY_CHARS} characters (at most 32 terms). Case and accents are ignored. Wrap words in double quotes for an exact phrase; end a word with * for a prefix (deploy* finds deployment). Other punctuation and the words AND, OR, NOT, NEAR are plain text unless raw is true.`,
    ),
  source: z
    .string()
    .max(64)
    .optional()
    .describe(
      'Only search this source id, as listed by memory_list_sources. Default: every source.',
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
    .describe(`Citations per page, 1-${MAX_SEARCH_LIMIT}. Default ${DEFAULT_SEARCH_LIMIT}.`),
  offset: z
    .number()
    .int()
    .min(0)
    .max(MAX_SEARCH_OFFSET)
    .default(0)
    .describe(
      `Citations to skip, 0-${MAX_SEARCH_OFFSET}. Default 0; pass next_offset from the previous page to continue.`,
    ),
  raw: z
    .boolean()
    .default(false)
    .describe(
      'true passes query to SQLite FTS5 unchanged (AND/OR/NOT, NEAR(...), heading_path: or body: column filters); an invalid expression fails with INVALID_QUERY. Default false.',
    ),
});

/** The `memory_search` tool over a store. */
export function memorySearchTool(store: MemoryStore) {
  return defineTool({
    name: MEMORY_SEARCH,
    title: 'Search memory',
    description: [
      'Search the indexed notes (Markdown and text files of the configured sources) by words or phrases and return ranked citations: the file, the lines and a highlighted snippet of each matching chunk.',
      'Use it to find where something is written, then open only the cited lines with memory_read_fragment instead of reading whole files; to see which sources exist or whether edits are pending, use memory_list_sources. source (an id from memory_list_sources) and path_glob narrow where to look.',
      'Matching ignores case and accents (cafe finds café); "quoted words" are a phrase, word* a prefix, and other operators are literal text unless raw is true.',
      'When no chunk holds every term, chunks holding any of them are returned and match is "any".',
      'The first call builds the index if it was never built; results reflect the last reindex, and stale: true marks cited files edited since (run memory_reindex). Up to 50 per page; continue with next_offset. An unknown source fails with UNKNOWN_SOURCE and suggests valid ids; a malformed raw query fails with INVALID_QUERY.',
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
