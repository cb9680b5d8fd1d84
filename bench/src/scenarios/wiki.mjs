// wiki: read_page and write_batch of ten pages against plain fs reads and writes of the same
// files, and eight concurrent writer processes against eight processes writing with plain fs.
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { invokeTool } from '@lectern/core';
import { wikiTools } from '@lectern/wiki';
import { connectLectern } from '../lib/mcp.mjs';
import { alternate } from '../lib/measure.mjs';
import { makeRow } from '../lib/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const WRITER = join(here, '../peers/wiki-writer.mjs');

export async function wiki(ctx) {
  const w = ctx.corpora.wiki;
  const { rounds } = ctx.plan;
  const rows = [];
  const tools = Object.fromEntries(
    wikiTools({ wikis: [{ id: 'w', path: w.dir }] }).map((t) => [t.name, t]),
  );
  const handler = (name, args) => invokeTool(tools[name], { wiki: 'w', ...args });
  // Each subject writes its own ten pages (same sizes), so versions never cross.
  const sets = { lectern: w.pages };
  for (const key of ['handler', 'peer']) {
    sets[key] = w.pages.map((p) => p.replace('bench-', `${key}-`));
    for (const [i, p] of sets[key].entries()) copyFileSync(join(w.dir, w.pages[i]), join(w.dir, p));
  }
  const server = await connectLectern(['--wiki', `w=${w.dir}`]);
  try {
    const mcp = async (name, args) =>
      (await server.call(name, { wiki: 'w', ...args })).structuredContent;
    for (const raw of [false, true]) {
      const read = await alternate(
        [
          {
            key: 'lectern',
            run: async () => {
              for (const path of sets.lectern) await mcp('read_page', { path, raw });
            },
          },
          {
            key: 'handler',
            run: async () => {
              for (const path of sets.handler) await handler('read_page', { path, raw });
            },
          },
          {
            key: 'peer',
            run: () => {
              for (const p of sets.peer) readFileSync(join(w.dir, p), 'utf8');
            },
          },
        ],
        { rounds: rounds.call, warmup: 5 },
      );
      rows.push(
        makeRow({
          scenario: 'wiki',
          measure: `read_page ×10 pages${raw ? ', raw' : ', rendered'}`,
          peer: 'fs.readFileSync ×10',
          samples: read,
          rssMb: server.peakRssMb(),
          note: raw
            ? undefined
            : 'ten sequential calls of ~8 KB pages; rendered mode turns wikilinks into readable text, raw returns the stored text and its version.',
        }),
      );
    }

    const versions = { lectern: [], handler: [] };
    for (const key of ['lectern', 'handler']) {
      for (const path of sets[key]) {
        const page =
          key === 'lectern'
            ? await mcp('read_page', { path, raw: true })
            : await handler('read_page', { path, raw: true });
        versions[key].push(page.version);
      }
    }
    const content = (i, r) =>
      `# Page ${i}\n\nround ${r}\n${'Some text about [[index]] and colonies.\n'.repeat(200)}`;
    let round = 0;
    const batch = (key) => ({
      operations: sets[key].map((path, i) => ({
        op: 'put',
        path,
        content: content(i, round),
        expected_version: versions[key][i],
      })),
    });
    const keep = (key, out) => {
      versions[key] = out.operations.map((o) => o.version);
    };
    const write = await alternate(
      [
        {
          key: 'lectern',
          run: async () => {
            round++;
            keep('lectern', await mcp('write_batch', batch('lectern')));
          },
        },
        {
          key: 'handler',
          run: async () => keep('handler', await handler('write_batch', batch('handler'))),
        },
        {
          key: 'peer',
          run: () => {
            for (const [i, p] of sets.peer.entries())
              writeFileSync(join(w.dir, p), content(i, round));
          },
        },
      ],
      { rounds: rounds.call, warmup: 5 },
    );
    rows.push(
      makeRow({
        scenario: 'wiki',
        measure: 'write_batch of 10 pages (one batch)',
        peer: 'fs.writeFileSync ×10',
        samples: write,
        rssMb: server.peakRssMb(),
        note: 'a floor, not a like-for-like peer: write_batch checks every expected_version, takes the cross-process lock, journals the batch and writes each page atomically with fsync (temp file, rename, directory fsync); plain writeFileSync does none of that.',
      }),
    );
  } finally {
    await server.close();
  }

  // ---- eight concurrent writers
  const batches = ctx.plan.writerBatches;
  const WRITERS = ctx.plan.writers;
  const own = Array.from({ length: WRITERS }, (_, i) => `wiki/writer-${i}.md`);
  for (const p of own) writeFileSync(join(w.dir, p), 'start\n');
  const servers = await Promise.all(own.map(() => connectLectern(['--wiki', `w=${w.dir}`])));
  const pools = {};
  let rss = 0;
  try {
    pools.handler = await writerPool('handler', w.dir, WRITERS);
    pools.fs = await writerPool('fs', w.dir, WRITERS);
    const viaMcp = async (i, page, counter) => {
      const s = servers[i];
      const lat = [];
      let conflicts = 0;
      for (let k = 0; k < (counter ? 10 : batches); ) {
        const t0 = performance.now();
        const cur = (await s.call('read_page', { wiki: 'w', path: page, raw: true }))
          .structuredContent;
        const next = counter ? `${Number(cur.content) + 1}\n` : `${page} write ${k}\n`.repeat(100);
        try {
          await s.call('write_batch', {
            wiki: 'w',
            operations: [{ op: 'put', path: page, content: next, expected_version: cur.version }],
          });
          lat.push(performance.now() - t0);
          k++;
        } catch (e) {
          if (!String(e.message).includes('BATCH_REJECTED')) throw e;
          conflicts++;
        }
      }
      return { latencies: lat, conflicts };
    };
    const concurrent = await alternate(
      [
        {
          key: 'lectern',
          run: async () => {
            const t0 = performance.now();
            await Promise.all(own.map((p, i) => viaMcp(i, p, false)));
            const ms = performance.now() - t0;
            rss = Math.max(rss, ...servers.map((s) => s.peakRssMb() ?? 0));
            return ms;
          },
        },
        { key: 'handler', run: async () => (await pools.handler.run(own, batches)).ms },
        { key: 'peer', run: async () => (await pools.fs.run(own, batches)).ms },
      ],
      { rounds: rounds.heavy, warmup: 1 },
    );

    // One shared page incremented 10 times by each writer: who keeps every increment?
    const counterPage = 'wiki/counter.md';
    const counter = {};
    let lecternConflicts = 0;
    writeFileSync(join(w.dir, counterPage), '0\n');
    const outs = await Promise.all(servers.map((_, i) => viaMcp(i, counterPage, true)));
    lecternConflicts = outs.reduce((a, o) => a + o.conflicts, 0);
    counter.lectern = Number(readFileSync(join(w.dir, counterPage), 'utf8'));
    writeFileSync(join(w.dir, counterPage), '0\n');
    await pools.fs.run(
      own.map(() => counterPage),
      10,
      true,
    );
    counter.peer = Number(readFileSync(join(w.dir, counterPage), 'utf8'));
    const expected = WRITERS * 10;
    rows.push(
      makeRow({
        scenario: 'wiki',
        measure: `${WRITERS} concurrent writer processes × ${batches} batches`,
        peer: `${WRITERS} processes, plain fs`,
        samples: concurrent,
        rssMb: rss,
        note: `wall time for ${WRITERS * batches} read-then-write batches, each writer on its own page (Lectern: ${WRITERS} lectern servers over stdio; handler: ${WRITERS} Node processes calling write_batch; peer: ${WRITERS} Node processes with readFileSync/writeFileSync). On one shared page incremented ${expected} times, Lectern kept ${counter.lectern}/${expected} (${lecternConflicts} stale batches rejected and retried); plain fs kept ${counter.peer}/${expected}.`,
        details: {
          shared_counter: {
            expected,
            lectern: counter.lectern,
            plain_fs: counter.peer,
            lectern_rejected_and_retried: lecternConflicts,
          },
        },
      }),
    );
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    for (const pool of Object.values(pools)) pool.close();
  }
  return rows;
}

/**
 * A pool of writer processes (see ../peers/wiki-writer.mjs), started once and reused by every
 * round, so rounds time the writing and not Node's start-up.
 */
async function writerPool(mode, dir, size) {
  const procs = [];
  for (let i = 0; i < size; i++) {
    const p = spawn(process.execPath, [WRITER, mode, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: p.stdout });
    const queue = [];
    const waiting = [];
    lines.on('line', (l) => (waiting.length ? waiting.shift()(l) : queue.push(l)));
    const next = () =>
      queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r));
    procs.push({ p, next });
  }
  await Promise.all(
    procs.map(async (w) => {
      if ((await w.next()) !== 'ready') throw new Error('writer did not start');
    }),
  );
  return {
    /** Runs one job per page (page i on writer i), all at once; resolves to the wall time. */
    async run(pages, batches, counter = false) {
      const t0 = performance.now();
      const outs = await Promise.all(
        pages.map(async (page, i) => {
          procs[i].p.stdin.write(`${JSON.stringify({ page, batches, counter })}\n`);
          return JSON.parse(await procs[i].next());
        }),
      );
      return { ms: performance.now() - t0, outs };
    },
    close() {
      for (const w of procs) w.p.stdin.end();
    },
  };
}
