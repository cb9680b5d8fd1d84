// The MiniSearch peer in its own process, so its in-memory index neither slows the bench
// process (where the MCP client and the in-process handler run) nor hides in its memory
// figures. `node minisearch.mjs` answers one JSON line per stdin line:
//   { cmd: 'build', files }      index every file (read from disk)  -> { ms, docs }
//   { cmd: 'replace', id, path } re-read one file, replace its doc  -> { ms }
//   { cmd: 'search', query }     words ANDed, `*` = prefix, quotes dropped (no phrases) -> { ms, hits }
//   { cmd: 'save', path }        write the index as JSON (MiniSearch's own persistence) -> { ms, bytes }
//   { cmd: 'load', path, query } load a saved index into a new instance and answer one query
//                                 -> { ms, hits } (the instance is dropped; 'search' keeps the built one)
//   { cmd: 'build-notes', files } index every note as two fields, title (its first `# ` line)
//                                 and body (the rest), MiniSearch's defaults otherwise -> { ms, docs }
//   { cmd: 'rank', query, k }     MiniSearch's default search (words ORed, BM25+, no prefix, no
//                                 fuzzy) of the notes -> { ms, ids } (the first k indexes into files)
// `ms` is measured inside this process around the work only.
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import MiniSearch from 'minisearch';

let mini = null;
let files = [];
let notes = null;

/** A note as MiniSearch's two obvious fields: the first `# ` heading and everything else. */
function titleAndBody(text) {
  const m = /^#[ \t]+(.*)$/m.exec(text);
  if (!m) return { title: '', body: text };
  return { title: m[1].trim(), body: text.slice(0, m.index) + text.slice(m.index + m[0].length) };
}

function handle(msg) {
  const t0 = performance.now();
  if (msg.cmd === 'build') {
    files = msg.files;
    mini = new MiniSearch({ fields: ['text'], storeFields: [] });
    mini.addAll(files.map((f, id) => ({ id, text: readFileSync(f, 'utf8') })));
    return { ms: performance.now() - t0, docs: mini.documentCount };
  }
  if (msg.cmd === 'replace') {
    mini.replace({ id: msg.id, text: readFileSync(msg.path, 'utf8') });
    return { ms: performance.now() - t0 };
  }
  if (msg.cmd === 'search') {
    const hits = search(mini, msg.query);
    return { ms: performance.now() - t0, hits };
  }
  if (msg.cmd === 'save') {
    const json = JSON.stringify(mini);
    writeFileSync(msg.path, json);
    return { ms: performance.now() - t0, bytes: Buffer.byteLength(json) };
  }
  if (msg.cmd === 'load') {
    const loaded = MiniSearch.loadJSON(readFileSync(msg.path, 'utf8'), {
      fields: ['text'],
      storeFields: [],
    });
    const hits = search(loaded, msg.query);
    return { ms: performance.now() - t0, hits };
  }
  if (msg.cmd === 'build-notes') {
    notes = new MiniSearch({ fields: ['title', 'body'], storeFields: [] });
    notes.addAll(msg.files.map((f, id) => ({ id, ...titleAndBody(readFileSync(f, 'utf8')) })));
    return { ms: performance.now() - t0, docs: notes.documentCount };
  }
  if (msg.cmd === 'rank') {
    const ids = notes
      .search(msg.query)
      .slice(0, msg.k)
      .map((r) => r.id);
    return { ms: performance.now() - t0, ids };
  }
  throw new Error(`unknown command ${msg.cmd}`);
}

function search(index, q) {
  return index.search(q.replace(/["*]/g, ''), { prefix: q.endsWith('*'), combineWith: 'AND' })
    .length;
}

const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of rl) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(handle(JSON.parse(line)))}\n`);
}
