export { fsyncDirectory, isTempName, TEMP_PREFIX, writeFileAtomic } from './atomic.js';
export { editDistance, isToolError, suggest, ToolError, type ToolErrorPayload } from './errors.js';
export {
  createRoot,
  createRootSync,
  DEFAULT_MAX_FILE_BYTES,
  fileKind,
  isDirectorySync,
  type OpenedFile,
  type OpenOptions,
  openInRoot,
  type ResolvedPath,
  type Root,
  type RootOptions,
  readFileInRoot,
  resolveForWrite,
  resolveInRoot,
  type StatResult,
  statInRoot,
  type WriteTarget,
} from './guard.js';
export {
  type CharPage,
  type LinePage,
  type LinePlan,
  type LinePlanOptions,
  paginateChars,
  paginateLines,
  planLines,
} from './paginate.js';
export {
  type DecodedText,
  decodeUtf8,
  detectLineEndings,
  findInvalidUtf8,
  findNul,
  hasBom,
  isBinary,
  type LineEndings,
  splitLines,
} from './text.js';
export {
  type AdaptOptions,
  type AnyObjectSchema,
  type AnyToolDefinition,
  adaptTool,
  defineTool,
  describeZodError,
  errorPayload,
  invokeTool,
  type RegisterOptions,
  registerTools,
  resolveToolNames,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
} from './tool.js';
export { assertVersion, isVersion, sha256, sha256Handle } from './version.js';
