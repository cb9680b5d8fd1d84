export { LinkResolver, type LinkStyle } from './lib/resolve.js';
export { DEFAULT_MAX_PAGE_BYTES, type WikiConfig, type WikiOptions } from './lib/wiki.js';
export { displayText } from './lib/wikilinks.js';
export {
  WIKI_TOOL_NAMES,
  type WikiLimits,
  type WikiPackageOptions,
  wikiPackage,
  wikiTools,
} from './package.js';
export { wikiPresetTools } from './presets/wiki.js';
export { WRITE_BATCH_MAX_TEXT_CHARS } from './tools/write-batch.js';
