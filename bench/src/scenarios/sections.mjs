// sections: cold index of a docs tree, warm outline of one document, a section of the largest
// document (warm, and right after the file changed), and search; peers: a plain remark parse
// (and ripgrep for search); last, a fresh server whose docs root holds only the largest document.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invokeTool } from '@lectern/core';
import { sectionTools } from '@lectern/sections';
import { connectLectern } from '../lib/mcp.mjs';
import { alternate } from '../lib/measure.mjs';
import { makeRow } from '../lib/report.mjs';
import { remarkOutlineFile, remarkSection } from '../peers/remark.mjs';
import { textSearch } from '../peers/text-search.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const REMARK_CHILD = join(here, '../peers/remark.mjs');

function toolsByName(dir) {
  const tools = sectionTools({ roots: [{ id: 'docs', path: dir }] });
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  return (name, args) => invokeTool(byName[name], args);
}

/** Reads every file once so the first recorded round does not pay for the disk. */
function warmPageCache(dir) {
  for (const f of readdirSync(dir, { recursive: true })) {
    if (String(f).endsWith('.md')) readFileSync(join(dir, String(f)));
  }
}

export async function sections(ctx) {
  const { docs } = ctx.corpora;
  const { rounds } = ctx.plan;
  const rows = [];
  const mb = (docs.bytes / 1e6).toFixed(1);

  // ---- cold index: a fresh server process answers its first whole-tree outline
  warmPageCache(docs.dir);
  let coldRss = 0;
  let peerRss = 0;
  let documents = 0;
  const cold = await alternate(
    [
      {
        key: 'lectern',
        run: async () => {
          const s = await connectLectern(['--docs', `docs=${docs.dir}`]);
          try {
            const t0 = performance.now();
            const res = await s.call('docs_outline', { depth: 2, limit: 200 });
            const ms = performance.now() - t0;
            documents = res.structuredContent.total_documents ?? documents;
            coldRss = Math.max(coldRss, s.peakRssMb() ?? 0);
            return ms;
          } finally {
            await s.close();
          }
        },
      },
      {
        key: 'handler',
        run: async () => {
          const call = toolsByName(docs.dir); // a new index: nothing cached
          const t0 = performance.now();
          await call('docs_outline', { depth: 2, limit: 200 });
          return performance.now() - t0;
        },
      },
      {
        key: 'peer',
        run: () => {
          const r = spawnSync(process.execPath, [REMARK_CHILD, docs.dir], {
            encoding: 'utf8',
            maxBuffer: 1 << 24,
          });
          if (r.status !== 0) throw new Error(`remark peer failed: ${r.stderr}`);
          const out = JSON.parse(r.stdout);
          peerRss = Math.max(peerRss, out.rss_mb);
          return out.ms;
        },
      },
    ],
    { rounds: rounds.cold, warmup: 0 },
  );
  rows.push(
    makeRow({
      scenario: 'sections',
      measure: `cold index, ${mb} MB docs tree (${docs.files} files)`,
      peer: 'remark parse, fresh process',
      samples: cold,
      bytes: docs.bytes,
      rssMb: coldRss,
      peerRssMb: peerRss,
      note: `first docs_outline of the whole tree in a fresh server (start-up excluded) parses every file; the peer parses every file with unified + remark-parse in a fresh Node process (start-up excluded). MB/s: Lectern ${mbps(docs.bytes, cold.lectern)}, handler ${mbps(docs.bytes, cold.handler)}, remark ${mbps(docs.bytes, cold.peer)}.`,
      details: { documents_listed: documents },
    }),
  );

  // ---- one long-lived server for the warm measures
  const server = await connectLectern(['--docs', `docs=${docs.dir}`]);
  const call = toolsByName(docs.dir);
  try {
    await server.call('docs_outline', { depth: 2, limit: 200 }); // fill the cache
    await call('docs_outline', { depth: 2, limit: 200 });
    const mediumPath = join(docs.dir, docs.medium.rel);
    const outline = await alternate(
      [
        {
          key: 'lectern',
          run: () => server.call('docs_outline', { doc_id: docs.medium.docId }),
          warmup: 5,
        },
        {
          key: 'handler',
          run: () => call('docs_outline', { doc_id: docs.medium.docId }),
          warmup: 5,
        },
        { key: 'peer', run: () => remarkOutlineFile(mediumPath) },
      ],
      { rounds: rounds.call, warmup: 1 },
    );
    rows.push(
      makeRow({
        scenario: 'sections',
        measure: `warm outline of one ${(docs.medium.bytes / 1e3).toFixed(0)} KB doc`,
        peer: 'remark parse',
        samples: outline,
        rssMb: server.peakRssMb(),
        note: 'Lectern answers from its parse cache; the peer reads and parses the file on every call, as a server without a cache does.',
      }),
    );

    // ---- a section of the largest document: warm, and right after the file changed
    const bigPath = join(docs.dir, docs.big.rel);
    const touch = editor(bigPath);
    const readArgs = { anchor: docs.big.anchor, max_chars: 3000 };
    let sectionChars = 0;
    const read = await alternate(
      [
        {
          key: 'lectern',
          run: async () => {
            const res = await server.call('docs_read', readArgs);
            sectionChars = res.structuredContent.total_chars ?? sectionChars;
          },
          warmup: 5,
        },
        { key: 'handler', run: () => call('docs_read', readArgs), warmup: 5 },
        {
          key: 'lectern_changed',
          run: async () => {
            touch();
            const t0 = performance.now();
            await server.call('docs_read', readArgs);
            const ms = performance.now() - t0;
            await call('docs_read', readArgs); // the in-process cache sees the change too
            return ms;
          },
        },
        {
          key: 'handler_changed',
          run: async () => {
            touch();
            const t0 = performance.now();
            await call('docs_read', readArgs);
            const ms = performance.now() - t0;
            await server.call('docs_read', readArgs); // so the next warm read is warm
            return ms;
          },
        },
        { key: 'peer', run: () => remarkSection(bigPath, docs.big.heading), warmup: 0 },
      ],
      { rounds: rounds.heavy, warmup: 1 },
    );
    const bigMb = (docs.big.bytes / 1e6).toFixed(1);
    rows.push(
      makeRow({
        scenario: 'sections',
        measure: `read a section of a ${bigMb} MB doc, warm`,
        peer: 'remark parse + slice',
        samples: { lectern: read.lectern, handler: read.handler, peer: read.peer },
        rssMb: server.peakRssMb(),
        note: 'docs_read of one section (3,000-character page) from the middle of the largest document; the peer parses the whole document to find the heading, on every call.',
      }),
    );
    rows.push(
      makeRow({
        scenario: 'sections',
        measure: `read a section of a ${bigMb} MB doc, just changed`,
        peer: 'remark parse + slice',
        samples: { lectern: read.lectern_changed, handler: read.handler_changed, peer: read.peer },
        bytes: docs.big.bytes,
        rssMb: server.peakRssMb(),
        note: 'a line break is added to or taken from the end of the file before each call, so Lectern reads, hashes and parses it again (its cold path; a file only touched is answered from the cache after a hash); same peer samples as the warm row.',
      }),
    );

    // ---- search the whole tree
    const words = docs.searchQuery.split(' ');
    let peerFiles = 0;
    const search = await alternate(
      [
        {
          key: 'lectern',
          run: () => server.call('docs_search', { query: docs.searchQuery, limit: 10 }),
        },
        { key: 'handler', run: () => call('docs_search', { query: docs.searchQuery, limit: 10 }) },
        {
          key: 'peer',
          run: () => {
            const r = textSearch(ctx.textSearch, {
              words,
              dir: docs.dir,
              mode: 'files',
              wholeWord: true,
            });
            peerFiles = r.lines;
            return r.ms;
          },
        },
      ],
      { rounds: rounds.call, warmup: 3 },
    );
    rows.push(
      makeRow({
        scenario: 'sections',
        measure: `search "${docs.searchQuery}", ${mb} MB tree`,
        peer: `${ctx.textSearch.tool} -l (files with any word)`,
        samples: search,
        rssMb: server.peakRssMb(),
        note: `docs_search ranks sections (top 10) from its warm index; no remark peer can search without parsing everything, so the peer is ${ctx.textSearch.tool} listing the ${peerFiles} files that contain any of the words (no ranking).`,
      }),
    );
  } finally {
    await server.close();
  }

  // ---- the largest document alone: a fresh server whose docs root holds only that file
  // (first outline, warm reads, then reads right after the file changed); its peak RSS is
  // what holding one such document costs, apart from the rest of the tree.
  const alone = await bigDocAlone(ctx);
  rows.push(alone.row);
  // The same sequence with the two launch settings the sections README documents for the
  // smallest footprint on Linux (glibc returns large blocks at once, V8 keeps a small nursery);
  // the peer's samples are those of the row above, so remark is not parsed twice as often.
  rows.push(
    (
      await bigDocAlone(ctx, {
        env: LEAN_ENV,
        peerSamples: alone.peerSamples,
        label: ', lean launch settings',
        note: `the row above in a server started with ${Object.entries(LEAN_ENV)
          .map(([k, v]) => `${k}=${v}`)
          .join(
            ' ',
          )}, as the sections README suggests for the smallest footprint; same sequence, same peer samples.`,
      })
    ).row,
  );
  return rows;
}

