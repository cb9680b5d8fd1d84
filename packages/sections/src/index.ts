export {
  DEFAULT_MAX_DOC_BYTES,
  DocsIndex,
  type IndexedDoc,
  type IndexStats,
  MARKDOWN_EXTENSIONS,
  type ParseEvent,
  type SectionsOptions,
  type SkippedFile,
} from './lib/docs-index.js';
export {
  type DocsRoot,
  type SectionsLimits,
  type SectionsPackageOptions,
  sectionsPackage,
  sectionTools,
  sectionToolsFor,
} from './package.js';
export { atlasTools } from './presets/atlas.js';
export { mdChunkTools } from './presets/md-chunk.js';
