// Benchmark of @lectern/wiki (not a test): read_page and write_batch over 10 pages, search and
// move in a 210-page wiki, and 8 concurrent writer processes. Run after building the package:
//   pnpm --filter @lectern/wiki build && node packages/wiki/bench/wiki-bench.mjs
// Prints milliseconds (median and p95 of repeated runs) and a JSON summary on the last line.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invokeTool, sha256 } from '@lectern/core';
import { wikiTools } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const EXAMPLE = join(here, '../../../examples/wiki');
const ROUNDS = 15;
const WRITERS = 8;

function toolsFor(dir) {
  const list = wikiTools({ wikis: [{ id: 'w', path: dir }] });
  const byName = Object.fromEntries(list.map((t) => [t.name, t]));
  return (name, args) => invokeTool(byName[name], { wiki: 'w', ...args });
}

/** A copy of the example wiki plus 200 filler pages and 10 benchmark pages of ~8 KB. */
function makeWiki() {
  const dir = mkdtempSync(join(tmpdir(), 'wiki-bench-'));
  cpSync(EXAMPLE, dir, { recursive: true });
  const para = (i) =>
    `Paragraph ${i} about colonies, [[queen-bee|queens]] and [[varroa-mite#Monitoring]]; see [[bench-0]].\n`;
  for (let i = 0; i < 200; i++) {
    writeFileSync(
      join(dir, 'wiki', `filler-${i}.md`),
      `---\ntitle: Filler ${i}\ntags: [filler]\n---\n# Filler ${i}\n\n${para(i).repeat(5)}`,
    );
  }
  for (let i = 0; i < 10; i++) {
    const body = Array.from({ length: 60 }, (_, k) => para(k)).join('');
    writeFileSync(join(dir, 'wiki', `bench-${i}.md`), `# Bench ${i}\n\n${body}`);
  }
  return dir;
}

const pages = Array.from({ length: 10 }, (_, i) => `wiki/bench-${i}.md`);

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: +q(0.5).toFixed(2), p95: +q(0.95).toFixed(2), n: s.length };
}

