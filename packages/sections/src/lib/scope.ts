import { ToolError } from '@lectern/core';
import type { DocsIndex, IndexedDoc } from './docs-index.js';
import type { Hit } from './search.js';

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

/** Orders hits best first; ties by document order then position. */
export function rank(hits: Hit[]): Hit[] {
  return hits.sort((a, b) => b.score - a.score || a.doc - b.doc || a.unit - b.unit);
}
