import type { AnyToolDefinition } from '@lectern/core';
import type { LinesContext } from './lib/context.js';
import { type LineLimits, resolveLimits } from './lib/limits.js';
import { type WorkspaceConfig, Workspaces } from './lib/workspaces.js';
import { listFilesTool } from './tools/list-files.js';
import { readArtifactTool } from './tools/read-artifact.js';
import { readTextTool } from './tools/read-text.js';
import { searchTextTool } from './tools/search-text.js';

/** Options of {@link lineTools} and of the presets built on it. */
export interface LinesOptions {
  /** Named folders the tools may read; at least one. */
  workspaces: ReadonlyArray<WorkspaceConfig>;
  /** Lower limits than `DEFAULT_LINE_LIMITS`; limits can never be raised. */
  limits?: Partial<LineLimits>;
}

/** Resolves options into the context every tool is built from (throws `ToolError` on bad options). */
export function linesContext(options: LinesOptions): LinesContext {
  const limits = resolveLimits(options?.limits);
  const workspaces = new Workspaces(options?.workspaces, limits.maxFileBytes);
  return { workspaces, limits };
}

/**
 * The native line tools, in this order: `read_text`, `list_files`, `search_text`,
 * `read_artifact`. All are read-only, idempotent and closed-world. Synchronous: every
 * workspace root is resolved now, and a missing, empty or non-folder root throws a
 * `ToolError` (`ROOT_MISSING`, `ROOT_EMPTY`, `ROOT_NOT_DIRECTORY`), as do bad limits
 * (`LIMIT_INVALID`, `LIMIT_UNKNOWN`) and bad workspace ids (`WORKSPACES_EMPTY`,
 * `WORKSPACE_ID_INVALID`, `WORKSPACE_DUPLICATE`).
 */
export function lineTools(options: LinesOptions): AnyToolDefinition[] {
  const ctx = linesContext(options);
  return [readTextTool(ctx), listFilesTool(ctx), searchTextTool(ctx), readArtifactTool(ctx)];
}
