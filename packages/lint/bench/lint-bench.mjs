#!/usr/bin/env node
// Benchmark for @lectern/lint (not a test): scores 1,000 generated tools with the offline judge
// and diffs two 200-tool snapshots. Run after `pnpm --filter @lectern/lint build`:
//   node packages/lint/bench/lint-bench.mjs [--tools 1000] [--diff 200] [--runs 5]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  diffSnapshots,
  formatSnapshot,
  renderChangelog,
  scoreServer,
  scoreTools,
  snapshotTools,
} from '../dist/index.js';

const { values } = parseArgs({
  options: {
    tools: { type: 'string', default: '1000' },
    diff: { type: 'string', default: '200' },
    runs: { type: 'string', default: '5' },
  },
});
const N = Number(values.tools);
const D = Number(values.diff);
const RUNS = Number(values.runs);

// Deterministic pseudo-random numbers so every run scores the same tools.
let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

const VERBS = ['Read', 'List', 'Search', 'Fetch', 'Write', 'Delete', 'Update', 'Outline'];
const NOUNS = ['note', 'page', 'section', 'file', 'record', 'issue', 'ticket', 'document'];
const SENTENCES = [
  (s) => `Use it after ${s} returned an id; to browse everything, use ${s} instead.`,
  () => 'Results are capped at 50 items (default 10); an unknown id fails with a clear error.',
  () => 'Paths outside the root are refused; symlinks are never followed.',
  (s) =>
    `Pass the version from ${s} as \`expected_version\`: a stale one fails with VERSION_MISMATCH.`,
  () => 'Long results are paginated: pass next_offset back as `offset` to continue.',
  () => 'This tool allows you to easily do various things.',
];

function makeTool(i, names) {
  const verb = pick(VERBS);
  const noun = pick(NOUNS);
  const sib = names[(i + 1) % names.length];
  const extra = Array.from({ length: Math.floor(rand() * 5) }, () => pick(SENTENCES)(sib));
  const paramCount = 1 + Math.floor(rand() * 6);
  const properties = {};
  for (let p = 0; p < paramCount; p++) {
    properties[`p${p}`] =
      rand() < 0.7
        ? { type: 'string', description: `Parameter ${p}, default none.` }
        : { type: 'integer' };
  }
  if (rand() < 0.2) {
    properties.filter = {
      type: 'object',
      properties: {
        kind: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
        at: { type: 'string' },
      },
      required: ['kind', 'at'],
    };
  }
  return {
    name: names[i],
    title: `${verb} ${noun}`,
    description:
      rand() < 0.05
        ? null
        : `${verb} one ${noun} by its id from the store. ${extra.join(' ')}`.trim(),
    inputSchema: {
      type: 'object',
      properties,
      required: Object.keys(properties).slice(0, 1 + Math.floor(rand() * paramCount)),
    },
    ...(rand() < 0.6
      ? { outputSchema: { type: 'object', properties: { result: { type: 'string' } } } }
      : {}),
    ...(rand() < 0.7
      ? {
          annotations: {
            readOnlyHint: verb !== 'Write' && verb !== 'Delete',
            destructiveHint: verb === 'Delete',
            idempotentHint: true,
            openWorldHint: false,
          },
        }
      : {}),
  };
}

function generate(n, prefix) {
  const names = Array.from({ length: n }, (_, i) => `${prefix}_${pick(VERBS).toLowerCase()}_${i}`);
  return names.map((_, i) => makeTool(i, names));
}

function mutate(tools) {
  return tools
    .filter((_, i) => i % 50 !== 7)
    .map((t, i) => {
      const c = structuredClone(t);
      if (i % 5 === 0) c.description = `${c.description ?? ''} Now with more detail.`;
      if (i % 7 === 0)
        c.inputSchema.properties.added = { type: 'string', description: 'New optional.' };
      if (i % 11 === 0) c.inputSchema.required = Object.keys(c.inputSchema.properties);
      if (i % 13 === 0 && c.annotations) c.annotations.readOnlyHint = false;
      return c;
    })
    .concat([
      {
        name: 'zz_new_tool',
        description: 'List new things.',
        inputSchema: { type: 'object', properties: {} },
      },
    ]);
}

async function time(label, fn) {
  const samples = [];
  let result;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    result = await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];
  return {
    label,
    runs: RUNS,
    medianMs: Number(median.toFixed(2)),
    minMs: Number(samples[0].toFixed(2)),
    maxMs: Number(samples.at(-1).toFixed(2)),
    result,
  };
}

const tools = generate(N, 'bench');
const base = generate(D, 'snap');
const changed = mutate(base);

const results = [];
results.push(
  await time(`scoreTools: ${N} tools, offline judge`, () => scoreTools(tools, { concurrency: 8 })),
);
results.push(
  await time(`scoreServer: ${N} tools (tools + rollup + coherence + shadow prefilter)`, () =>
    scoreServer(tools, { serverName: 'bench' }),
  ),
);
results.push(
  await time(`diff: two ${D}-tool snapshots (snapshot + diff + changelog text)`, () => {
    const a = snapshotTools(base, { version: '1.0.0' });
    const b = snapshotTools(changed, { version: '1.1.0' });
    formatSnapshot(a);
    formatSnapshot(b);
    const d = diffSnapshots(a, b);
    renderChangelog(d);
    return d;
  }),
);

const scored = results[0].result;
const diff = results[2].result;
const tiers = {};
for (const t of scored) tiers[t.tier] = (tiers[t.tier] ?? 0) + 1;
for (const r of results) {
  console.log(
    `${r.label}: median ${r.medianMs} ms (min ${r.minMs}, max ${r.maxMs}, ${r.runs} runs)`,
  );
}
console.log(
  `  per tool: ${(results[0].medianMs / N).toFixed(3)} ms; tiers ${JSON.stringify(tiers)}`,
);
console.log(
  `  diff: ${diff.changed.length} changed, ${diff.added.length} added, ${diff.removed.length} removed, ${diff.tools.reduce((a, t) => a + t.entries.length, 0)} entries, bump ${diff.bump}`,
);
console.log(
  JSON.stringify({
    node: process.version,
    tools: N,
    diffTools: D,
    results: results.map(({ result: _r, ...rest }) => rest),
  }),
);
