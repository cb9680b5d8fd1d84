import { DERIVED_WRITE, defineTool } from '@lectern/core';
import { z } from 'zod';
import { boundErrors } from '../lib/bound-errors.js';
import { spelled, TOOL_NAMES } from '../lib/errors.js';
import { reindexOutputSchema } from '../lib/schemas.js';
import type { MemoryStore } from '../types.js';

/** Native name of the reindex tool. */
export const MEMORY_REINDEX = 'memory_reindex';

/** Input schema of `memory_reindex`. */
export const memoryReindexInput = z.object({
  full: z
    .boolean()
    .default(false)
    .describe(
      'true discards the index and re-reads every file; default false, which reads only files whose size or modification time changed.',
    ),
});

/** The `memory_reindex` tool over a store. */
export function memoryReindexTool(store: MemoryStore) {
  return defineTool({
    name: MEMORY_REINDEX,
    title: 'Reindex memory',
    description: [
      'Update the memory index from the note folders: add new files, re-chunk changed ones, follow renames and drop deleted ones.',
      'Use it after editing notes, or when memory_list_sources reports pending changes.',
      'Not needed before the first search, which builds a missing index itself, and not for finding content (memory_search).',
      'Files whose size and modification time are unchanged are skipped; set full only when results look wrong, to re-read everything. Everything commits in one transaction, so searches answer from the old index until it ends; files that cannot be indexed are listed in errors.',
      'It writes only the index database, never the notes; INDEX_BUSY means another process held the index too long.',
    ].join(' '),
    inputSchema: memoryReindexInput,
    outputSchema: reindexOutputSchema('en'),
    annotations: DERIVED_WRITE,
    handler: async (input, ctx) =>
      boundErrors(
        await spelled(TOOL_NAMES, () =>
          store.reindex({
            full: input.full,
            signal: ctx.signal,
            onProgress: (done, total, message) => ctx.progress(done, total, message),
          }),
        ),
      ),
  });
}
