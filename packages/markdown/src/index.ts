export {
  type AsyncDocumentOptions,
  buildDocumentAsync,
  outlineInWorker,
  WORKER_MIN_CHARS,
} from './lib/async.js';
export {
  REMARK_DOCUMENT_CHARS,
  REMARK_HEADING_CHARS,
  REMARK_HEADINGS_TOTAL_CHARS,
  REMARK_TOTAL_CHARS,
  REMARK_WINDOW_CHARS,
  remarkAffordable,
} from './lib/budget.js';
export { type Chunk, chunkDocument } from './lib/chunk.js';
export {
  chunkLines,
  DEFAULT_MAX_CHUNK_WORDS,
  HEADING_SEPARATOR,
  isMarkdownPath,
  type LineChunk,
  type LineChunkOptions,
} from './lib/chunk-lines.js';
export {
  buildDocument,
  computeLineStarts,
  type DocModel,
  documentFrom,
  type Extract,
  extractLines,
  headingSource,
  lineEndOffset,
  lineStartOffset,
  type Outline,
  outlineOf,
  type ParserUsed,
  rootExtract,
  type Section,
  sectionAtLine,
  sectionExtract,
  slugsFor,
  trimBlankTail,
} from './lib/document.js';
export type { BlockRange, OutlineScan, RawHeading } from './lib/headings.js';
export { remarkOutline } from './lib/remark.js';
export { MAX_NESTING, scanOutline } from './lib/scanner.js';
export { type CodeLayout, codeSpans, inlineCodeSpans, inSpans, type Span } from './lib/spans.js';
export {
  findWikiLinks,
  formatWikiLink,
  parseWikiLinkBody,
  type WikiLink,
} from './lib/wikilinks.js';
export {
  findWorkerScript,
  type WorkerFailure,
  WorkerHost,
  type WorkerHostOptions,
  type WorkerMessage,
} from './lib/worker-host.js';
