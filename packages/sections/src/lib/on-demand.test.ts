import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bySize } from '@lectern/core/testing';
import { buildDocument, extractLines, sectionExtract } from '@lectern/markdown';
import { terms } from '@lectern/text';
import { afterEach, describe, expect, it } from 'vitest';
import { sectionTools, sectionToolsFor } from '../package.js';
import { session, tempTree } from '../test-helpers/mcp.js';
import { DocChangedError, DocsIndex } from './docs-index.js';
import { buildSearchData, postingsOf } from './search.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function tree(files: Record<string, string | Buffer>) {
  const t = tempTree(files);
  cleanups.push(t.cleanup);
  return t.dir;
}

/** Rewrites a file and moves its mtime, so even a coarse clock sees the change. */
function rewrite(path: string, content: string, bump = 5000): void {
  writeFileSync(path, content);
  utimesSync(path, new Date(), new Date(Date.now() + bump));
}

describe('section text read back from the file', () => {
  const texts: Record<string, string> = {
    'ascii.md': '# One\n\nalpha\n\n## Two\n\nbeta\n\n\n# Three\ngamma\n',
    'wide.md': '# Ünïcode\n\n中文字符 🎉 emoji\n\n## Größe\n\nÄpfel und Birnen\n',
    'crlf.md': '# CR LF\r\n\r\ntext\r\n\r\n## Next\r\nmore\r\n',
    'lone-cr.md': '# Lone\r\rcarriage returns\r## Sub\rend',
    'bom.md': '\uFEFF# With a mark\n\nbody ü\n',
    'two-boms.md': '\uFEFF\uFEFF# Two marks\n\nbody\n',
    'front.md': '---\ntitle: x\n---\n\nbefore\n\n# Head\n\nafter',
    'empty.md': '',
  };

  it('gives every section exactly the text an in-memory parse gives', async () => {
    const dir = tree(texts);
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const { docs } = await index.listDocuments();
    expect(docs).toHaveLength(Object.keys(texts).length);
    for (const doc of docs) {
      const raw = texts[doc.relPath!]!;
      const model = buildDocument(raw.startsWith('\uFEFF') ? raw.slice(1) : raw);
      expect(doc.model.chars).toBe(model.text.length);
      for (const s of model.sections) {
        for (const sub of [true, false]) {
          const want = sectionExtract(model, s, sub);
          const got = await doc.extract(s.startLine, sub ? s.endLine : s.ownEndLine);
          expect(got).toEqual(want);
        }
        expect(doc.model.sectionChars[s.index]).toBe(sectionExtract(model, s, true).content.length);
      }
      for (let first = 1; first <= model.totalLines + 1; first++) {
        for (let last = first - 1; last <= model.totalLines; last++) {
          expect(await doc.extract(first, last)).toEqual(extractLines(model, first, last));
        }
      }
      const full = await doc.fullModel();
      expect(full.text).toBe(model.text);
      expect(full.lineStarts).toEqual(model.lineStarts);
      expect(full.blocks).toEqual(model.blocks);
    }
  });

  it('refuses to read a file that changed after it was parsed, and the tools read the new version', async () => {
    const dir = tree({ 'a.md': '# Alpha\n\nold text\n\n## Beta\n\nold beta\n' });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const before = await index.getDocument('a');
    rewrite(join(dir, 'a.md'), '# Alpha\n\nnew text, longer than before\n\n## Beta\n\nnew beta\n');
    const beta = before.model.sections[1]!;
    await expect(before.extract(beta.startLine, beta.endLine)).rejects.toBeInstanceOf(
      DocChangedError,
    );
    await expect(before.fullModel()).rejects.toBeInstanceOf(DocChangedError);
    await expect(before.search()).rejects.toBeInstanceOf(DocChangedError);

    // the same through the tools: the answer and its version come from the new file
    const s = await session(sectionTools({ roots: [{ id: 'd', path: dir }] }));
    try {
      const first = await s.call('docs_read', { anchor: 'a#beta' });
      expect(first.data.content).toBe('## Beta\n\nnew beta');
      rewrite(join(dir, 'a.md'), '# Alpha\n\nthird\n\n## Beta\n\nthird beta\n', 10_000);
      const second = await s.call('docs_read', { anchor: 'a#beta' });
      expect(second.data.content).toBe('## Beta\n\nthird beta');
      expect(second.data.version).not.toBe(first.data.version);
      const found = await s.call('docs_search', { query: 'third' });
      expect(found.data.results[0].snippet).toContain('third');
    } finally {
      await s.close();
    }
  });

  it('treats a deleted file as changed: the lookup then reports it missing', async () => {
    const dir = tree({ 'a.md': '# A\n\ntext\n', 'b.md': '# B\n' });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const s = await session(sectionToolsFor(index));
    try {
      expect((await s.call('docs_read', { anchor: 'a' })).data.content).toBe('# A\n\ntext');
      const a = await index.getDocument('a');
      rmSync(join(dir, 'a.md'));
      await expect(a.extract(1, 3)).rejects.toBeInstanceOf(DocChangedError);
      const r = await s.call('docs_read', { anchor: 'a' });
      expect(r.isError).toBe(true);
      expect(r.data.code).toBe('ANCHOR_NOT_FOUND');
    } finally {
      await s.close();
    }
  });

  it('gives up with DOC_CHANGED when the file changes at every attempt', async () => {
    const dir = tree({ 'a.md': '# A\n\ntext\n' });
    const path = join(dir, 'a.md');
    let n = 0;
    // every parse is followed by another change, so no read ever matches its parse
    const tools = sectionTools({
      roots: [{ id: 'd', path: dir }],
      onParse: () => {
        n++;
        rewrite(path, `# A\n\ntext ${n}\n`, 1000 * n);
      },
    });
    const s = await session(tools);
    try {
      const r = await s.call('docs_read', { anchor: 'a' });
      expect(r.isError).toBe(true);
      expect(r.data.code).toBe('DOC_CHANGED');
      expect(r.data.error).toContain('a.md');
      expect(n).toBe(3);
    } finally {
      await s.close();
    }
  });
});

