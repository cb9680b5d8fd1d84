// A slice of the relevance scenario, in CI: the Cranfield notes (../shared/ir/cranfield beside
// the repository, as in CI) indexed by a real memory store on SQLite, and 25 fixed questions
// of the dev split (the first 25 even positions of queries.json) asked through the real
// memory_search tool in-process. It catches a change that breaks ranking (nDCG@10 falls below
// the floor) or that refuses a question. The full figures (all 225 questions, both backends,
// MiniSearch beside them) come from `node bench/run.mjs --only relevance`.
//
// The floor is set on what the ranking of 2026-12-02 (main at 4ba2e6b: FTS5 bm25 with headings
// weighing 4x, "all words, else any") meets with margin: 0.389 on this slice, floor 0.30. When
// the BM25 ranking of issue 27 lands (h27-rank), raise the floor to what it reaches here less
// ~0.05, and add the long dev questions that main refuses with QUERY_TOO_LONG (ids 137 and 179,
// positions 136 and 178) to the slice: with them, "no question is refused" tests the fix too.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invokeTool } from '@lectern/core';
import { createMemory, type MemoryStore, memorySearchTool } from '@lectern/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate, type Qrels, splits, uniqueDocs } from './lib/ir-metrics.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const CRANFIELD = process.env.LECTERN_IR_DIR
  ? resolve(process.env.LECTERN_IR_DIR, 'cranfield')
  : resolve(here, '../..', '../shared/ir/cranfield');
const present = ['notes', 'queries.json', 'qrels.json'].every((f) =>
  existsSync(join(CRANFIELD, f)),
);
/** nDCG@10 this slice must stay above (see the header for how it was set). */
const NDCG10_FLOOR = 0.3;
const SLICE = 25;

describe('relevance slice (Cranfield, 25 dev questions, SQLite, memory_search)', () => {
  if (!present) {
    // Outside CI a checkout without ../shared still runs the other tests; under CI it must not.
    it(`NOT RUN: the Cranfield collection is absent (${CRANFIELD})`, () => {
      console.warn(`[lectern] the relevance slice did not run: ${CRANFIELD} is absent`);
      expect(process.env.CI, 'under CI ../shared/ir/cranfield must be there').toBeFalsy();
    });
    return;
  }

  const queries = JSON.parse(readFileSync(join(CRANFIELD, 'queries.json'), 'utf8')) as {
    id: string;
    text: string;
  }[];
  const qrels = JSON.parse(readFileSync(join(CRANFIELD, 'qrels.json'), 'utf8')) as Qrels;
  const ids = splits(queries).dev.slice(0, SLICE);
  const runs = new Map<string, string[] | null>();
  const refused: string[] = [];
  let work: string;
  let store: MemoryStore;

  // Idle, indexing the 1,400 notes and asking 25 questions takes a few seconds.
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'lectern-relevance-'));
    store = createMemory({
      sources: [{ id: 'cran', path: join(CRANFIELD, 'notes') }],
      dbPath: join(work, 'memory.db'),
    });
    const indexed = await store.reindex({ full: true });
    expect(indexed.files).toBe(1400);
    const tool = memorySearchTool(store);
    for (const id of ids) {
      const text = queries.find((q) => q.id === id)!.text;
      try {
        // One page of 50 citations: the notes in the order of their first citation, as the
        // bench scenario reads them (a note cited for two chunks counts once).
        const r = await invokeTool(tool, { query: text, limit: 50 });
        runs.set(id, uniqueDocs(r.results.map((c) => basename(c.path))));
      } catch (e) {
        runs.set(id, null);
        refused.push(`${id} (${(e as { code?: string }).code ?? String(e)}): ${text}`);
      }
    }
  }, 180_000);

  afterAll(async () => {
    await store?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('takes 25 fixed questions from the dev split', () => {
    expect(ids).toHaveLength(SLICE);
    expect(ids.slice(0, 3)).toEqual(['1', '3', '5']);
  });

  it('refuses no question', () => {
    expect(refused).toEqual([]);
  });

  it('finds at least one note for every question', () => {
    const empty = ids.filter((id) => runs.get(id)?.length === 0);
    expect(empty).toEqual([]);
  });

  it(`keeps nDCG@10 above ${NDCG10_FLOOR}`, () => {
    const f = evaluate(ids, runs, qrels);
    console.info(
      `[lectern] relevance slice: nDCG@10 ${f.ndcg10.toFixed(3)}, Recall@10 ${f.recall10.toFixed(3)} over ${f.n} dev questions`,
    );
    expect(f.ndcg10).toBeGreaterThan(NDCG10_FLOOR);
  });
});
