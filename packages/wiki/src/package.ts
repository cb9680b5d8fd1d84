import {
  type AnyToolDefinition,
  checkLimits,
  type PackageOptions,
  type ToolPackage,
  type ToolSet,
} from '@lectern/core';
import { WikiRuntime } from './lib/runtime.js';
import type { WikiConfig, WikiOptions } from './lib/wiki.js';
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

/** Limits of the wiki tools; each may only be lowered. */
export interface WikiLimits {
  /** Largest page, in bytes, that can be read or written (default 1 MiB, at most 16 MiB). */
  maxPageBytes: number;
}

/** Options of {@link wikiPackage}: the wikis as roots, and limits. */
export type WikiPackageOptions = PackageOptions<WikiConfig, WikiLimits>;

/**
 * The wiki tools (list_wikis, list_pages, search_wiki, read_page, write_batch) over the given
 * wikis. Synchronous: checks the options, resolves every root (a missing or empty root throws
 * a `ToolError` such as `ROOT_MISSING`) and finishes any batch a crash interrupted.
 * `wikiPackage.tools` is the same with the options every package takes.
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

const LIMITS = ['maxPageBytes'] as const;

function wikiSet(options: WikiPackageOptions): ToolSet {
  const limits = checkLimits('wiki', options.limits, LIMITS);
  return { tools: wikiTools({ wikis: [...options.roots], ...limits }) };
}

/**
 * The wiki package: its five tools, which are also the `wiki` preset (seed 001): the native
 * surface is the seed's.
 */
export const wikiPackage: ToolPackage<WikiPackageOptions> = {
  name: 'wiki',
  tools: wikiSet,
  presets: { wiki: wikiSet },
};
