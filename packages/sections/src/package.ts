import type { AnyToolDefinition } from '@lectern/core';
import { DocsIndex, type SectionsOptions } from './lib/docs-index.js';
import { chunkTool } from './tools/chunk.js';
import { getSectionTool } from './tools/get-section.js';
import { outlineTool } from './tools/outline.js';
import { readTool } from './tools/read.js';
import { searchTool } from './tools/search.js';
import { whereTool } from './tools/where.js';

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
 */
export function sectionTools(options: SectionsOptions): AnyToolDefinition[] {
  return sectionToolsFor(new DocsIndex(options));
}
