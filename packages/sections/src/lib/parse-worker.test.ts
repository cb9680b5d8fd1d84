import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { decodeUtf8 } from '@lectern/core';
import { buildDocument, sectionExtract } from '@lectern/markdown';
import { afterEach, describe, expect, it } from 'vitest';
import { tempTree } from '../test-helpers/mcp.js';
import { DocChangedError, DocsIndex } from './docs-index.js';
import { parseFileBytes } from './parse.js';
import {
  collectionsRun,
  collectSoon,
  PARSE_WORKER_MIN_BYTES,
  parseInWorker,
  parseWorkerAvailable,
} from './parse-pool.js';
import { buildSearchData } from './search.js';
import { fileLines, storeModel } from './stored.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** Rewrites a file and moves its mtime, so even a coarse clock sees the change. */
function rewrite(path: string, content: string): void {
  writeFileSync(path, content);
  utimesSync(path, new Date(), new Date(Date.now() + 5000));
}

/** Small documents of every line-break, encoding and byte-order-mark kind. */
const texts: Record<string, string> = {
  'ascii.md': '# One\n\nalpha\n\n## Two\n\nbeta\n\n```\n# not a heading\n```\n\n# Three\ngamma\n',
  'wide.md': '# Ünïcode\n\n中文字符 🎉 emoji\n\n## Größe\n\n| a | b |\n|---|---|\n| Ä | ß |\n',
  'crlf.md': '# CR LF\r\n\r\ntext\r\n\r\nSetext\r\n------\r\nmore\r\n',
  'lone-cr.md': '# Lone\r\rcarriage returns\r## Sub\rend',
  'bom.md': '\uFEFF# With a mark\n\nbody ü\n',
  'two-boms.md': '\uFEFF\uFEFF# Two marks\n\nbody\n',
  'front.md': '---\ntitle: x\n---\n\nbefore\n\n# Head\n\nafter',
  'empty.md': '',
};

/** The same kinds, repeated past the size from which files go to the parse worker. */
function big(text: string): string {
  const mark = text.startsWith('\uFEFF\uFEFF')
    ? '\uFEFF\uFEFF'
    : text.startsWith('\uFEFF')
      ? '\uFEFF'
      : '';
  const body = text.slice(mark.length) || 'plain line\n';
  const eol = body.includes('\r\n') ? '\r\n' : body.includes('\r') ? '\r' : '\n';
  let out = mark + body;
  for (let i = 0; Buffer.byteLength(out) <= PARSE_WORKER_MIN_BYTES + 64; i++) {
    out += `${eol}## Part ${i} ü${eol}${eol}${body}`;
  }
  return out;
}

/** What the index stored for a file before the parse worker: decoded and parsed here. */
function inThread(bytes: Uint8Array) {
  const { text, bom } = decodeUtf8(bytes);
  const model = buildDocument(text);
  return { stored: storeModel(model, fileLines(bytes, text, bom)), chars: model.text.length };
}

/** Two turns of the event loop: long enough for a collection scheduled with `setImmediate`. */
/**
 * Text of at least `minBytes` UTF-8 bytes: `head` then `part(i)` for i = 0, 1, … . The parts are
 * joined once; growing a string and measuring it on every step is quadratic, and with a
 * non-ASCII part took two minutes for 1.2 MB on a busy machine.
 */
function textOf(minBytes: number, part: (i: number) => string, head = ''): string {
  const parts = [head];
  let bytes = Buffer.byteLength(head);
  for (let i = 0; bytes < minBytes; i++) {
    const p = part(i);
    parts.push(p);
    bytes += Buffer.byteLength(p);
  }
  return parts.join('');
}

const afterTicks = () => new Promise((r) => setImmediate(() => setImmediate(r)));

/**
 * Runs `fn` with the host's `globalThis.gc`, which it may replace or delete, and puts the real
 * one (or its absence) back afterwards.
 */
async function withHostGc(fn: (host: { gc?: unknown }) => Promise<void>): Promise<void> {
  const host = globalThis as { gc?: unknown };
  const hadGc = Object.hasOwn(host, 'gc');
  const saved = host.gc;
  try {
    await fn(host);
  } finally {
    if (hadGc) host.gc = saved;
    else delete host.gc;
  }
}

