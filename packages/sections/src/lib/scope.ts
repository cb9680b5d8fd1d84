import { ToolError } from '@lectern/core';
import type { DocsIndex, IndexedDoc } from './docs-index.js';
import type { DocSearchData, Hit } from './search.js';

/** Documents of the roots, optionally only those whose doc_id starts with `scope`. */
export async function scopedDocs(
  index: DocsIndex,
  scope: string | undefined,
  ctx: { signal: AbortSignal; progress: (p: number, t?: number, m?: string) => Promise<void> },
): Promise<IndexedDoc[]> {
  const { docs } = await index.listDocuments({
    signal: ctx.signal,
    onProgress: (done, total) => void ctx.progress(done, total, 'indexing documents'),
  });
  if (scope === undefined) return docs;
  const picked = docs.filter((d) => d.docId!.startsWith(scope));
  if (picked.length === 0) {
    throw new ToolError(
      'SCOPE_EMPTY',
      `no document's doc_id starts with "${scope}"; give a doc_id or a folder prefix such as 'guide/'.`,
    );
  }
  return picked;
}

/** Documents whose search data are built a few at a time: their texts are read back for it. */
const SEARCH_BATCH = 8;

/**
 * The search data of each document, in order, building what is missing (a few documents at
 * a time, so only a few texts are in memory at once).
 */
export async function searchData(docs: readonly IndexedDoc[]): Promise<DocSearchData[]> {
  const out: DocSearchData[] = [];
  for (let i = 0; i < docs.length; i += SEARCH_BATCH) {
    out.push(...(await Promise.all(docs.slice(i, i + SEARCH_BATCH).map((d) => d.search()))));
  }
  return out;
}

/** Orders hits best first; ties by document order then position. */
export function rank(hits: Hit[]): Hit[] {
  return hits.sort((a, b) => b.score - a.score || a.doc - b.doc || a.unit - b.unit);
}
