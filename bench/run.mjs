#!/usr/bin/env node
// Lectern's benchmark harness: generates its corpora from a seed into a temporary folder, runs
// every scenario against its peers (alternating, with warm-up), prints one table and writes
// results/<date>.json and results/<date>.md. Run from the repository root with `pnpm bench`
// (which builds first), or `node bench/run.mjs [--quick | --smoke] [--out DIR] [--seed N]
// [--only sections,lines,...] [--no-install] [--keep]`.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateDocs } from './src/corpus/docs.mjs';
import { generateNotes } from './src/corpus/notes.mjs';
import { generateTextFile } from './src/corpus/text.mjs';
import { generateWiki } from './src/corpus/wiki.mjs';
import { LECTERN_BIN } from './src/lib/mcp.mjs';
import { setWarmupCap } from './src/lib/measure.mjs';
import { findTextSearchPeer, versions } from './src/lib/peers.mjs';
import { markdownReport, qualityTextTable, textTable } from './src/lib/report.mjs';
import { agent } from './src/scenarios/agent.mjs';
import { lines } from './src/scenarios/lines.mjs';
import { lint } from './src/scenarios/lint.mjs';
import { memory } from './src/scenarios/memory.mjs';
import { postgres } from './src/scenarios/postgres.mjs';
import { relevance } from './src/scenarios/relevance.mjs';
import { sections } from './src/scenarios/sections.mjs';
import { server } from './src/scenarios/server.mjs';
import { wiki } from './src/scenarios/wiki.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const MiB = 1024 * 1024;

/**
 * Sizes and repetitions. Full mode gives the published figures; quick mode small corpora in
 * under a minute; smoke mode (the CI test) tiny corpora, two rounds and at most one warm-up
 * round per subject, to prove the harness works, never how fast anything is.
 */
const PLANS = {
  full: {
    docsBytes: 50_000_000,
    bigDocBytes: 10_000_000,
    textBytes: 16 * MiB,
    notes: 10_000,
    queries: 300,
    rgQueries: 60,
    wikiPages: 200,
    lintTools: 1000,
    diffTools: 200,
    writerBatches: 25,
    writers: 8,
    pgClients: 4,
    // Questions of the relevance scenario (null: all 225 of Cranfield).
    relevanceQuestions: null,
    rounds: { cold: 3, heavy: 3, call: 15, fast: 30, startup: 10 },
  },
  quick: {
    docsBytes: 600_000,
    bigDocBytes: 150_000,
    textBytes: 2 * MiB,
    notes: 300,
    queries: 40,
    rgQueries: 10,
    wikiPages: 30,
    lintTools: 200,
    diffTools: 50,
    writerBatches: 5,
    writers: 8,
    pgClients: 4,
    relevanceQuestions: null,
    rounds: { cold: 2, heavy: 2, call: 3, fast: 5, startup: 3 },
  },
  smoke: {
    docsBytes: 120_000,
    bigDocBytes: 30_000,
    textBytes: 256 * 1024,
    notes: 60,
    queries: 6,
    rgQueries: 2,
    wikiPages: 12,
    lintTools: 40,
    diffTools: 20,
    writerBatches: 2,
    writers: 2,
    pgClients: 2,
    relevanceQuestions: 12,
    maxWarmup: 1,
    rounds: { cold: 2, heavy: 2, call: 2, fast: 2, startup: 2 },
  },
};

const SCENARIOS = { sections, lines, wiki, memory, postgres, relevance, lint, server, agent };

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
    seed: { type: 'string', default: '20260901' },
    only: { type: 'string' },
    'no-install': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const mode = values.smoke ? 'smoke' : values.quick ? 'quick' : 'full';
const plan = PLANS[mode];
if (plan.maxWarmup !== undefined) setWarmupCap(plan.maxWarmup);
const seed = Number(values.seed);
if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
const only = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(SCENARIOS);
for (const name of only) {
  if (!SCENARIOS[name]) {
    throw new Error(`unknown scenario ${name}; choose from ${Object.keys(SCENARIOS).join(', ')}`);
  }
}
const outDir = resolve(values.out ?? join(here, 'results'));
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

