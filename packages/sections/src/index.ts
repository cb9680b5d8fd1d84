export { type Chunk, chunkDocument } from './lib/chunk.js';
export {
  DEFAULT_MAX_DOC_BYTES,
  DocsIndex,
  type IndexedDoc,
  MARKDOWN_EXTENSIONS,
  type ParseEvent,
  type SectionsOptions,
  type SkippedFile,
} from './lib/docs-index.js';
export { buildDocument, type DocModel, type ParserUsed, type Section } from './lib/document.js';
export type { OutlineScan, RawHeading } from './lib/headings.js';
export { remarkOutline } from './lib/remark.js';
export { scanOutline } from './lib/scanner.js';
export { atlasTools } from './presets/atlas.js';
export { mdChunkTools } from './presets/md-chunk.js';
export { sectionTools, sectionToolsFor } from './sections.js';
