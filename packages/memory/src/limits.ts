/** Default size cap of an indexed file: 4 MiB. */
export const DEFAULT_MEMORY_MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Default results per search page. */
export const DEFAULT_SEARCH_LIMIT = 10;
/**
 * Byte budget of one search result (core's `DEFAULT_OUTPUT_BYTES`, 4 MiB of compact JSON): a
 * page of long headings or snippets stops before it, and `next_offset` continues after it.
 */
export const MAX_SEARCH_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Most results per search page. */
export const MAX_SEARCH_LIMIT = 50;
/** Largest search offset. */
export const MAX_SEARCH_OFFSET = 10_000;
/** Most lines one `readFragment` returns. */
export const MAX_FRAGMENT_LINES = 200;
/** Byte budget of one fragment; a window stops at a whole line before exceeding it. */
export const MAX_FRAGMENT_BYTES = 256 * 1024;
/** Longest accepted query, in characters. */
export const MAX_QUERY_CHARS = 1000;
/** Default wait for another process's reindex, in milliseconds. */
export const DEFAULT_BUSY_TIMEOUT_MS = 60_000;
/** Files read at once by a reindex. */
export const READ_CONCURRENCY = 8;
/** A file modified this close to the start of a reindex is re-hashed next time (racy mtime). */
export const RACY_MS = 2000;
/**
 * Most matches of a raw query that are ranked: when more chunks match the expression, the most
 * recently indexed this many are, and the result says so in `warnings`. Questions and words are
 * always ranked in full (see the README's "Ranking").
 */
export const MAX_RANKED_CHUNKS = 2000;
