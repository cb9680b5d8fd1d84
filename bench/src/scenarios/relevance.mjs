// relevance: does memory search put the right note first? The Cranfield collection (1,400
// abstracts as notes, 225 questions, graded judgments; ../shared/ir/cranfield beside the
// repository, never copied into it) is indexed by the `lectern` binary on SQLite and on
// PostgreSQL in the same run, and every question goes through `memory_search` over MCP with
// default arguments. Reported per split (all, dev = even positions of queries.json, test = odd
// ones): nDCG@10 (linear gains, as trec_eval's ndcg_cut.10), Recall@10, Recall@100, refusals,
// the top-10 overlap of the two backends and handler p50/p95, beside MiniSearch on the same
// notes and the BM25 reference figures of the collection's README.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemory } from '@lectern/memory';
import pg from 'pg';
import { startCluster } from '../../../scripts/pg-cluster.mjs';
import { jsonChild } from '../lib/child.mjs';
import { evaluate, meanOverlap, ndcgAt, splits, uniqueDocs } from '../lib/ir-metrics.mjs';
import { connectLectern } from '../lib/mcp.mjs';
import { makeRow } from '../lib/report.mjs';
import { quantile } from '../lib/stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
/** `../shared/ir/cranfield` from the repository root (LECTERN_IR_DIR/cranfield when set). */
export const CRANFIELD = process.env.LECTERN_IR_DIR
  ? resolve(process.env.LECTERN_IR_DIR, 'cranfield')
  : resolve(here, '../../..', '../shared/ir/cranfield');
const MINISEARCH = join(here, '../peers/minisearch.mjs');
const SOURCE = 'cran';

/** The collection README's reference runs (standard BM25, k1 0.9, b 0.4), all 225 questions. */
const BM25_REFERENCE = [
  { name: 'BM25, Snowball stemming (ir README)', ndcg10: 0.353, recall10: 0.381, recall100: 0.721 },
  { name: 'BM25, no stemming (ir README)', ndcg10: 0.334, recall10: 0.372, recall100: 0.687 },
];

/** Most results one `memory_search` page holds (the tool's MAX_SEARCH_LIMIT). */
const PAGE = 50;
const DEEP = 100;

const r3 = (x) => (Number.isFinite(x) ? Number(x.toFixed(3)) : null);
const ms2 = (x) => (Number.isFinite(x) ? Number(x.toFixed(2)) : null);
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const p = (xs, q) => (xs.length ? quantile(sorted(xs), q) : Number.NaN);
const noteOf = (path) => basename(path);

/** The note ids of a page of citations, best first. */
const docsOf = (results) => results.map((c) => noteOf(c.path));

/** The error code of a refused call (the JSON of its text block), or 'ERROR'. */
function codeOf(e) {
  const text = e?.result?.content?.map((c) => c.text ?? '').join('') ?? '';
  try {
    return JSON.parse(text).code ?? 'ERROR';
  } catch {
    return e?.code ?? 'ERROR';
  }
}

/** Loads the collection, or returns why it cannot be used. */
export function loadCranfield(dir = CRANFIELD) {
  const notes = join(dir, 'notes');
  for (const f of [notes, join(dir, 'queries.json'), join(dir, 'qrels.json')]) {
    if (!existsSync(f)) return { missing: f };
  }
  const files = readdirSync(notes)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join(notes, f));
  return {
    dir,
    notes,
    files,
    queries: JSON.parse(readFileSync(join(dir, 'queries.json'), 'utf8')),
    qrels: JSON.parse(readFileSync(join(dir, 'qrels.json'), 'utf8')),
  };
}

/** Results 1..DEEP of a question: pages of PAGE citations until DEEP notes or the last page. */
async function deepList(server, query) {
  const docs = new Set();
  let offset = 0;
  while (docs.size < DEEP && offset !== null) {
    const r = (await server.call('memory_search', { query, limit: PAGE, offset }))
      .structuredContent;
    for (const d of docsOf(r.results)) docs.add(d);
    offset = r.next_offset;
  }
  return [...docs].slice(0, DEEP);
}

