#!/usr/bin/env node
// Benchmark of @lectern/memory (not a test): generates a corpus of notes in a temp folder from a
// fixed seed, then measures a full index, incremental reindexes, query latency, database size
// and peak memory. Run after `pnpm --filter @lectern/memory build`:
//
//   node packages/memory/bench/memory-bench.mjs [--notes 10000] [--queries 300] [--keep] [--json out.json]
//
// Targets (issue 6): full index < 20 s, incremental reindex of one changed file < 100 ms,
// query p95 < 20 ms. For comparison it also times a literal scan of every file (what a grep
// does) and, when they are installed, ripgrep (`rg` on PATH) and MiniSearch (importable).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemory } from '../dist/index.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const NOTES = Number(opt('notes', '10000'));
const QUERIES = Number(opt('queries', '300'));
const KEEP = args.includes('--keep');
const JSON_OUT = opt('json', undefined);
const SEED = 0x1ec7e2;

// ---------------------------------------------------------------- deterministic corpus

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
const pick = (list) => list[Math.floor(rand() * list.length)];

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'zu',
  'pe',
  'dra',
  'qui',
  'ber',
  'lan',
  'tor',
  'fen',
  'gal',
  'hos',
  'jin',
  'mar',
  'nol',
  'pri',
  'ses',
  'tam',
  'ulm',
  'vex',
  'wy',
  'xa',
  'yor',
  'zel',
  'ca',
  'fé',
  'ño',
  'ça',
  'ür',
];
const VOCAB = [];
const seen = new Set();
while (VOCAB.length < 30_000) {
  const n = 2 + Math.floor(rand() * 3);
  let w = '';
  for (let i = 0; i < n; i++) w += pick(SYLLABLES);
  if (!seen.has(w)) {
    seen.add(w);
    VOCAB.push(w);
  }
}
// Zipf-like: word i is drawn with weight 1/(i+1).
const CUM = [];
let acc = 0;
for (let i = 0; i < VOCAB.length; i++) {
  acc += 1 / (i + 1);
  CUM.push(acc);
}
function zipfIndex() {
  const x = rand() * acc;
  let lo = 0;
  let hi = CUM.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUM[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
const word = () => VOCAB[zipfIndex()];
const sentence = () => {
  const n = 6 + Math.floor(rand() * 14);
  const ws = Array.from({ length: n }, word);
  ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1);
  return `${ws.join(' ')}.`;
};
// A sample of the sentences written, to build queries from real text.
const SAMPLED = [];
const paragraph = () =>
  Array.from({ length: 2 + Math.floor(rand() * 5) }, () => {
    const s = sentence();
    if (rand() < 0.01) SAMPLED.push(s);
    return s;
  }).join(' ');

function note(i) {
  const parts = [`# ${word()} ${word()} ${i}`, '', paragraph(), ''];
  const sections = 3 + Math.floor(rand() * 4);
  for (let s = 0; s < sections; s++) {
    parts.push(`## ${word()} ${word()}`, '');
    const paras = 1 + Math.floor(rand() * 4);
    for (let p = 0; p < paras; p++) parts.push(paragraph(), '');
    if (rand() < 0.2) parts.push('```', `${word()} --${word()} ${word()}`, '```', '');
  }
  return parts.join('\n');
}

// ---------------------------------------------------------------- helpers

const ms = (t0) => Number((performance.now() - t0).toFixed(2));
function quantile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Number(sorted[i].toFixed(2));
}
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p95: quantile(s, 0.95), max: quantile(s, 1) };
};
const sizeOf = (p) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};
const mb = (bytes) => Number((bytes / 1024 / 1024).toFixed(1));

// ---------------------------------------------------------------- run

const root = mkdtempSync(join(tmpdir(), 'lectern-memory-bench-'));
const notesDir = join(root, 'notes');
const dbPath = join(root, 'memory.db');
const report = { notes: NOTES, seed: SEED, node: process.version };