async function time(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function measure(label, rounds, fn, results) {
  const samples = [];
  for (let r = 0; r < rounds; r++) samples.push(await time(() => fn(r)));
  results[label] = stats(samples);
  console.log(
    `${label.padEnd(46)} median ${String(results[label].median).padStart(8)} ms   p95 ${String(results[label].p95).padStart(8)} ms`,
  );
}

async function singleProcess(results) {
  const dir = makeWiki();
  try {
    const call = toolsFor(dir);
    results['first search (cold index, 220 pages)'] = stats([
      await time(() => call('search_wiki', { query: 'queen monitoring' })),
    ]);
    console.log(
      `first search (cold index, 220 pages)`.padEnd(46),
      `${results['first search (cold index, 220 pages)'].median} ms`,
    );
    await measure(
      'search_wiki (warm)',
      ROUNDS,
      () => call('search_wiki', { query: 'queen monitoring' }),
      results,
    );
    await measure('list_pages (220 pages, warm)', ROUNDS, () => call('list_pages', {}), results);
    await measure(
      'read_page rendered x10 pages',
      ROUNDS,
      async () => {
        for (const p of pages) await call('read_page', { path: p });
      },
      results,
    );
    await measure(
      'read_page raw x10 pages',
      ROUNDS,
      async () => {
        for (const p of pages) await call('read_page', { path: p, raw: true });
      },
      results,
    );
    const versions = async () => {
      const out = [];
      for (const p of pages) out.push((await call('read_page', { path: p, raw: true })).version);
      return out;
    };
    let round = 0;
    await measure(
      'write_batch put x10 pages (one batch)',
      ROUNDS,
      async () => {
        const v = await versions();
        round++;
        await call('write_batch', {
          operations: pages.map((p, i) => ({
            op: 'put',
            path: p,
            content: `# Bench ${i}\n\nround ${round}\n`.repeat(40),
            expected_version: v[i],
          })),
        });
      },
      results,
    );
    await measure(
      'write_batch replace x10 pages + log',
      ROUNDS,
      async () => {
        const v = await versions();
        await call('write_batch', {
          operations: pages.map((p, i) => ({
            op: 'replace',
            path: p,
            old_text: `# Bench ${i}\n\nround ${round}\n`,
            new_text: `# Bench ${i}\n\nround ${round + 1}\n`,
            expected_occurrences: 40,
            expected_version: v[i],
          })),
          log: `bench round ${round}`,
        });
        round++;
      },
      results,
    );
    await measure(
      'write_batch dry_run x10 pages (diffs)',
      ROUNDS,
      async () => {
        const v = await versions();
        await call('write_batch', {
          dry_run: true,
          operations: pages.map((p, i) => ({
            op: 'append',
            path: p,
            content: 'more\n',
            expected_version: v[i],
          })),
        });
      },
      results,
    );
    let at = 'wiki/bench-0.md';
    await measure(
      'write_batch move (linked from 200 pages)',
      5,
      async (r) => {
        const v = (await call('read_page', { path: at, raw: true })).version;
        const to = `wiki/moved/bench-moved-${r}.md`;
        const res = await call('write_batch', {
          operations: [{ op: 'move', path: at, new_path: to, expected_version: v }],
        });
        if (res.operations[0].links_updated < 200)
          throw new Error('move did not rewrite the links');
        at = to;
      },
      results,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function child(args) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout.on('data', (d) => {
      out += d;
    });
    c.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`)),
    );
  });
}

async function runChild([mode, dir, arg]) {
  const call = toolsFor(dir);
  const latencies = [];
  let conflicts = 0;
  if (mode === 'own') {
    for (let i = 0; i < 25; i++) {
      const v = (await call('read_page', { path: arg, raw: true })).version;
      latencies.push(
        await time(() =>
          call('write_batch', {
            operations: [{ op: 'put', path: arg, content: `write ${i}\n`, expected_version: v }],
          }),
        ),
      );
    }
  } else {
    for (let done = 0; done < 10; ) {
      const read = await call('read_page', { path: 'counter.md', raw: true });
      const t = performance.now();
      try {
        await call('write_batch', {
          operations: [
            {
              op: 'put',
              path: 'counter.md',
              content: `${Number(read.content) + 1}\n`,
              expected_version: read.version,
            },
          ],
        });
        latencies.push(performance.now() - t);
        done++;
      } catch (e) {
        if (e.code !== 'BATCH_REJECTED') throw e;
        conflicts++;
      }
    }
  }
  process.stdout.write(JSON.stringify({ latencies, conflicts }));
}

async function concurrent(results) {
  const dir = mkdtempSync(join(tmpdir(), 'wiki-bench-'));
  try {
    for (let i = 0; i < WRITERS; i++) writeFileSync(join(dir, `own-${i}.md`), 'start\n');
    writeFileSync(join(dir, 'counter.md'), '0\n');
    toolsFor(dir);
    for (const [label, args] of [
      [`${WRITERS} processes x 25 batches, own pages`, (i) => ['own', dir, `own-${i}.md`]],
      [`${WRITERS} processes x 10 increments, one page`, () => ['counter', dir]],
    ]) {
      const t = performance.now();
      const outs = await Promise.all(Array.from({ length: WRITERS }, (_, i) => child(args(i))));
      const wall = performance.now() - t;
      const all = outs.flatMap((o) => o.latencies);
      const conflicts = outs.reduce((s, o) => s + o.conflicts, 0);
      results[label] = {
        wall_ms: +wall.toFixed(1),
        batches: all.length,
        batches_per_s: +((all.length / wall) * 1000).toFixed(1),
        latency: stats(all),
        conflicts,
      };
      console.log(
        `${label.padEnd(46)} wall ${wall.toFixed(0)} ms, ${all.length} batches (${results[label].batches_per_s}/s), batch median ${results[label].latency.median} ms p95 ${results[label].latency.p95} ms, ${conflicts} conflicts retried`,
      );
    }
    const counter = readFileSync(join(dir, 'counter.md'), 'utf8');
    if (counter !== `${WRITERS * 10}\n`) throw new Error(`lost update: counter is ${counter}`);
    results.counter_final = counter.trim();
    results.counter_version = sha256(counter);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await runChild(process.argv.slice(3));
} else {
  const results = { node: process.version, cpus: cpus().length };
  console.log(
    `@lectern/wiki bench, node ${process.version}, ${cpus().length} CPUs, temp dir ${tmpdir()}\n`,
  );
  await singleProcess(results);
  await concurrent(results);
  console.log(JSON.stringify(results));
}
