import type { MemoryStore, SearchOptions } from '../types.js';

/**
 * A search's page as two backends can be compared on: its scores in order, and the chunks of
 * each score but the last as a set (chunks of equal score are ordered by chunk id, which
 * follows the order a reindex met the files, read concurrently; the last score's set may be
 * cut by the page).
 */
export async function comparablePage(store: MemoryStore, options: SearchOptions, limit = 20) {
  const r = await store.search({ limit, ...options });
  const last = r.results.at(-1)?.score;
  return {
    match: r.match,
    fts_query: r.fts_query,
    scores: r.results.map((c) => c.score),
    results: r.results
      .filter((c) => c.score !== last)
      .map((c) => `${c.score} ${c.path}:${c.start_line}`)
      .sort(),
  };
}