/** Launch settings for a lean server (see packages/sections/README.md, "Memory"). */
const LEAN_ENV = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  NODE_OPTIONS: '--max-semi-space-size=1',
};

async function bigDocAlone(ctx, { env = {}, peerSamples, label = '', note } = {}) {
  const { docs } = ctx.corpora;
  const { rounds } = ctx.plan;
  const dir = join(ctx.work, 'docs-big-alone');
  mkdirSync(dir, { recursive: true });
  const name = basename(docs.big.rel);
  const path = join(dir, name);
  copyFileSync(join(docs.dir, docs.big.rel), path);
  const readArgs = {
    anchor: `${name.replace(/\.md$/, '')}#${docs.big.anchor.split('#')[1]}`,
    max_chars: 3000,
  };
  const server = await connectLectern(['--docs', `docs=${dir}`], { env });
  try {
    await server.call('docs_outline', { depth: 2, limit: 200 });
    for (let i = 0; i < 5; i++) await server.call('docs_read', readArgs);
    const edit = editor(path);
    const samples = await alternate(
      [
        {
          key: 'lectern',
          run: async () => {
            edit();
            const t0 = performance.now();
            await server.call('docs_read', readArgs);
            const ms = performance.now() - t0;
            await server.call('docs_read', readArgs); // and once warm
            return ms;
          },
        },
        ...(peerSamples
          ? []
          : [{ key: 'peer', run: () => remarkSection(path, docs.big.heading), warmup: 0 }]),
      ],
      { rounds: rounds.heavy, warmup: 1 },
    );
    if (peerSamples) samples.peer = peerSamples;
    const bigMb = (docs.big.bytes / 1e6).toFixed(1);
    const row = makeRow({
      scenario: 'sections',
      measure: `read a section of a ${bigMb} MB doc, just changed, server holding only that doc${label}`,
      peer: 'remark parse + slice',
      samples,
      bytes: docs.big.bytes,
      rssMb: server.peakRssMb(),
      note:
        note ??
        'a fresh server whose docs root holds only the largest document: a first whole-root outline, 5 warm reads of the middle section, then each round edits the file (a final line break added or taken away) and reads the section (timed) and reads it again; the server RSS is the peak of that whole sequence (the shared-server rows above also carry the 50 MB tree).',
    });
    return { row, peerSamples: samples.peer };
  } finally {
    await server.close();
  }
}

/**
 * A real edit of a file, each call: a final line break added or taken away (so every version
 * differs from the one before), and the modification time moved on. A server must then read,
 * hash and parse it again; moving only the time would be answered from its cache after a hash.
 */
function editor(path) {
  const original = readFileSync(path);
  const longer = Buffer.concat([original, Buffer.from('\n')]);
  let n = 0;
  return () => {
    n++;
    writeFileSync(path, n % 2 ? longer : original);
    const t = new Date(Date.now() + n * 1000);
    utimesSync(path, t, t);
  };
}

function mbps(bytes, samples) {
  const s = [...samples].sort((a, b) => a - b);
  const med = s[s.length >> 1];
  return (bytes / 1e6 / (med / 1000)).toFixed(1);
}
