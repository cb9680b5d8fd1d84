// One writer process for the concurrent-writers scenario: `node wiki-writer.mjs <mode> <dir>`.
// mode 'fs' writes with plain fs calls (the peer); 'handler' calls @lectern/wiki's read_page and
// write_batch in-process. It prints "ready", then for each stdin line `{ page, batches,
// counter }` runs that many read-then-write batches on the page and prints one JSON line
// `{ latencies, conflicts }`. With `counter`, each batch increments the number stored in the
// page, retrying a rejected batch, which shows whether concurrent updates are lost.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { invokeTool, isToolError } from '@lectern/core';
import { wikiTools } from '@lectern/wiki';

const [mode, dir] = process.argv.slice(2);

let read;
let write;
if (mode === 'fs') {
  read = async (page) => ({ content: readFileSync(join(dir, page), 'utf8') });
  write = async (page, content) => writeFileSync(join(dir, page), content);
} else if (mode === 'handler') {
  const tools = Object.fromEntries(
    wikiTools({ wikis: [{ id: 'w', path: dir }] }).map((t) => [t.name, t]),
  );
  read = (page) => invokeTool(tools.read_page, { wiki: 'w', path: page, raw: true });
  write = (page, content, version) =>
    invokeTool(tools.write_batch, {
      wiki: 'w',
      operations: [{ op: 'put', path: page, content, expected_version: version }],
    });
} else {
  throw new Error(`unknown mode ${mode}: use fs or handler`);
}

async function run({ page, batches, counter }) {
  const latencies = [];
  let conflicts = 0;
  for (let i = 0; i < batches; ) {
    const t0 = performance.now();
    const current = await read(page);
    const next = counter ? `${Number(current.content) + 1}\n` : `${page} write ${i}\n`.repeat(100);
    try {
      await write(page, next, current.version);
      latencies.push(performance.now() - t0);
      i++;
    } catch (e) {
      if (!isToolError(e) || e.code !== 'BATCH_REJECTED') throw e;
      conflicts++;
    }
  }
  return { latencies, conflicts };
}

const rl = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of rl) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(await run(JSON.parse(line)))}\n`);
}
