// Child process for the cross-process tests. Runs the BUILT package (dist) like a real server.
// argv: <mode> <wikiDir> [...]
//   race <page> <expectedVersion> <content>   wait for "go" on stdin, then one write_batch put
//   count <page> <n>                          n read-modify-write increments, retrying conflicts
//   loop                                      endless batches rewriting every page to one generation
//   crash-after <k>                           one batch over all pages, SIGKILL itself after k page writes
//   stall <count> <k>                         one batch over count pages, SIGSTOP itself before page write k
import { invokeTool } from '@lectern/core';
import { wikiTools } from '../../dist/index.js';

const [mode, dir, ...rest] = process.argv.slice(2);
const out = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

async function call(tools, name, args) {
  const tool = tools.find((t) => t.name === name);
  try {
    return { ok: true, data: await invokeTool(tool, args) };
  } catch (e) {
    return { ok: false, code: e.code, details: e.details, message: e.message };
  }
}

const pages = (n) => Array.from({ length: n }, (_, i) => `wiki/page-${i}.md`);
/** Page text for a generation: long enough that a torn write would show. */
export const body = (gen, path) => `gen ${gen} ${path}\n${`generation ${gen} `.repeat(400)}\n`;

if (mode === 'race') {
  const [page, version, content] = rest;
  const tools = wikiTools({ wikis: [{ id: 'w', path: dir }] });
  out({ ready: true });
  process.stdin.once('data', async () => {
    const r = await call(tools, 'write_batch', {
      wiki: 'w',
      operations: [{ op: 'put', path: page, content, expected_version: version }],
    });
    out(r);
    process.exit(0);
  });
} else if (mode === 'count') {
  const [page, n] = rest;
  const tools = wikiTools({ wikis: [{ id: 'w', path: dir }] });
  let done = 0;
  let conflicts = 0;
  while (done < Number(n)) {
    const read = await call(tools, 'read_page', { wiki: 'w', path: page, raw: true });
    if (!read.ok) throw new Error(JSON.stringify(read));
    const value = Number(read.data.content.trim());
    const r = await call(tools, 'write_batch', {
      wiki: 'w',
      operations: [
        { op: 'put', path: page, content: `${value + 1}\n`, expected_version: read.data.version },
      ],
    });
    if (!read.ok) throw new Error(JSON.stringify(read));
    if (r.ok) done++;
    else if (r.code === 'BATCH_REJECTED') conflicts++;
    else throw new Error(JSON.stringify(r));
  }
  out({ done, conflicts });
} else if (mode === 'loop') {
  const [count] = rest;
  const tools = wikiTools({ wikis: [{ id: 'w', path: dir }] });
  const first = await call(tools, 'read_page', { wiki: 'w', path: pages(1)[0], raw: true });
  const from = Number(/^gen (\d+) /.exec(first.data.content)[1]);
  out({ ready: true, from });
  for (let gen = from + 1; ; gen++) {
    const versions = [];
    for (const p of pages(Number(count))) {
      const r = await call(tools, 'read_page', { wiki: 'w', path: p, raw: true });
      versions.push(r.data.version);
    }
    const r = await call(tools, 'write_batch', {
      wiki: 'w',
      operations: pages(Number(count)).map((p, i) => ({
        op: 'put',
        path: p,
        content: body(gen, p),
        expected_version: versions[i],
      })),
      log: `generation ${gen}`,
    });
    if (!r.ok) throw new Error(JSON.stringify(r));
    out({ acked: gen });
  }
} else if (mode === 'crash-after') {
  const [k, count] = rest;
  const { WikiSet } = await import('../../dist/lib/wiki.js');
  const { WikiWriter } = await import('../../dist/lib/writer.js');
  const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
  const writer = new WikiWriter(wiki);
  const operations = [];
  for (const p of pages(Number(count))) {
    const page = await wiki.loadPage(p);
    operations.push({ op: 'put', path: p, content: body(2, p), expected_version: page.version });
  }
  operations.push({
    op: 'delete',
    path: 'wiki/doomed.md',
    expected_version: (await wiki.loadPage('wiki/doomed.md')).version,
  });
  await writer.run({ operations, log: 'crash test' }, undefined, (_path, index) => {
    if (index + 1 === Number(k)) process.kill(process.pid, 'SIGKILL');
  });
  out({ finished: true });
} else if (mode === 'stall') {
  const [count, k] = rest;
  const { WikiSet } = await import('../../dist/lib/wiki.js');
  const { WikiWriter } = await import('../../dist/lib/writer.js');
  const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
  const writer = new WikiWriter(wiki);
  const operations = [];
  for (const p of pages(Number(count))) {
    const page = await wiki.loadPage(p);
    operations.push({ op: 'put', path: p, content: body(2, p), expected_version: page.version });
  }
  writer.hooks.beforeWrite = (_path, index) => {
    if (index !== Number(k)) return;
    out({ paused: index });
    process.kill(process.pid, 'SIGSTOP');
  };
  try {
    const r = await writer.run({ operations });
    out({ ok: true, applied: r.applied });
  } catch (e) {
    out({ ok: false, code: e.code, message: e.message });
  }
}
