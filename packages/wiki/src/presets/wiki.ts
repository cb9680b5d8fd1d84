import { type AnyToolDefinition, adaptTool, type SurfaceFields } from '@lectern/core';
import { WikiRuntime } from '../lib/runtime.js';
import { SEED_WIKI_PARAM } from '../lib/schemas.js';
import type { WikiOptions } from '../lib/wiki.js';
import { listPagesTool } from '../tools/list-pages.js';
import { listWikisTool } from '../tools/list-wikis.js';
import { readPageDescription, readPageTool } from '../tools/read-page.js';
import { searchWikiTool } from '../tools/search-wiki.js';
import { writeBatchTool } from '../tools/write-batch.js';

const SEED_SEARCH_DESCRIPTION = `Search the pages of one wiki for words and rank them: title and alias hits first, then tags, then body text.
Use it to find pages by topic or wording, then open a hit with read_page (its line as offset lands on the snippet).
Not for browsing a folder: list_pages does that.
Case, accents and plurals are ignored; #word looks at tags only. Continue with next_offset; a query with no letters or digits is refused.`;

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
  const read = readPageTool(runtime, 'seed');
  const list = listPagesTool(runtime);
  const search = searchWikiTool(runtime);
  // The preset keeps the words its snapshot pins where the native tools now say less.
  return [
    listWikisTool(runtime),
    seedWords(list, 'True when more pages follow.', {
      input: {
        ...same(list.inputSchema.shape),
        wiki: SEED_WIKI_PARAM,
        glob: 'Glob on the path from the wiki root, e.g. "wiki/**/*.md".',
        sort: '"modified" puts recently changed pages first.',
      },
    }),
    seedWords(search, 'True when more hits follow.', {
      description: SEED_SEARCH_DESCRIPTION,
      input: {
        ...same(search.inputSchema.shape),
        wiki: SEED_WIKI_PARAM,
        query: 'Words separated by spaces (32 at most); #word matches tags only.',
      },
    }),
    seedWords(read, 'True when lines follow end_line.', {
      description: readPageDescription('truncated'),
      input: {
        ...same(read.inputSchema.shape),
        wiki: SEED_WIKI_PARAM,
        path: 'Page path as list_pages or search_wiki return it, e.g. "wiki/queen-bee.md".',
        raw: 'true: the exact stored text, to quote in write_batch; false: links rendered for reading.',
        offset:
          'First line to return, 1-based (default 1); a truncated read gives the next one as next_offset.',
      },
    }),
    writeBatchTool(runtime, 'seed'),
  ];
}
