import type { AnyToolDefinition, PackageOptions, ToolPackage, ToolSet } from '@lectern/core';
import type { LinesContext } from './lib/context.js';
import { type LineLimits, resolveLimits } from './lib/limits.js';
import { type WorkspaceConfig, Workspaces } from './lib/workspaces.js';
import { harnessTools } from './presets/harness.js';
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

/** Options of {@link linesPackage}: workspaces as roots, and lower line limits. */
export type LinesPackageOptions = PackageOptions<WorkspaceConfig, LineLimits>;

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
 * `WORKSPACE_ID_INVALID`, `WORKSPACE_DUPLICATE`). `linesPackage.tools` is the same with the
 * options every package takes.
 */
export function lineTools(options: LinesOptions): AnyToolDefinition[] {
  const ctx = linesContext(options);
  return [readTextTool(ctx), listFilesTool(ctx), searchTextTool(ctx), readArtifactTool(ctx)];
}

const linesOptions = (options: LinesPackageOptions): LinesOptions => ({
  workspaces: options.roots,
  ...(options.limits === undefined ? {} : { limits: { ...options.limits } }),
});
const set = (tools: AnyToolDefinition[]): ToolSet => ({ tools });

/** The lines package: the four native tools, and the preset `harness` (seed 003). */
export const linesPackage: ToolPackage<LinesPackageOptions> = {
  name: 'lines',
  tools: (options) => set(lineTools(linesOptions(options))),
  presets: {
    harness: (options) => set(harnessTools(linesOptions(options))),
  },
};
