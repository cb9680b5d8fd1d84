import {
  type AnyToolDefinition,
  checkLimits,
  type PackageOptions,
  type ToolPackage,
  type ToolSet,
} from '@lectern/core';
import { WikiRuntime } from './lib/runtime.js';
import type { WikiConfig, WikiOptions } from './lib/wiki.js';
import { wikiPresetTools } from './presets/wiki.js';
import { listPagesTool } from './tools/list-pages.js';
import { listWikisTool } from './tools/list-wikis.js';
import { readPageTool } from './tools/read-page.js';
import { searchWikiTool } from './tools/search-wiki.js';
import { writeBatchTool } from './tools/write-batch.js';

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
  /** Byte budget of one response (default 64 KiB, at least 4096; may be raised). */
  maxOutputBytes: number;
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

const LIMITS = ['maxPageBytes', 'maxOutputBytes'] as const;

function wikiOptions(options: WikiPackageOptions): WikiOptions {
  const limits = checkLimits('wiki', options.limits, LIMITS);
  return { wikis: [...options.roots], ...limits };
}

/**
 * The wiki package: its five native tools, and the `wiki` preset (seed 001): the same tools
 * with the seed's words (`truncated` where the native tools say `has_more`).
 */
export const wikiPackage: ToolPackage<WikiPackageOptions> = {
  name: 'wiki',
  tools: (options): ToolSet => ({ tools: wikiTools(wikiOptions(options)) }),
  presets: { wiki: (options): ToolSet => ({ tools: wikiPresetTools(wikiOptions(options)) }) },
};