describe('the parse worker thread', () => {
  it('is built (the tests run against the compiled worker script)', () => {
    expect(parseWorkerAvailable()).toBe(true);
  });

  it('stores the same model as a parse on the calling thread, for every kind of document', async () => {
    const all = Object.entries(texts).flatMap(([name, t]) => [
      [name, t],
      [`big-${name}`, big(t)],
    ]);
    // all in flight at once: each answer goes to its own request
    const bytes = all.map(([, t]) => Buffer.from(t!, 'utf8'));
    const want = bytes.map((b) => inThread(b));
    const got = await Promise.all(bytes.map((b) => parseInWorker(Buffer.from(b))));
    got.forEach((g, i) => {
      expect(g, all[i]![0]).not.toBeInstanceOf(Uint8Array);
      const parsed = g as Exclude<typeof g, Uint8Array>;
      expect(parsed.stored, all[i]![0]).toEqual(want[i]!.stored);
      expect(parsed.chars).toBe(want[i]!.chars);
      expect(parseFileBytes(bytes[i]!)!.stored).toEqual(want[i]!.stored);
    });
  }, 120_000);

  it('hands the bytes over instead of copying them, and copies bytes that share a buffer', async () => {
    const own = Buffer.from(big(texts['wide.md']!), 'utf8');
    const copy = new Uint8Array(own);
    const sent = parseInWorker(own);
    expect(own.length).toBe(0); // detached: the worker has them now
    const parsed = await sent;
    expect(parsed).not.toBeInstanceOf(Uint8Array);
    // a view into a larger buffer is copied, so the rest of that buffer stays usable
    const shared = new Uint8Array(copy.length + 100);
    shared.set(copy, 100);
    const view = shared.subarray(100);
    const again = await parseInWorker(view);
    expect(view.length).toBe(copy.length);
    expect(again).toEqual(parsed);
  });

  it('hands over a whole larger buffer when told it belongs to the caller alone, never otherwise', async () => {
    const text = Buffer.from(big(texts['crlf.md']!), 'utf8');
    const want = inThread(text).stored;
    const roomy = new ArrayBuffer(text.length + 4096);
    new Uint8Array(roomy).set(text);
    // without the word, a buffer longer than the bytes is someone else's too: copied
    const kept = await parseInWorker(new Uint8Array(roomy, 0, text.length));
    expect(roomy.byteLength).toBe(text.length + 4096);
    expect((kept as Exclude<typeof kept, Uint8Array>).stored).toEqual(want);
    const sent = parseInWorker(new Uint8Array(roomy, 0, text.length), { wholeBuffer: true });
    expect(roomy.byteLength).toBe(0); // handed over, not copied
    expect(((await sent) as Exclude<typeof kept, Uint8Array>).stored).toEqual(want);
    // bytes that are not text come back as they were sent: only the bytes, not the rest
    const bad = new ArrayBuffer(text.length + 4096);
    new Uint8Array(bad).set(text);
    new Uint8Array(bad)[10] = 0;
    const back = await parseInWorker(new Uint8Array(bad, 0, text.length), { wholeBuffer: true });
    expect(back).toBeInstanceOf(Uint8Array);
    expect((back as Uint8Array).length).toBe(text.length);
    expect((back as Uint8Array)[10]).toBe(0);
  });

  it('gives back bytes that are not text, unchanged, so the caller reports the exact error', async () => {
    const nul = Buffer.from(`${big('# T\n\ntext\n')}\u0000tail`, 'utf8');
    const invalid = Buffer.concat([Buffer.from(big('# T\n\ntext\n')), Buffer.from([0xc3, 0x28])]);
    for (const b of [nul, invalid]) {
      const copy = Buffer.from(b);
      const back = await parseInWorker(b);
      expect(back).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(back as Uint8Array).equals(copy)).toBe(true);
      expect(parseFileBytes(copy)).toBeNull();
    }
  });

  it('keeps answering past the point where it replaces itself', async () => {
    // plain paragraphs (the scanner's fast path), ~3 MB a time: the worker is replaced after 8 MiB
    const para = `${'lorem ipsum dolor sit amet ü '.repeat(30)}\n\n`;
    const text = textOf(3_000_000, (i) => `## Part ${i}\n\n${para.repeat(8)}`);
    const bytes = Buffer.from(text, 'utf8');
    const want = inThread(bytes).stored;
    for (let i = 0; i < 4; i++) {
      const got = await parseInWorker(Buffer.from(bytes));
      expect((got as Exclude<typeof got, Uint8Array>).stored).toEqual(want);
    }
  }, 120_000);

  it('lets go of the bytes once decoded, before the parse, and only for text', () => {
    for (const text of Object.values(texts)) {
      const bytes = Buffer.from(big(text), 'utf8');
      let released = 0;
      const got = parseFileBytes(bytes, () => {
        released++;
      });
      expect(released).toBe(1);
      expect(got?.stored).toEqual(inThread(bytes).stored);
    }
    for (const bad of [Buffer.from('# a\0b\n'), Buffer.from([0x23, 0x20, 0xff, 0x0a])]) {
      let released = 0;
      expect(
        parseFileBytes(bad, () => {
          released++;
        }),
      ).toBeNull();
      expect(released).toBe(0);
    }
  });

  it("runs the host's full collection after a large answer, and only the host's", async () => {
    let calls = 0;
    const text = textOf(1_200_000, (i) => `## Part ${i}\n\nbody ü\n\n`);
    const bytes = Buffer.from(text, 'utf8');
    await withHostGc(async (host) => {
      // no gc exposed: nothing is collected, nothing is switched on
      delete host.gc;
      await afterTicks();
      let before = collectionsRun();
      await parseInWorker(Buffer.from(bytes));
      await afterTicks();
      expect(collectionsRun()).toBe(before);
      expect('gc' in globalThis).toBe(false);
      expect(runInNewContext('typeof gc')).toBe('undefined');

      host.gc = () => {
        calls++;
      };
      before = collectionsRun();
      await parseInWorker(Buffer.from(big('# Small\n\nbody\n')));
      await afterTicks();
      expect(calls).toBe(0); // under 1 MiB: left to V8
      const got = await parseInWorker(Buffer.from(bytes));
      await afterTicks();
      expect(calls).toBe(1);
      expect(collectionsRun()).toBe(before + 1);
      expect((got as Exclude<typeof got, Uint8Array>).stored).toEqual(inThread(bytes).stored);
    });
  }, 120_000);
});

