// memory: full index of the notes corpus and incremental reindex of one changed note against
// MiniSearch, and query latency (p50, p95) against MiniSearch and ripgrep.
import { appendFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemory } from '@lectern/memory';
import { jsonChild } from '../lib/child.mjs';
import { connectLectern } from '../lib/mcp.mjs';
import { alternate } from '../lib/measure.mjs';
import { makeRow } from '../lib/report.mjs';
import { byKind, kindLine } from '../lib/stats.mjs';
import { textSearch } from '../peers/text-search.mjs';

/** Waits until every note is older than `ms` (a reindex re-hashes files younger than 2 s). */
async function settle(files, ms = 2100) {
  let newest = 0;
  for (const f of files) newest = Math.max(newest, statSync(f).mtimeMs);
  const wait = newest + ms - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

const MINISEARCH = join(dirname(fileURLToPath(import.meta.url)), '../peers/minisearch.mjs');

export async function memory(ctx) {
  const notes = ctx.corpora.notes;
  const { rounds } = ctx.plan;
  const rows = [];
  const mcpDb = join(ctx.work, 'memory-mcp.db');
  // The in-process store's options; the open-and-first-query row opens new stores with them.
  const handlerOptions = {
    sources: [{ id: 'notes', path: notes.dir }],
    dbPath: join(ctx.work, 'memory-handler.db'),
  };
  const store = createMemory(handlerOptions);
  const server = await connectLectern(['--notes', `notes=${notes.dir}`, '--db', mcpDb]);
  // The same server and store with the notes watcher on (`--watch-notes`, `watch: true`).
  const watchedStore = createMemory({
    sources: [{ id: 'notes', path: notes.dir }],
    dbPath: join(ctx.work, 'memory-handler-watched.db'),
    watch: true,
  });
  const watchedServer = await connectLectern([
    '--notes',
    `notes=${notes.dir}`,
    '--db',
    join(ctx.work, 'memory-mcp-watched.db'),
    '--watch-notes',
  ]);
  const mini = jsonChild(MINISEARCH);
  const mb = (notes.bytes / 1e6).toFixed(1);
  try {
    await settle(notes.files);
    let chunks = 0;
    const full = await alternate(
      [
        {
          key: 'lectern',
          run: async () => {
            const r = await server.call('memory_reindex', { full: true });
            chunks = r.structuredContent.chunks;
            if (r.structuredContent.files !== notes.files.length) {
              throw new Error(
                `indexed ${r.structuredContent.files} of ${notes.files.length} notes`,
              );
            }
          },
        },
        { key: 'handler', run: () => store.reindex({ full: true }) },
        {
          key: 'peer',
          run: async () => (await mini.request({ cmd: 'build', files: notes.files })).ms,
        },
      ],
      { rounds: rounds.heavy, warmup: 1 },
    );
    const serverRss = server.peakRssMb();
    const miniRss = mini.peakRssMb();
    rows.push(
      makeRow({
        scenario: 'memory',
        measure: `full index, ${notes.files.length.toLocaleString('en')} notes (${mb} MB)`,
        peer: 'MiniSearch addAll',
        samples: full,
        bytes: notes.bytes,
        rssMb: serverRss,
        peerRssMb: miniRss,
        note: `peak RSS: Lectern server ${serverRss} MB, MiniSearch process ${miniRss} MB. memory_reindex full=true: read, hash, chunk (${chunks.toLocaleString('en')} chunks) and write every note to SQLite FTS5 in one transaction; MiniSearch, in its own process, reads the same files and indexes them in memory (nothing persisted); its time is taken inside that process.`,
      }),
    );

    // ---- one changed note: the first subject edits it, every subject catches up with it.
    // The watched server and store build their index first (not timed): their first reindex
    // walks everything and starts the watchers.
    for (const r of [
      await watchedServer.call('memory_reindex', {}),
      { structuredContent: await watchedStore.reindex() },
    ]) {
      if (r.structuredContent.files !== notes.files.length) {
        throw new Error(
          `watched: indexed ${r.structuredContent.files} of ${notes.files.length} notes`,
        );
      }
    }
    let edits = 0;
    let target = notes.editTargets[0];
    const inc = await alternate(
      [
        {
          key: 'lectern',
          run: async () => {
            target = notes.editTargets[edits++ % notes.editTargets.length];
            appendFileSync(target, `\nEdited ${edits} ${notes.editWord()} ${notes.editWord()}.\n`);
            const t0 = performance.now();
            const r = await server.call('memory_reindex', {});
            const ms = performance.now() - t0;
            if (r.structuredContent.updated !== 1) {
              throw new Error(
                `expected one updated note, got ${JSON.stringify(r.structuredContent)}`,
              );
            }
            return ms;
          },
        },
        { key: 'handler', run: () => store.reindex() },
        {
          key: 'peer',
          run: async () =>
            (await mini.request({ cmd: 'replace', id: notes.files.indexOf(target), path: target }))
              .ms,
        },
        {
          key: 'lecternWatched',
          run: async () => {
            const t0 = performance.now();
            const r = await watchedServer.call('memory_reindex', {});
            const ms = performance.now() - t0;
            if (r.structuredContent.updated !== 1) {
              throw new Error(
                `watched: expected one updated note, got ${JSON.stringify(r.structuredContent)}`,
              );
            }
            return ms;
          },
        },
        {
          key: 'handlerWatched',
          run: async () => {
            const r = await watchedStore.reindex();
            if (r.updated !== 1) {
              throw new Error(`watched store: expected one updated note, got ${JSON.stringify(r)}`);
            }
          },
        },
      ],
      { rounds: rounds.fast, warmup: 2 },
    );
    rows.push(
      makeRow({
        scenario: 'memory',
        measure: 'incremental reindex, one changed note',
        peer: 'MiniSearch replace',
        samples: inc,
        rssMb: server.peakRssMb(),
        peerRssMb: mini.peakRssMb(),
        note: 'memory_reindex stats every note (folder listings are reused while a folder is unchanged), re-chunks the changed one and commits; MiniSearch replaces one known document in memory (it has no way to find what changed on disk).',
      }),
    );
    rows.push(
      makeRow({
        scenario: 'memory',
        measure: 'incremental reindex, one changed note, notes watched',
        peer: 'MiniSearch replace',
        samples: { lectern: inc.lecternWatched, handler: inc.handlerWatched, peer: inc.peer },
        rssMb: watchedServer.peakRssMb(),
        peerRssMb: mini.peakRssMb(),
        note: "the row above with the opt-in watcher on (--watch-notes, watch: true), in the same rounds on the same edits: fs.watch events name what changed since the last reindex, so only that is stat'ed instead of every note; comparing the changed note, re-chunking it and committing are the same work as above.",
      }),
    );

    // ---- queries
    const qs = notes.queries;
    const samples = { lectern: [], handler: [], peer: [] };
    const rgSamples = { lectern: [], peer: [] };
    let withResults = 0;
    let capped = 0;
    for (const [, q] of qs.slice(0, 10)) {
      await server.call('memory_search', { query: q });
      await store.search({ query: q });
      await mini.request({ cmd: 'search', query: q });
    }
    for (let i = 0; i < qs.length; i++) {
      const q = qs[i][1];
      let t0 = performance.now();
      const r = await server.call('memory_search', { query: q });
      const ms = performance.now() - t0;
      samples.lectern.push(ms);
      if (r.structuredContent.results.length > 0) withResults++;
      if (r.structuredContent.match === 'any') capped++;
      t0 = performance.now();
      await store.search({ query: q });
      samples.handler.push(performance.now() - t0);
      samples.peer.push((await mini.request({ cmd: 'search', query: q })).ms);
      if (i < ctx.plan.rgQueries) {
        rgSamples.lectern.push(ms);
        rgSamples.peer.push(
          textSearch(ctx.textSearch, {
            words: [q.replace(/["*]/g, '')],
            dir: notes.dir,
            mode: 'files',
          }).ms,
        );
      }
    }
    const note = `${qs.length} realistic queries (a content word, two and three words of a real sentence, a stem with *, a two-word phrase), ${withResults} with results, ${capped} of them with match "any" (the first result holds only some of the informative words); every query is ranked by the shared BM25F (very common words left out when rarer ones are left; a one-clause query, or a word in over 30% of chunks, read on its champion list of 400; a phrase of such words held by over 2,000 chunks ranked among the newest 2,000); MiniSearch (own process, time taken inside it, so compare it with the handler column) answers the same words ANDed, without phrases, from memory.`;
    // Which kinds of query make the tail: the handler's figures per kind (same samples).
    const kinds = byKind(
      qs.map(([kind]) => kind),
      samples.handler,
    );
    for (const headline of ['median', 'p95']) {
      rows.push(
        makeRow({
          scenario: 'memory',
          measure: `query ${headline === 'median' ? 'p50' : 'p95'}`,
          peer: 'MiniSearch search',
          headline,
          samples,
          rssMb: server.peakRssMb(),
          peerRssMb: mini.peakRssMb(),
          note: headline === 'median' ? note : `handler by query kind: ${kindLine(kinds)}.`,
          details: headline === 'p95' ? { handler_by_kind: kinds } : undefined,
        }),
      );
    }
    rows.push(
      makeRow({
        scenario: 'memory',
        measure: 'query p50 vs a scan of every note',
        peer: `${ctx.textSearch.tool} -l -i -F`,
        samples: rgSamples,
        rssMb: server.peakRssMb(),
        note: `the first ${rgSamples.peer.length} queries; ${ctx.textSearch.tool} looks for the query text literally (quotes and * removed) in every note, with no ranking — what an agent does without an index.`,
      }),
    );

    // ---- open an existing index and answer a first query: what a new stdio session pays
    // before its first memory result (the database is the handler's, built above).
    const saved = join(ctx.work, 'minisearch-index.json');
    await mini.request({ cmd: 'save', path: saved });
    let opened = 0;
    let asked = qs[0][1];
    const open = await alternate(
      [
        {
          key: 'handler',
          run: async () => {
            asked = qs[opened++ % qs.length][1];
            const t0 = performance.now();
            const fresh = createMemory(handlerOptions);
            await fresh.search({ query: asked });
            const ms = performance.now() - t0;
            await fresh.close();
            return ms;
          },
        },
        {
          key: 'peer',
          run: async () => (await mini.request({ cmd: 'load', path: saved, query: asked })).ms,
        },
      ],
      { rounds: rounds.heavy, warmup: 1 },
    );
    rows.push(
      makeRow({
        scenario: 'memory',
        measure: `open the index of ${notes.files.length.toLocaleString('en')} notes and answer a first query`,
        peer: 'MiniSearch loadJSON + search',
        samples: open,
        peerRssMb: mini.peakRssMb(),
        note: "a new store on the handler's database (two connections, each table's pages checked, no walk: the index is current) and its first search, in the bench process; MiniSearch loads its saved JSON index into a new instance and answers the same query, in its own process.",
      }),
    );
  } finally {
    await server.close();
    await watchedServer.close();
    mini.close();
    await store.close();
    await watchedStore.close();
  }
  // Database size once closed (the last connection checkpoints the WAL into the file).
  const size = (p) => (existsSync(p) ? statSync(p).size : 0);
  const dbBytes = (p) => size(p) + size(`${p}-wal`);
  const handlerDb = dbBytes(handlerOptions.dbPath);
  const serverDb = dbBytes(mcpDb);
  const ratio = (b) => Number((b / notes.bytes).toFixed(2));
  const full = rows.find((r) => r.measure.startsWith('full index'));
  if (full) {
    full.details = {
      ...full.details,
      db_bytes: { handler: handlerDb, mcp: serverDb },
      corpus_bytes: notes.bytes,
      db_to_corpus: { handler: ratio(handlerDb), mcp: ratio(serverDb) },
    };
    full.note = `${full.note} Database after the run: ${(handlerDb / 1e6).toFixed(1)} MB, ${ratio(handlerDb)}× the corpus (the server's: ${ratio(serverDb)}×).`;
  }
  return rows;
}