describe('index memory budget', () => {
  const files = Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [
      `doc-${String(i).padStart(2, '0')}.md`,
      `# Doc ${i}\n\n${'word '.repeat(50)}needle${i}\n\n## Part\n\n${'more text '.repeat(40)}\n`,
    ]),
  );

  it('drops the least recently used documents past maxIndexBytes and parses them again', async () => {
    const dir = tree(files);
    const roomy = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const { docs } = await roomy.listDocuments();
    const all = roomy.stats();
    expect(all.documents).toBe(30);
    expect(all.evicted).toBe(0);
    expect(all.bytes).toBeGreaterThan(0);
    const perDoc = all.bytes / 30;
    await Promise.all(docs.map((d) => d.search()));
    expect(roomy.stats().bytes).toBeGreaterThan(all.bytes);
    expect(roomy.stats().searchable).toBe(30);

    // room for about ten documents
    const max = Math.round(perDoc * 10);
    const tight = new DocsIndex({ roots: [{ id: 'd', path: dir }], maxIndexBytes: max });
    await tight.listDocuments();
    const s1 = tight.stats();
    expect(s1.bytes).toBeLessThanOrEqual(max);
    expect(s1.documents).toBeLessThan(30);
    expect(s1.documents).toBeGreaterThanOrEqual(5);
    expect(s1.evicted).toBe(30 - s1.documents);
    expect(tight.parseCount).toBe(30);
    // the most recently used document stays; an evicted one is parsed again on use
    await tight.getDocument('doc-29');
    expect(tight.parseCount).toBe(30);
    await tight.getDocument('doc-00');
    expect(tight.parseCount).toBe(31);
    expect(tight.stats().bytes).toBeLessThanOrEqual(max);
  });

  it('answers the same with a budget too small for the tree', async () => {
    const dir = tree(files);
    const roomy = await session(sectionTools({ roots: [{ id: 'd', path: dir }] }));
    const tight = await session(
      sectionTools({ roots: [{ id: 'd', path: dir }], maxIndexBytes: 4096 }),
    );
    try {
      for (const [tool, args] of [
        ['docs_search', { query: 'needle7 part' }],
        ['docs_where', { query: 'more text' }],
        ['docs_read', { anchor: 'doc-12#part' }],
        ['docs_outline', { depth: 2 }],
      ] as const) {
        const a = await roomy.call(tool, args);
        const b = await tight.call(tool, args);
        expect(a.isError).toBe(false);
        const { index: ia, ...restA } = a.data;
        const { index: ib, ...restB } = b.data;
        expect(restB).toEqual(restA);
        if (tool === 'docs_outline') {
          expect(ia.documents).toBe(30);
          expect(ib.documents).toBeLessThan(30);
          expect(ib.max_bytes).toBe(4096);
        }
      }
    } finally {
      await roomy.close();
      await tight.close();
    }
  });

  it('refuses a budget that is not a positive whole number', () => {
    const dir = tree({ 'a.md': '# a\n' });
    for (const bad of [0, -1, 1.5]) {
      expect(() => new DocsIndex({ roots: [{ id: 'd', path: dir }], maxIndexBytes: bad })).toThrow(
        expect.objectContaining({ code: 'INVALID_LIMIT' }),
      );
    }
  });
});

describe('compact postings', () => {
  it('decode to the counts of each term in each unit', () => {
    // enough units and repeats that gaps and counts need several varint bytes
    const sections = bySize(300, 3000);
    const parts: string[] = [];
    for (let i = 0; i < sections; i++) {
      parts.push(`## Topic ${i % 7} alpha\n\n${'beta '.repeat(i % 200)}gamma${i % 3} delta\n`);
    }
    parts.push(`## Last\n\n${'omega '.repeat(20_000)}\n`);
    const doc = buildDocument(parts.join('\n'));
    const data = buildSearchData(doc);
    const naive = new Map<string, number[]>();
    data.units.forEach((u, k) => {
      const s = doc.sections[u.section]!;
      const head = terms(s.heading, data.language);
      const body = terms(extractLines(doc, u.bodyFirst, u.bodyLast).content, data.language);
      for (const t of new Set([...head, ...body])) {
        const list = naive.get(t) ?? [];
        list.push(k, head.filter((x) => x === t).length, body.filter((x) => x === t).length);
        naive.set(t, list);
      }
    });
    expect([...data.terms]).toEqual([...naive.keys()].sort());
    for (const [t, list] of naive) expect(postingsOf(data, t)).toEqual(list);
    expect(postingsOf(data, 'absent')).toBeNull();
  });
});