describe('collections after work on the calling thread', () => {
  it('run once 4 MiB of documents were indexed here, then count again from zero', async () => {
    let calls = 0;
    const MiB = 1024 * 1024;
    await withHostGc(async (host) => {
      host.gc = () => {
        calls++;
      };
      collectSoon(4 * MiB); // whatever earlier tests counted, the count starts over here
      await afterTicks();
      calls = 0;
      collectSoon(3 * MiB);
      await afterTicks();
      expect(calls).toBe(0);
      collectSoon(MiB);
      await afterTicks();
      expect(calls).toBe(1);
      collectSoon(2 * MiB);
      await afterTicks();
      expect(calls).toBe(1);
      collectSoon(10 * MiB);
      await afterTicks();
      expect(calls).toBe(2);
    });
  });
});

describe('the docs index with large files', () => {
  function tree(files: Record<string, string | Buffer>) {
    const t = tempTree(files);
    cleanups.push(t.cleanup);
    return t.dir;
  }

  it('reads every section of a large file as an in-memory parse does', async () => {
    const files = Object.fromEntries(Object.entries(texts).map(([n, t]) => [n, big(t)]));
    const dir = tree(files);
    const events: number[] = [];
    const index = new DocsIndex({
      roots: [{ id: 'd', path: dir }],
      onParse: (e) => events.push(e.chars),
    });
    const { docs, skipped } = await index.listDocuments();
    expect(skipped).toEqual([]);
    expect(docs).toHaveLength(Object.keys(files).length);
    for (const doc of docs) {
      const raw = files[doc.relPath!]!;
      const model = buildDocument(raw.startsWith('\uFEFF') ? raw.slice(1) : raw);
      expect(doc.model.chars).toBe(model.text.length);
      expect(doc.model.sections.map((s) => s.slug)).toEqual(model.sections.map((s) => s.slug));
      const full = await doc.fullModel();
      expect(full.text).toBe(model.text);
      expect(full.lineStarts).toEqual(model.lineStarts);
      expect(full.sections).toEqual(model.sections);
      expect(full.blocks).toEqual(model.blocks);
      const some = [...model.sections.slice(0, 12), ...model.sections.slice(-3)];
      for (const s of some) {
        expect(await doc.extract(s.startLine, s.endLine)).toEqual(sectionExtract(model, s, true));
      }
      // the search data, built on this thread in slices, equals a build from the in-memory parse
      expect(await doc.search()).toEqual(buildSearchData(model));
    }
    expect(events.sort()).toEqual(docs.map((d) => d.model.chars).sort());
  }, 120_000);

  it('reports a large binary or malformed file with the same error as a small one', async () => {
    const pad = big('# T\n\ntext\n');
    const dir = tree({
      'nul-big.md': `${pad}\u0000`,
      'nul-small.md': 'a\u0000',
      'bad-big.md': Buffer.concat([Buffer.from(pad), Buffer.from([0xff])]),
      'bad-small.md': Buffer.from([0x61, 0xff]),
    });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const { docs, skipped } = await index.listDocuments();
    expect(docs).toEqual([]);
    const reasons = Object.fromEntries(skipped.map((s) => [s.path, s.reason]));
    expect(reasons['nul-big.md']).toBe(
      `file nul-big.md contains a NUL byte at byte offset ${Buffer.byteLength(pad)}, so it is treated as binary, not text.`,
    );
    expect(reasons['nul-small.md']).toMatch(
      /^file nul-small\.md contains a NUL byte at byte offset 1,/,
    );
    expect(reasons['bad-big.md']).toBe(
      `file bad-big.md is not valid UTF-8: malformed byte sequence at byte offset ${Buffer.byteLength(pad)}.`,
    );
    expect(reasons['bad-small.md']).toMatch(
      /^file bad-small\.md is not valid UTF-8: .* offset 1\.$/,
    );
  });

  it('reads a file of a MiB or more as it reads a smaller one, also after it changed', async () => {
    const text = textOf(
      1024 * 1024 + 100,
      (i) => `## Part ${i}\n\n${'words ü and more words '.repeat(20)}\n\n`,
      '# Big\n\nintro ü\r\n',
    );
    const dir = tree({ 'big.md': text });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    for (const content of [text, `${text}\n## Tail\n\nlast ü\n`]) {
      if (content !== text) rewrite(join(dir, 'big.md'), content);
      const doc = await index.getDocument('big');
      const model = buildDocument(content);
      expect(doc.model.sections).toEqual(model.sections);
      expect(doc.model.chars).toBe(model.text.length);
      for (const s of [model.sections[1]!, model.sections[model.sections.length - 1]!]) {
        expect(await doc.extract(s.startLine, s.endLine)).toEqual(sectionExtract(model, s, true));
      }
    }
    expect(index.parseCount).toBe(2);
  }, 120_000);

  it('builds the search data of large files asked at once, past one whose file changed', async () => {
    const files: Record<string, string> = {};
    for (const [i, t] of Object.values(texts).entries()) files[`f${i}.md`] = big(t);
    const dir = tree(files);
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const { docs } = await index.listDocuments();
    expect(docs).toHaveLength(Object.keys(files).length);
    // the second one changes before its turn: it fails, and the ones after it still build
    const changed = docs[1]!;
    rewrite(join(dir, changed.relPath!), `${files[changed.relPath!]!}\nmore\n`);
    const results = await Promise.allSettled(docs.map((d) => d.search()));
    results.forEach((r, i) => {
      const doc = docs[i]!;
      if (doc === changed) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(DocChangedError);
        return;
      }
      expect(r.status).toBe('fulfilled');
      const raw = files[doc.relPath!]!;
      const model = buildDocument(raw.replace(/^\uFEFF/, ''));
      expect((r as PromiseFulfilledResult<unknown>).value).toEqual(buildSearchData(model));
    });
  }, 120_000);

  it('parses a large file again when it changes, and reads the new text', async () => {
    const dir = tree({ 'a.md': big('# Alpha\n\nold text\n') });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const before = await index.getDocument('a');
    const next = big('# Alpha\n\nnew text, ü longer than before\n');
    rewrite(join(dir, 'a.md'), next);
    const after = await index.getDocument('a');
    expect(after.version).not.toBe(before.version);
    expect(index.parseCount).toBe(2);
    const model = buildDocument(next);
    const last = model.sections[model.sections.length - 1]!;
    expect(await after.extract(last.startLine, last.endLine)).toEqual(
      sectionExtract(model, last, true),
    );
  });
});
