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
  const truncated = (describe: string): FieldFor => ['truncated', { from: 'has_more', describe }];

  const nativePages = listPagesTool(runtime);
  const listPages = adaptTool(nativePages, {
    name: nativePages.name,
    description: nativePages.description,
    output: same(nativePages.outputSchema.shape, {
      has_more: truncated('True when more pages follow.'),
    }),
  });

  const nativeSearch = searchWikiTool(runtime);
  const searchWiki = adaptTool(nativeSearch, {
    name: nativeSearch.name,
    description: nativeSearch.description,
    output: same(nativeSearch.outputSchema.shape, {
      has_more: truncated('True when more hits follow.'),
    }),
  });

  const nativeRead = readPageTool(runtime);
  const readPage = adaptTool(nativeRead, {
    name: nativeRead.name,
    description: readPageDescription('truncated'),
    input: {
      ...same(nativeRead.inputSchema.shape),
      offset:
        'First line to return, 1-based (default 1); a truncated read gives the next one as next_offset.',
    },
    output: same(nativeRead.outputSchema.shape, {
      has_more: truncated('True when lines follow end_line.'),
    }),
  });

  return [listWikisTool(runtime), listPages, searchWiki, readPage, writeBatchTool(runtime)];
}
