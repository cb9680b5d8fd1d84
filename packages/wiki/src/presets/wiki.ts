import { type AnyToolDefinition, adaptTool, type SurfaceFields } from '@lectern/core';
import { WikiRuntime } from '../lib/runtime.js';
import type { WikiOptions } from '../lib/wiki.js';
import { listPagesTool } from '../tools/list-pages.js';
import { listWikisTool } from '../tools/list-wikis.js';
import { readPageDescription, readPageTool } from '../tools/read-page.js';
import { searchWikiTool } from '../tools/search-wiki.js';
import { writeBatchTool } from '../tools/write-batch.js';

/** Every field of a native object as it is, in the native order, with `rename` applied. */
function same(
  shape: Record<string, unknown>,
  rename: Readonly<Record<string, FieldFor>> = {},
): SurfaceFields {
  return Object.fromEntries(
    Object.keys(shape).map((k) => [rename[k]?.[0] ?? k, rename[k]?.[1] ?? true]),
  );
}
type FieldFor = readonly [string, SurfaceFields[string]];

/**
 * The `wiki` preset (seed 001): the wiki tools under the seed's names, which are the native ones,
 * with one difference of words: where the native tools say `has_more` (more follows), the seed's
 * server says `truncated`, so list_pages, search_wiki and read_page answer with `truncated`.
 */
export function wikiPresetTools(options: WikiOptions): AnyToolDefinition[] {
  const runtime = new WikiRuntime(options);
  /** The native tool with `truncated` in place of `has_more`; the rest as it is. */
  const seedWords = (
    native: AnyToolDefinition,
    more: string,
    changes: { description?: string; input?: SurfaceFields } = {},
  ) =>
    adaptTool(native, {
      name: native.name,
      description: changes.description ?? native.description,
      ...(changes.input ? { input: changes.input } : {}),
      output: same(native.outputSchema.shape, {
        has_more: ['truncated', { from: 'has_more', describe: more }],
      }),
    });
  const read = readPageTool(runtime);
  return [
    listWikisTool(runtime),
    seedWords(listPagesTool(runtime), 'True when more pages follow.'),
    seedWords(searchWikiTool(runtime), 'True when more hits follow.'),
    seedWords(read, 'True when lines follow end_line.', {
      description: readPageDescription('truncated'),
      input: {
        ...same(read.inputSchema.shape),
        offset:
          'First line to return, 1-based (default 1); a truncated read gives the next one as next_offset.',
      },
    }),
    writeBatchTool(runtime),
  ];
}
