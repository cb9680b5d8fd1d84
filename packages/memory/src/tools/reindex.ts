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
  full: z.boolean().default(false).describe('Re-read every file.'),
});

/** The `memory_reindex` tool over a store. */
export function memoryReindexTool(store: MemoryStore) {
  return defineTool({
    name: MEMORY_REINDEX,
    title: 'Reindex memory',
    description: [
      'Update the memory index from the note folders: add new files, re-chunk changed ones, follow renames and drop deleted ones.',
      'Use it after editing notes, or when memory_list_sources reports pending changes.',
      'Not needed before the first search, which builds a missing index itself.',
      'Unchanged files are skipped unless full is set. One transaction commits everything; searches use the old index until it ends.',
      'It writes only the index, never the notes; INDEX_BUSY means another process held it too long.',
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
