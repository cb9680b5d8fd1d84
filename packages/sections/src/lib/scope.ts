import { ToolError } from '@lectern/core';
import type { DocsIndex, IndexedDoc } from './docs-index.js';
import type { Hit } from './rank.js';
import type { DocSearchData } from './search.js';

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

/** True when `a` ranks before `b` in {@link rank}'s order. */
const before = (a: Hit, b: Hit): boolean =>
  a.score > b.score ||
  (a.score === b.score && (a.doc < b.doc || (a.doc === b.doc && a.unit < b.unit)));

/**
 * The first `k` hits in {@link rank}'s order, without sorting them all: a bounded heap keeps the
 * best `k` (its root the worst kept), then only those are sorted. Ties are broken by document
 * and position, so the order is total and the result is exactly `rank(hits).slice(0, k)`.
 * `hits` is not modified.
 */
export function topHits(hits: readonly Hit[], k: number): Hit[] {
  if (k <= 0) return [];
  if (k * 4 >= hits.length) return rank([...hits]).slice(0, k);
  const heap: Hit[] = [];
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  for (const h of hits) {
    if (heap.length < k) {
      heap.push(h);
      // sift up: a parent must rank after (be worse than) its children
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!before(heap[parent]!, heap[i]!)) break;
        swap(parent, i);
        i = parent;
      }
    } else if (before(h, heap[0]!)) {
      heap[0] = h;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let worst = i;
        if (l < k && before(heap[worst]!, heap[l]!)) worst = l;
        if (r < k && before(heap[worst]!, heap[r]!)) worst = r;
        if (worst === i) break;
        swap(i, worst);
        i = worst;
      }
    }
  }
  return rank(heap);
}
