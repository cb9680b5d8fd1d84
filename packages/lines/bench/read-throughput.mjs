#!/usr/bin/env node
// Times read_text on a generated 16 MiB file through the tool's handler (input and output are
// parsed with the tool's schemas, as registration does): 200-line windows from the middle and
// from the tail, in three regimes:
//   fresh    - the file changed less than 2 s ago, so every call reads and hashes all 16 MiB
//   settled  - the file is older than 2 s: its hash and line index come from the identity
//              cache and only the window's bytes are read
//   verified - settled, but every call passes expected_sha256, which forces a full re-hash
// Not a test: it prints ms/call and exits. Build first: pnpm --filter @lectern/lines build
//
//   node packages/lines/bench/read-throughput.mjs [--calls 50]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { invokeTool } from '@lectern/core';
import { lineTools } from '../dist/index.js';

const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 50;
const MiB = 1024 * 1024;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-lines-bench-'));
const file = path.join(dir, 'big.ts');

function generate() {
  const parts = [];
  let size = 0;
  for (let i = 1; size < 16 * MiB; i++) {
    const line = `  const value${i} = compute(${i}, "${'x'.repeat(i % 64)}"); // ünïcødé ${i % 7}\n`;
    if (size + Buffer.byteLength(line) > 16 * MiB) break;
    parts.push(line);
    size += Buffer.byteLength(line);
  }
  fs.writeFileSync(file, parts.join(''));
  return { size, lines: parts.length };
}

const { size, lines } = generate();
const [readText] = lineTools({ workspaces: [{ id: 'bench', path: dir }] });
const middle = {
  workspace: 'bench',
  path: 'big.ts',
  start_line: Math.floor(lines / 2),
  line_count: 200,
};
const tail = { workspace: 'bench', path: 'big.ts', tail: 200 };

async function time(label, input, n) {
  await invokeTool(readText, input); // warm-up (also fills the caches)
  const started = performance.now();
  let out;
  for (let i = 0; i < n; i++) out = await invokeTool(readText, input);
  const ms = (performance.now() - started) / n;
  if (out.lines.length !== 200)
    throw new Error(`${label}: expected 200 lines, got ${out.lines.length}`);
  return { label, ms, sha256: out.sha256 };
}

const results = [];
try {
  // fresh: well within 2 s of the write, so the identity cache is never used
  fs.writeFileSync(file, fs.readFileSync(file));
  const freshCalls = Math.min(calls, 10);
  results.push(await time('middle, fresh (full read + hash per call)', middle, freshCalls));
  results.push(await time('tail,   fresh (full read + hash per call)', tail, freshCalls));
  const age = Date.now() - fs.statSync(file).ctimeMs;
  if (age > 1900)
    console.warn(
      `warning: the fresh runs took ${Math.round(age)} ms; some calls may have been settled`,
    );
  await new Promise((r) => setTimeout(r, 2100));
  results.push(await time('middle, settled (window bytes only)', middle, calls));
  results.push(await time('tail,   settled (window bytes only)', tail, calls));
  const sha = results[0].sha256;
  results.push(
    await time(
      'middle, expected_sha256 (full re-hash)',
      { ...middle, expected_sha256: sha },
      freshCalls,
    ),
  );
  results.push(
    await time(
      'tail,   expected_sha256 (full re-hash)',
      { ...tail, expected_sha256: sha },
      freshCalls,
    ),
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

console.log(
  `read_text on ${(size / MiB).toFixed(2)} MiB, ${lines} lines, 200-line windows, node ${process.version}`,
);
for (const r of results)
  console.log(`  ${r.label.padEnd(44)} ${r.ms.toFixed(3).padStart(8)} ms/call`);