export async function relevance(ctx) {
  const c = loadCranfield();
  if (c.missing) {
    ctx.log(
      `relevance: SKIPPED, the Cranfield collection is absent (${c.missing} not found; it is read from ../shared/ir/cranfield beside the repository, or LECTERN_IR_DIR/cranfield)`,
    );
    return [];
  }
  const questions = ctx.plan.relevanceQuestions
    ? c.queries.slice(0, ctx.plan.relevanceQuestions)
    : c.queries;
  const external = process.env.LECTERN_PG_URL?.trim();
  const cluster = external ? undefined : await startCluster();
  const base = external || cluster.url;
  const schema = `bench_rel_${process.pid}_${Date.now().toString(36)}`;
  const u = new URL(base);
  u.searchParams.set('schema', schema);
  const pgUrl = u.toString();
  const backends = [
    { key: 'sqlite', label: 'Lectern on SQLite', db: join(ctx.work, 'relevance.db') },
    { key: 'postgres', label: 'Lectern on PostgreSQL', db: pgUrl },
  ];
  const mini = jsonChild(MINISEARCH);
  try {
    for (const b of backends) {
      b.server = await connectLectern(['--notes', `${SOURCE}=${c.notes}`, '--db', b.db]);
      const r = (await b.server.call('memory_reindex', { full: true })).structuredContent;
      if (r.files !== c.files.length) {
        throw new Error(`${b.label}: indexed ${r.files} of ${c.files.length} notes`);
      }
      b.chunks = r.chunks;
      // The handler: the same store in-process on the same database (already current).
      b.store = createMemory({ sources: [{ id: SOURCE, path: c.notes }], dbPath: b.db });
      await b.store.reindex();
      b.top = new Map(); // question id -> ranked notes (default call, then pages), or null
      b.mcpMs = new Map();
      b.handlerMs = new Map();
      b.codes = {};
      b.pageMismatch = 0;
    }
    await mini.request({ cmd: 'build-notes', files: c.files });
    const miniTop = new Map();
    const miniMs = new Map();
    const names = c.files.map((f) => basename(f));

    // Warm-up (not recorded): the servers' JIT, the stores' statements, the peer.
    for (const q of questions.slice(0, 10)) {
      for (const b of backends) {
        await b.server.call('memory_search', { query: q.text }).catch(() => {});
        await b.store.search({ query: q.text }).catch(() => {});
      }
      await mini.request({ cmd: 'rank', query: q.text, k: DEEP });
    }

    for (const q of questions) {
      for (const b of backends) {
        let t0 = performance.now();
        let top10;
        try {
          top10 = docsOf(
            (await b.server.call('memory_search', { query: q.text })).structuredContent.results,
          );
          b.mcpMs.set(q.id, performance.now() - t0);
        } catch (e) {
          if (!e.result) throw e; // a transport failure, not a refusal
          const code = codeOf(e);
          b.codes[code] = (b.codes[code] ?? 0) + 1;
          b.top.set(q.id, null);
        }
        if (top10) {
          // The notes in the order of their first citation, from pages of PAGE citations; the
          // default call's notes must be the same first ones (the pages are one ranking).
          const deep = await deepList(b.server, q.text);
          const first = uniqueDocs(top10);
          if (deep.slice(0, first.length).join() !== first.join()) b.pageMismatch++;
          b.top.set(q.id, deep);
        }
        t0 = performance.now();
        try {
          await b.store.search({ query: q.text });
          b.handlerMs.set(q.id, performance.now() - t0);
        } catch (e) {
          if (!e?.code) throw e;
        }
      }
      const m = await mini.request({ cmd: 'rank', query: q.text, k: DEEP });
      miniTop.set(
        q.id,
        m.ids.map((i) => names[i]),
      );
      miniMs.set(q.id, m.ms);
    }

    const parts = splits(questions);
    const rows = [];
    for (const [split, ids] of Object.entries(parts)) {
      const lat = (byId) => {
        const xs = ids.filter((id) => byId.has(id)).map((id) => byId.get(id));
        return { handler_p50_ms: ms2(p(xs, 0.5)), handler_p95_ms: ms2(p(xs, 0.95)) };
      };
      const figures = (f) => ({
        ndcg10: r3(f.ndcg10),
        recall10: r3(f.recall10),
        recall100: r3(f.recall100),
        refused: f.refused,
      });
      const systems = backends.map((b) => ({
        name: `${b.label} (memory_search over MCP)`,
        key: b.key,
        ...figures(evaluate(ids, b.top, c.qrels)),
        ...lat(b.handlerMs),
      }));
      systems.push({
        name: 'MiniSearch (title, body; its defaults)',
        key: 'minisearch',
        ...figures(evaluate(ids, miniTop, c.qrels)),
        ...lat(miniMs),
      });
      if (split === 'all' && ids.length === c.queries.length) {
        for (const ref of BM25_REFERENCE) systems.push({ ...ref, key: 'reference', refused: 0 });
      }
      const overlap = meanOverlap(ids, backends[0].top, backends[1].top, 10);
      rows.push({
        scenario: 'relevance',
        measure: `Cranfield, ${split} (${ids.length} questions)`,
        headline: 'quality',
        quality: {
          split,
          questions: ids.length,
          systems,
          overlap_top10: {
            sqlite_postgres: r3(overlap.mean),
            over_answered_by_both: r3(overlap.meanAnswered),
            answered_by_both: overlap.answered,
          },
          // Per question (all split only), to see which questions a ranking change moved:
          // nDCG@10 per subject, null where the question was refused.
          ...(split === 'all'
            ? {
                per_question: ids.map((id) => {
                  const one = (runs) =>
                    runs.get(id) === null ? null : r3(ndcgAt(runs.get(id), c.qrels[id], 10));
                  return {
                    id,
                    sqlite: one(backends[0].top),
                    postgres: one(backends[1].top),
                    minisearch: one(miniTop),
                  };
                }),
              }
            : {}),
        },
      });
    }

    // Latency rows in the usual form: MCP and handler per backend against MiniSearch, over the
    // questions each backend answered (a refusal is not a search).
    for (const b of backends) {
      const ids = questions.map((q) => q.id).filter((id) => b.handlerMs.has(id));
      const samples = {
        lectern: ids.map((id) => b.mcpMs.get(id)).filter((x) => x !== undefined),
        handler: ids.map((id) => b.handlerMs.get(id)),
        peer: ids.map((id) => miniMs.get(id)),
      };
      for (const headline of ['median', 'p95']) {
        rows.push(
          makeRow({
            scenario: 'relevance',
            measure: `question ${headline === 'median' ? 'p50' : 'p95'}, ${b.key === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
            peer: 'MiniSearch search',
            headline,
            samples,
            rssMb: b.server.peakRssMb(),
            peerRssMb: mini.peakRssMb(),
            note:
              headline === 'median'
                ? `the ${ids.length} Cranfield questions ${b.label} answered (of ${questions.length}), whole sentences of 8 to 45 words, memory_search with default arguments (${b.chunks} chunks indexed); MiniSearch ranks the same notes with its defaults (words ORed), in its own process (time taken inside it: compare it with the handler column).`
                : undefined,
          }),
        );
      }
    }
    const info = backends
      .map(
        (b) =>
          `${b.label}: refusals ${JSON.stringify(b.codes)}, ${b.pageMismatch} questions whose default call (limit 10) cited other notes than the first of the pages`,
      )
      .join('; ');
    ctx.log(`relevance: ${info}`);
    rows[0].note = `${info}. The ranking judged is the notes in the order of their first citation (a note cited twice, for two of its chunks, counts once), read from pages of ${PAGE} citations until ${DEEP} notes; the timed call is the default one (limit 10). A refused question scores 0. dev = even 0-based positions of queries.json, test = odd ones (tune on dev only).`;
    return rows;
  } finally {
    mini.close();
    for (const b of backends) {
      await b.server?.close();
      await b.store?.close();
    }
    try {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    } catch {
      // The cluster is removed below anyway; an external server keeps an orphan bench schema.
    }
    cluster?.stop();
  }
}
