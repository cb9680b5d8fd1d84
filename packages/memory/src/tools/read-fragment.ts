import { defineTool, READ_ONLY } from '@lectern/core';
import { z } from 'zod';
import { spelled, TOOL_NAMES } from '../lib/errors.js';
import { fragmentOutputSchema } from '../lib/schemas.js';
import { MAX_FRAGMENT_LINES } from '../limits.js';
import type { MemoryStore } from '../types.js';

/** Native name of the read-fragment tool. */
export const MEMORY_READ_FRAGMENT = 'memory_read_fragment';

/** Input schema of `memory_read_fragment`. */
export const memoryReadFragmentInput = z.object({
  path: z.string().min(1).max(4096).describe('"<source>/<path>" from a citation.'),
  start_line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`1-based; default 1, or end_line - ${MAX_FRAGMENT_LINES - 1}.`),
  end_line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Inclusive; default start_line + ${MAX_FRAGMENT_LINES - 1}.`),
  start_char: z.number().int().min(0).optional().describe("A cut line's next_start_char."),
});

/** The `memory_read_fragment` output: the shared fragment fields and where a cut line goes on. */
const memoryReadFragmentOutput = fragmentOutputSchema('en').extend({
  next_start_char: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe(
      'Set when a line longer than one answer was cut: pass it as start_char with next_start_line.',
    ),
});

/** The `memory_read_fragment` tool over a store. */
export function memoryReadFragmentTool(store: MemoryStore) {
  return defineTool({
    name: MEMORY_READ_FRAGMENT,
    title: 'Read memory fragment',
    description: [
      'Read numbered lines of one indexed note as it is on disk now.',
      'Use it after memory_search to see a citation in context without loading the whole file.',
      'Not for finding which note mentions something: that is memory_search.',
      `Pass the citation's path and line range; more than ${MAX_FRAGMENT_LINES} lines fails with RANGE_TOO_LARGE; next_start_line (and next_start_char in a cut line) says where to go on.`,
      'A path outside the index fails with NOT_INDEXED. stale means the lines may have moved: run memory_reindex.',
    ].join(' '),
    inputSchema: memoryReadFragmentInput,
    outputSchema: memoryReadFragmentOutput,
    annotations: READ_ONLY,
    handler: (input) =>
      spelled(TOOL_NAMES, () =>
        store.readFragment({
          path: input.path,
          startLine: input.start_line,
          endLine: input.end_line,
          ...(input.start_char === undefined ? {} : { startChar: input.start_char }),
        }),
      ),
  });
}