try {
  let t0 = performance.now();
  let bytes = 0;
  const files = [];
  for (let i = 0; i < NOTES; i++) {
    const folder = join(notesDir, `d${String(Math.floor(i / 100)).padStart(3, '0')}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    const ext = i % 10 === 9 ? 'txt' : 'md';
    const path = join(folder, `note-${String(i).padStart(5, '0')}.${ext}`);
    const text = note(i);
    writeFileSync(path, text);
    bytes += Buffer.byteLength(text);
    files.push(path);
  }
  report.corpus = { files: NOTES, mb: mb(bytes), generate_ms: ms(t0) };
  // Files modified in the last 2 s are re-hashed at every reindex (racy mtime protection, as in
  // git); real notes are older than that, so let the fresh corpus settle first.
  await new Promise((r) => setTimeout(r, 2100));

  t0 = performance.now();
  const store = createMemory({ sources: [{ id: 'notes', path: notesDir }], dbPath });
  const full = await store.reindex();
  const fullMs = ms(t0);
  report.full_index = {
    ms: fullMs,
    files: full.files,
    chunks: full.chunks,
    mb_per_s: Number((bytes / 1024 / 1024 / (fullMs / 1000)).toFixed(1)),
    files_per_s: Math.round(full.files / (fullMs / 1000)),
    errors: full.errors.length,
  };

  t0 = performance.now();
  const noop = await store.reindex();
  report.incremental_no_change_ms = ms(t0);
  if (noop.unchanged !== NOTES)
    throw new Error(`expected ${NOTES} unchanged, got ${noop.unchanged}`);

  const incremental = [];
  for (let k = 0; k < 5; k++) {
    const target = files[Math.floor(rand() * files.length)];
    writeFileSync(target, `${readFileSync(target, 'utf8')}\nEdited ${k} ${word()} ${word()}.\n`);
    t0 = performance.now();
    const r = await store.reindex();
    incremental.push(ms(t0));
    if (r.updated !== 1) throw new Error(`expected 1 updated, got ${JSON.stringify(r)}`);
  }
  report.incremental_one_change_ms = stats(incremental);

  // Realistic queries (they count for the target): a content word, two and three words taken
  // from one real sentence (stop words included, as people type them), a prefix and a phrase.
  // Separately, the worst case: a single stop word found in nearly every chunk.
  const words = (s) => s.replace('.', '').toLowerCase().split(' ');
  const KINDS = ['content_word', 'two_words', 'three_words', 'prefix', 'phrase'];
  const queries = [];
  for (let q = 0; q < QUERIES; q++) {
    const kind = KINDS[q % KINDS.length];
    const ws = words(pick(SAMPLED));
    const at = Math.floor(rand() * Math.max(1, ws.length - 3));
    if (kind === 'content_word') queries.push([kind, VOCAB[200 + Math.floor(rand() * 20_000)]]);
    else if (kind === 'two_words') queries.push([kind, `${ws[at]} ${ws[at + 2] ?? ws[0]}`]);
    else if (kind === 'three_words') queries.push([kind, ws.slice(at, at + 3).join(' ')]);
    else if (kind === 'prefix') {
      // A stem, as people type deploy* for deployment: the word minus its last two letters.
      const w = VOCAB[100 + Math.floor(rand() * 5000)];
      queries.push([kind, `${w.slice(0, Math.max(4, w.length - 2))}*`]);
    } else queries.push([kind, `"${ws.slice(at, at + 2).join(' ')}"`]);
  }
  const stopQueries = Array.from({ length: 20 }, (_, i) => VOCAB[i]);
  for (const [, q] of queries.slice(0, 20)) await store.search({ query: q }); // warm-up
  const latencies = [];
  const byKind = Object.fromEntries(KINDS.map((k) => [k, []]));
  let hits = 0;
  for (const [kind, q] of queries) {
    t0 = performance.now();
    const r = await store.search({ query: q });
    const t = ms(t0);
    latencies.push(t);
    byKind[kind].push(t);
    hits += r.results.length > 0 ? 1 : 0;
  }
  const stopLatencies = [];
  for (const q of stopQueries) {
    t0 = performance.now();
    await store.search({ query: q });
    stopLatencies.push(ms(t0));
  }
  report.query_ms = {
    ...stats(latencies),
    with_results: hits,
    by_kind: Object.fromEntries(KINDS.map((k) => [k, stats(byKind[k])])),
  };
  report.stop_word_query_ms = {
    ...stats(stopLatencies),
    note: 'single words found in 80-99% of chunks: every match is ranked (FTS5 has no top-k pruning)',
  };

  t0 = performance.now();
  const read = await store.readFragment({
    path: 'notes/d000/note-00000.md',
    startLine: 1,
    endLine: 40,
  });
  report.read_fragment_ms = ms(t0);
  if (read.end_line < 1) throw new Error('read_fragment returned nothing');
  t0 = performance.now();
  await store.listSources();
  report.list_sources_ms = ms(t0);

  store.close();
  report.db_mb = mb(sizeOf(dbPath) + sizeOf(`${dbPath}-wal`));
  report.db_to_corpus_ratio = Number(
    ((sizeOf(dbPath) + sizeOf(`${dbPath}-wal`)) / bytes).toFixed(2),
  );

  // Literal scan of every file per query (what grep without an index does), 10 queries.
  const literal = queries
    .map(([, q]) => q)
    .filter((q) => /^[\p{L}]+$/u.test(q))
    .slice(0, 10);
  const scan = [];
  let matchedFiles = 0;
  for (const q of literal) {
    t0 = performance.now();
    const needle = q.toLowerCase();
    for (const f of files)
      if (readFileSync(f, 'utf8').toLowerCase().includes(needle)) matchedFiles++;
    scan.push(ms(t0));
  }
  report.literal_scan_ms = { ...stats(scan), matched_files: matchedFiles };

  const rg = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  if (rg.status === 0) {
    const times = [];
    for (const q of literal) {
      t0 = performance.now();
      spawnSync('rg', ['-l', '-i', '-F', q, notesDir], { encoding: 'utf8', maxBuffer: 1 << 26 });
      times.push(ms(t0));
    }
    report.ripgrep_ms = stats(times);
  } else {
    report.ripgrep_ms = 'not installed (rg not on PATH)';
  }

  try {
    const { default: MiniSearch } = await import('minisearch');
    t0 = performance.now();
    const mini = new MiniSearch({ fields: ['text'], storeFields: [] });
    mini.addAll(files.map((f, id) => ({ id, text: readFileSync(f, 'utf8') })));
    const buildMs = ms(t0);
    const times = [];
    for (const [, q] of queries) {
      t0 = performance.now();
      mini.search(q.replace(/["*]/g, ''), { prefix: q.endsWith('*') });
      times.push(ms(t0));
    }
    report.minisearch = { build_ms: buildMs, query_ms: stats(times) };
  } catch {
    report.minisearch = 'not installed (minisearch is not a dependency of this package)';
  }

  report.peak_rss_mb = Number((process.resourceUsage().maxRSS / 1024).toFixed(1));
  report.targets = {
    full_index_under_20s: report.full_index.ms < 20_000,
    incremental_under_100ms: report.incremental_one_change_ms.p95 < 100,
    query_p95_under_20ms: report.query_ms.p95 < 20,
  };
  console.log(JSON.stringify(report, null, 2));
  if (JSON_OUT) writeFileSync(JSON_OUT, `${JSON.stringify(report, null, 2)}\n`);
} finally {
  if (!KEEP) rmSync(root, { recursive: true, force: true });
  else console.error(`kept ${root}`);
}