if (!existsSync(LECTERN_BIN)) {
  console.error(`${LECTERN_BIN} is missing: build first (pnpm build, or pnpm bench which builds).`);
  process.exit(2);
}

const started = performance.now();
const loadAtStart = loadavg()[0];
const work = mkdtempSync(join(tmpdir(), 'lectern-bench-'));
try {
  const textSearch = findTextSearchPeer({ install: !values['no-install'], log });
  log(`text search peer: ${textSearch.version} (${textSearch.source})`);

  log(`${mode} mode, seed ${seed}, corpora in ${work}`);
  let t0 = performance.now();
  const docs = generateDocs(join(work, 'docs'), {
    seed,
    totalBytes: plan.docsBytes,
    bigBytes: plan.bigDocBytes,
  });
  const text = {
    dir: join(work, 'text'),
    ...generateTextFile(join(work, 'text'), { bytes: plan.textBytes }),
  };
  const notes = generateNotes(join(work, 'notes'), {
    seed,
    count: plan.notes,
    queries: plan.queries,
  });
  const wikiCorpus = generateWiki(join(work, 'wiki'), { seed, pages: plan.wikiPages });
  log(`corpora generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const ctx = {
    mode,
    seed,
    plan,
    work,
    textSearch,
    log,
    corpora: { docs, text, notes, wiki: wikiCorpus },
  };
  const rows = [];
  const errors = [];
  for (const name of only) {
    t0 = performance.now();
    log(`scenario ${name}...`);
    try {
      rows.push(...(await SCENARIOS[name](ctx)));
      log(`scenario ${name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } catch (e) {
      // Keep the other scenarios' figures; the run still fails at the end.
      errors.push({ scenario: name, message: String(e?.stack ?? e) });
      log(`scenario ${name} FAILED: ${e?.stack ?? e}`);
    }
  }

  const date = new Date().toISOString().slice(0, 10);
  const cpu = cpus();
  const result = {
    date,
    generated_at: new Date().toISOString(),
    mode,
    seed,
    duration_s: Math.round((performance.now() - started) / 1000),
    machine: {
      os: `${platform()} ${release()}`,
      cpus: cpu.length,
      cpu_model: cpu[0]?.model?.trim() ?? 'unknown',
      memory_gb: Math.round(totalmem() / 1024 ** 3),
      free_memory_gb_at_end: Math.round(freemem() / 1024 ** 3),
      // Other work on the machine skews absolute times more than ratios; say how busy it was.
      load_average_1min: {
        start: Number(loadAtStart.toFixed(2)),
        end: Number(loadavg()[0].toFixed(2)),
      },
    },
    versions: versions(textSearch),
    plan,
    corpora: {
      docs: {
        mb: Number((docs.bytes / 1e6).toFixed(1)),
        files: docs.files,
        big_mb: Number((docs.big.bytes / 1e6).toFixed(1)),
      },
      text: { mib: Number((text.bytes / MiB).toFixed(1)), lines: text.lines },
      notes: { files: notes.files.length, mb: Number((notes.bytes / 1e6).toFixed(1)) },
      wiki: { pages: plan.wikiPages + 10 },
    },
    how_to_read:
      'ratio = Lectern time / peer time of the same rounds (below 1: Lectern is faster); spread = lowest and highest per-round ratio (p10-p90 for per-query rows); times in milliseconds.',
    rows,
    errors,
  };
  console.log(`\n${textTable(rows)}\n`);
  console.log(
    'ratio = Lectern time / peer time (below 1: Lectern faster); spread: per-round ratios. Agent rows: tokens and answers, Lectern / grep agent.',
  );
  const relevanceTable = qualityTextTable(rows);
  if (relevanceTable) {
    console.log(
      `\nRelevance on Cranfield (nDCG@10 as trec_eval ndcg_cut.10):\n${relevanceTable}\n`,
    );
  }
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, mode === 'full' ? date : `${date}-${mode}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdownReport(result));
  log(`wrote ${base}.json and ${base}.md in ${result.duration_s} s`);
  if (errors.length > 0) {
    log(`${errors.length} scenario(s) failed: ${errors.map((e) => e.scenario).join(', ')}`);
    process.exitCode = 1;
  }
} finally {
  if (values.keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
