#!/usr/bin/env node
// Outline throughput of @lectern/sections (runs against dist: `pnpm --filter @lectern/sections build` first).
//
//   node bench/outline-throughput.mjs [--mb 50] [--remark-mb 3] [--remark-big] [--keep]
//
// 1. generates a docs tree of realistic pages (default 50 MB) in a temp folder;
// 2. cold outline: a fresh DocsIndex lists and parses every file (fast scanner, remark
//    fallback when unsure) in this fresh process, IO and decoding included;
// 3. warm outline: the same listing again (stat only, no parsing);
// 4. a section read on a 10 MB document through the docs_read handler, cold and warm;
// 5. a plain remark parse (unified + remark-parse + remark-gfm + remark-frontmatter) of a
//    sample of the same pages (all of them with --remark-mb 0), checking that the scanner's
//    outline is identical to remark's on that sample; with --remark-big, remark also parses
//    the 10 MB document (slow: tens of seconds).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { invokeTool } from '@lectern/core';
import { buildDocument, remarkOutline, scanOutline } from '@lectern/markdown';
import { realisticDocument } from '@lectern/markdown/testing';
import { DocsIndex, sectionToolsFor } from '../dist/index.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(args[i + 1]);
};
const totalMb = opt('mb', 50);
const remarkMb = opt('remark-mb', 3);
const keep = args.includes('--keep');
const remarkBig = args.includes('--remark-big');

const MB = 1024 * 1024;
const fmt = (n, d = 1) => n.toFixed(d);

const dir = mkdtempSync(join(tmpdir(), 'lectern-sections-bench-'));
const texts = [];
let bytes = 0;
for (let i = 0; bytes < totalMb * MB; i++) {
  const text = realisticDocument(i, 12_000 + ((i * 7919) % 16_000));
  const rel = `area-${i % 12}/topic-${Math.floor(i / 12) % 40}/page-${i}.md`;
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
  texts.push(text);
  bytes += Buffer.byteLength(text);
}
const big = [];
let bigBytes = 0;
for (let i = 0; bigBytes < 10 * MB - 40_000; i++) {
  const page = realisticDocument(100_000 + i, 20_000).replace(/^---[\s\S]*?---\n/, '');
  big.push(page);
  bigBytes += Buffer.byteLength(page) + 1;
}
const bigText = big.join('\n');
mkdirSync(join(dir, '..', `${dir.split('/').pop()}-big`), { recursive: true });
const bigDir = join(dir, '..', `${dir.split('/').pop()}-big`);
writeFileSync(join(bigDir, 'big.md'), bigText);

console.log(`tree: ${texts.length} files, ${fmt(bytes / MB)} MB in ${dir}`);

// cold outline of the tree
const index = new DocsIndex({ roots: [{ id: 'docs', path: dir }] });
let t = performance.now();
const cold = await index.listDocuments();
const coldMs = performance.now() - t;
const headings = cold.docs.reduce((n, d) => n + d.model.sections.length, 0);
console.log(
  `cold outline: ${fmt(coldMs, 0)} ms, ${fmt(bytes / MB / (coldMs / 1000))} MB/s, ${cold.docs.length} docs, ${headings} headings, ` +
    `parses ${index.parseCount} (remark fallbacks ${index.remarkCount}), skipped ${cold.skipped.length}`,
);

// warm outline
t = performance.now();
const warm = await index.listDocuments();
const warmMs = performance.now() - t;
console.log(
  `warm outline: ${fmt(warmMs, 0)} ms for ${warm.docs.length} docs, parses still ${index.parseCount}`,
);

// section read on a 10 MB document
const bigIndex = new DocsIndex({ roots: [{ id: 'big', path: bigDir }] });
const read = sectionToolsFor(bigIndex).find((x) => x.name === 'docs_read');
t = performance.now();
const whole = await bigIndex.getDocument('big');
const bigParseMs = performance.now() - t;
const target = whole.model.sections[Math.floor(whole.model.sections.length * 0.9)];
const anchor = `big#${target.slug}`;
t = performance.now();
await invokeTool(read, { anchor });
const firstReadMs = performance.now() - t;
const N = 2000;
t = performance.now();
for (let i = 0; i < N; i++) await invokeTool(read, { anchor, offset: 0, max_chars: 3000 });
const warmReadMs = (performance.now() - t) / N;
console.log(
  `10 MB document: ${fmt(bigBytes / MB)} MB parsed in ${fmt(bigParseMs, 0)} ms (${fmt(bigBytes / MB / (bigParseMs / 1000))} MB/s, ${whole.model.parser}); ` +
    `read ${anchor}: first ${fmt(firstReadMs, 2)} ms, warm ${fmt(warmReadMs * 1000, 0)} µs per call (parses ${bigIndex.parseCount})`,
);

// the same 10 MB page with one footnote definition in the middle: the scanner hands a small
// window around it to remark and resumes after it
const withNote = `${bigText.slice(0, bigText.length / 2).replace(/\n[^\n]*$/, '')}\n\nA claim.[^1]\n\n[^1]: Its source.\n\n${bigText.slice(bigText.length / 2).replace(/^[^\n]*\n/, '')}`;
t = performance.now();
const mixed = buildDocument(withNote);
const mixedMs = performance.now() - t;
console.log(
  `10 MB document with a footnote definition: ${fmt(mixedMs, 0)} ms (${fmt(bigBytes / MB / (mixedMs / 1000))} MB/s, parser ${mixed.parser})`,
);

// scanner alone, in memory (JIT warm now)
t = performance.now();
for (const text of texts) scanOutline(text);
const scanMs = performance.now() - t;
console.log(`scanner only (in memory, warm): ${fmt(bytes / MB / (scanMs / 1000))} MB/s`);

// plain remark on a sample, with an equality check against the scanner
const sample = [];
let sampleBytes = 0;
for (const text of texts) {
  if (remarkMb > 0 && sampleBytes >= remarkMb * MB) break;
  sample.push(text);
  sampleBytes += Buffer.byteLength(text);
}
t = performance.now();
const refs = sample.map((text) => remarkOutline(text));
const remarkMs = performance.now() - t;
let same = 0;
let decided = 0;
sample.forEach((text, i) => {
  const fast = scanOutline(text);
  if (fast === null) return;
  decided++;
  if (JSON.stringify(fast) === JSON.stringify(refs[i])) same++;
});
console.log(
  `remark (plain parse): ${fmt(sampleBytes / MB)} MB sample in ${fmt(remarkMs, 0)} ms, ${fmt(sampleBytes / MB / (remarkMs / 1000), 2)} MB/s; ` +
    `scanner identical on ${same}/${decided} decided pages (${sample.length - decided} handed to remark)`,
);

if (remarkBig) {
  t = performance.now();
  const ref = remarkOutline(bigText);
  const ms = performance.now() - t;
  const same = JSON.stringify(scanOutline(bigText)) === JSON.stringify(ref);
  console.log(
    `remark on the 10 MB document: ${fmt(ms, 0)} ms, ${fmt(bigBytes / MB / (ms / 1000), 2)} MB/s; scanner outline identical: ${same}`,
  );
}

if (!keep) {
  rmSync(dir, { recursive: true, force: true });
  rmSync(bigDir, { recursive: true, force: true });
}
