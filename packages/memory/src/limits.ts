import { DEFAULT_OUTPUT_BYTES } from '@lectern/core';

/** Default size cap of an indexed file: 4 MiB. */
export const DEFAULT_MEMORY_MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Default results per search page. */
export const DEFAULT_SEARCH_LIMIT = 10;
/**
 * Byte budget of one search result unless `maxOutputBytes` raises it (core's
 * `DEFAULT_OUTPUT_BYTES`, 64 KiB of compact JSON): a page of long headings or snippets stops
 * before it, and `next_offset` continues after it.
 */
export const MAX_SEARCH_OUTPUT_BYTES = DEFAULT_OUTPUT_BYTES;
/** Most results per search page. */
export const MAX_SEARCH_LIMIT = 50;
/** Largest search offset. */
export const MAX_SEARCH_OFFSET = 10_000;
/** Most lines one `readFragment` returns. */
export const MAX_FRAGMENT_LINES = 200;
/**
 * Byte budget of one fragment's line text unless `maxOutputBytes` raises it (the response budget
 * less room for the other fields): a window stops at a whole line before exceeding it, and a
 * first line longer than it is cut, with `next_start_char` to read on.
 */
export const MAX_FRAGMENT_BYTES = DEFAULT_OUTPUT_BYTES - 4096;

/** The fragment text budget within a response budget of `maxOutputBytes`. */
export function fragmentBytes(maxOutputBytes: number): number {
  return maxOutputBytes - 4096;
}
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
