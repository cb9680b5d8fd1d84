/**
 * @lectern/lines: MCP tools that read numbered UTF-8 lines of project files with SHA-256
 * change detection, list and search workspace files, and read binary artifacts as bytes.
 *
 * @packageDocumentation
 */
export { DEFAULT_LINE_LIMITS, type LineLimits, resolveLimits } from './lib/limits.js';
export {
  type LineWindow,
  type NumberedLine,
  type ReadLinesOptions,
  type ReadLinesRequest,
  readLines,
} from './lib/read-lines.js';
export { closeSearchWorkers } from './lib/search-pool.js';
export type { WorkspaceConfig } from './lib/workspaces.js';
export {
  type LinesOptions,
  type LinesPackageOptions,
  linesPackage,
  lineTools,
} from './package.js';
export { harnessTools } from './presets/harness.js';
