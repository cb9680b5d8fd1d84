export { WIKI_TOOL_NAMES, wikiTools } from './factory.js';
export { LinkResolver, type LinkStyle } from './lib/resolve.js';
export { DEFAULT_MAX_PAGE_BYTES, type WikiConfig, type WikiOptions } from './lib/wiki.js';
export { displayText } from './lib/wikilinks.js';
export { WRITE_BATCH_MAX_TEXT_CHARS } from './tools/write_batch.js';
