import {
  type AnyToolDefinition,
  checkLimits,
  type PackageOptions,
  type ToolPackage,
  type ToolSet,
} from '@lectern/core';
import { DocsIndex, type SectionsOptions } from './lib/docs-index.js';
import { atlasTools } from './presets/atlas.js';
import { mdChunkTools } from './presets/md-chunk.js';
import { chunkTool } from './tools/chunk.js';
import { getSectionTool } from './tools/get-section.js';
import { outlineTool } from './tools/outline.js';
import { readTool } from './tools/read.js';
import { searchTool } from './tools/search.js';
import { whereTool } from './tools/where.js';

/** A documentation root: an id the tools take and a folder. */
export type DocsRoot = SectionsOptions['roots'][number];

/** Limits of the section tools; each may only be lowered. */
export interface SectionsLimits {
  /** Largest Markdown file read, in bytes (default and most 10 MiB). */
  maxFileBytes: number;
  /** Byte budget of one response (default 64 KiB, at least 4096; may be raised). */
  maxOutputBytes: number;
}

/** Options of {@link sectionsPackage}: documentation roots and limits. */
export type SectionsPackageOptions = PackageOptions<DocsRoot, SectionsLimits>;

const LIMITS = ['maxFileBytes', 'maxOutputBytes'] as const;

/** One index per tool set: the tools of a set share its parse cache. */
function indexFor(options: SectionsPackageOptions): DocsIndex {
  const limits = checkLimits('sections', options.limits, LIMITS);
  return new DocsIndex({ roots: [...options.roots], ...limits });
}

/** The six native tools over an existing index (tools built this way share its cache). */
export function sectionToolsFor(index: DocsIndex): AnyToolDefinition[] {
  return [
    outlineTool(index),
    readTool(index),
    getSectionTool(index),
    searchTool(index),
    whereTool(index),
    chunkTool(index),
  ];
}

/**
 * The native section tools (`docs_outline`, `docs_read`, `docs_get_section`, `docs_search`,
 * `docs_where`, `docs_chunk`) over the given roots. Synchronous; throws `ToolError`
 * (`ROOT_MISSING`, `ROOT_NOT_DIRECTORY`, `ROOT_ID_INVALID`, ...) for a bad configuration.
 * `sectionsPackage.tools` is the same with the options every package takes.
 */
export function sectionTools(options: SectionsOptions): AnyToolDefinition[] {
  return sectionToolsFor(new DocsIndex(options));
}

const set = (tools: AnyToolDefinition[]): ToolSet => ({ tools });

/**
 * The sections package: the six native tools, and the presets `atlas` (seed 000) and
 * `md-chunk` (seed 002), each over its own index of the roots.
 */
export const sectionsPackage: ToolPackage<SectionsPackageOptions> = {
  name: 'sections',
  tools: (options) => set(sectionToolsFor(indexFor(options))),
  presets: {
    atlas: (options) => set(atlasTools(indexFor(options))),
    'md-chunk': (options) => set(mdChunkTools(indexFor(options))),
  },
};
