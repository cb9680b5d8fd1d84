export { type Chunk, chunkDocument } from './lib/chunk.js';
export {
  buildDocument,
  computeLineStarts,
  type DocModel,
  type Extract,
  extractLines,
  lineEndOffset,
  lineStartOffset,
  outlineOf,
  type ParserUsed,
  rootExtract,
  type Section,
  sectionAtLine,
  sectionExtract,
  slugsFor,
  trimBlankTail,
} from './lib/document.js';
export type { OutlineScan, RawHeading } from './lib/headings.js';
export { remarkOutline } from './lib/remark.js';
export { scanOutline } from './lib/scanner.js';
