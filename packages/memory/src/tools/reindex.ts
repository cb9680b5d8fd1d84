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
      'Update the memory index from the source folders: add new files, re-chunk changed ones, follow renames and drop deleted ones; files with unchanged size and modification time are skipped.',
      'Use it after editing notes or when memory_list_sources shows pending changes; memory_search keeps answering from the previous index until this finishes, because all changes commit in one transaction.',
      'Set full only when results look wrong: it re-reads everything.',
      'Files that cannot be indexed (invalid UTF-8, binary, over the size limit) are left out and listed in errors without failing the call.',
      'Sends progress notifications when the client asks for them; fails with INDEX_BUSY if another process holds the index for over a minute. Writes only the index database, never the notes.',
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
