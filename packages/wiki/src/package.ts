import type { AnyToolDefinition } from '@lectern/core';
import { WikiRuntime } from './lib/runtime.js';
import type { WikiOptions } from './lib/wiki.js';
import { listPagesTool } from './tools/list_pages.js';
import { listWikisTool } from './tools/list_wikis.js';
import { readPageTool } from './tools/read_page.js';
import { searchWikiTool } from './tools/search_wiki.js';
import { writeBatchTool } from './tools/write_batch.js';

/** Names of the tools {@link wikiTools} returns, in order. */
export const WIKI_TOOL_NAMES = [
  'list_wikis',
  'list_pages',
  'search_wiki',
  'read_page',
  'write_batch',
] as const;

/**
 * The wiki tools (list_wikis, list_pages, search_wiki, read_page, write_batch) over the given
 * wikis. Synchronous: checks the options, resolves every root (a missing or empty root throws
 * a `ToolError` such as `ROOT_MISSING`) and finishes any batch a crash interrupted.
 */
export function wikiTools(options: WikiOptions): AnyToolDefinition[] {
  const runtime = new WikiRuntime(options);
  return [
    listWikisTool(runtime),
    listPagesTool(runtime),
    searchWikiTool(runtime),
    readPageTool(runtime),
    writeBatchTool(runtime),
  ];
}
