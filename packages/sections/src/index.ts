export {
  DEFAULT_MAX_DOC_BYTES,
  DocsIndex,
  type IndexedDoc,
  MARKDOWN_EXTENSIONS,
  type ParseEvent,
  type SectionsOptions,
  type SkippedFile,
} from './lib/docs-index.js';
export { atlasTools } from './presets/atlas.js';
export { mdChunkTools } from './presets/md-chunk.js';
export { sectionTools, sectionToolsFor } from './sections.js';
