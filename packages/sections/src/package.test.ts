import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { realisticDocument } from '@lectern/markdown/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParseEvent } from './lib/docs-index.js';
import { sectionTools } from './package.js';
import { session, tempTree } from './test-helpers/mcp.js';

describe('caching through the tools', () => {
  it('parses a document once across tools and calls, and again only after it changes', async () => {
    const t = tempTree({ 'a.md': '# A\n## B\ntext\n', 'c.md': '# C\n' });
    const events: ParseEvent[] = [];
    const s = await session(
      sectionTools({ roots: [{ id: 'd', path: t.dir }], onParse: (e) => events.push(e) }),
    );
    try {
      await s.call('docs_outline', {});
      // Files load concurrently: each once, in whichever order their reads finish.
      expect(events.map((e) => e.path).sort()).toEqual(['a.md', 'c.md']);
      await s.call('docs_read', { anchor: 'a#b' });
      await s.call('docs_search', { query: 'text' });
      await s.call('docs_where', { doc_id: 'a', line: 3 });
      await s.call('docs_chunk', { doc_id: 'a' });
      await s.call('docs_get_section', { path: 'a.md', heading: 'B' });
      expect(events).toHaveLength(2);
      writeFileSync(join(t.dir, 'a.md'), '# A\n## B\nnew text\n');
      const st = statSync(join(t.dir, 'a.md'));
      expect(st.size).toBeGreaterThan(0);
      const r = await s.call('docs_read', { anchor: 'a#b' });
      expect(r.data.content).toBe('## B\nnew text');
      expect(events.slice(2).map((e) => e.path)).toEqual(['a.md']);
    } finally {
      await s.close();
      t.cleanup();
    }
  });

  it('throws a ToolError for a missing root at construction', () => {
    expect(() => sectionTools({ roots: [{ id: 'x', path: '/definitely/not/here' }] })).toThrow(
      expect.objectContaining({ code: 'ROOT_MISSING' }),
    );
  });
});

describe('several roots', () => {
  it('prefixes doc_ids and paths with the root id in every tool', async () => {
    const a = tempTree({ 'guide.md': '# Guide A\n## Setup\nalpha\n' });
    const b = tempTree({
      'guide.md': '# Guide B\n## Setup\nbeta\n',
      'bad.md': Buffer.from([0x23, 0x20, 0xff, 0x0a]),
    });
    const s = await session(
      sectionTools({
        roots: [
          { id: 'one', path: a.dir },
          { id: 'two', path: b.dir },
        ],
      }),
    );
    try {
      const outline = await s.call('docs_outline', {});
      expect(outline.data.documents.map((d: { doc_id: string }) => d.doc_id)).toEqual([
        'one/guide',
        'two/guide',
      ]);
      expect(outline.data.skipped).toEqual([
        { path: 'two/bad.md', reason: expect.stringMatching(/UTF-8/) },
      ]);
      const read = await s.call('docs_read', { anchor: 'two/guide#setup' });
      expect(read.data).toMatchObject({ path: 'two/guide.md', content: '## Setup\nbeta' });
      const section = await s.call('docs_get_section', { path: 'one/guide.md', heading: 'setup' });
      expect(section.data).toMatchObject({ text: '## Setup\nalpha', doc_id: 'one/guide' });
      const search = await s.call('docs_search', { query: 'beta' });
      expect(search.data.results[0].anchor).toBe('two/guide#setup');
      const noRoot = await s.call('docs_read', { anchor: 'three/guide#setup' });
      expect(noRoot.data.code).toBe('ROOT_NOT_FOUND');
      const bad = await s.call('docs_read', { anchor: 'two/bad' });
      expect(bad.data.code).toBe('INVALID_UTF8');
    } finally {
      await s.close();
      a.cleanup();
      b.cleanup();
    }
  });
});

describe('a 10 MB document', () => {
  let t: ReturnType<typeof tempTree>;
  let s: Awaited<ReturnType<typeof session>>;
  let text: string;
  const events: ParseEvent[] = [];
  beforeAll(async () => {
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 10 * 1024 * 1024 - 60_000; i++) {
      const page = realisticDocument(i, 20_000).replace(/^---[\s\S]*?---\n/, '');
      parts.push(page);
      size += Buffer.byteLength(page) + 1;
    }
    text = parts.join('\n');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10 * 1024 * 1024);
    t = tempTree({ 'big.md': text, 'over.md': `${text}${'z'.repeat(70_000)}` });
    s = await session(
      sectionTools({ roots: [{ id: 'd', path: t.dir }], onParse: (e) => events.push(e) }),
    );
    // generating and writing 20 MB can take a while on a busy machine
  }, 120_000);
  afterAll(async () => {
    await s.close();
    t.cleanup();
  });

  it('outlines with the fast scanner and reads a section near the end', async () => {
    const outline = await s.call('docs_outline', { doc_id: 'big', depth: 1 });
    expect(outline.isError).toBe(false);
    const sections = outline.data.documents[0].sections;
    expect(sections.length).toBeGreaterThan(400);
    expect(events.find((e) => e.path === 'big.md')!.parser).toBe('scanner');
    const last = sections[sections.length - 1];
    const r = await s.call('docs_read', { anchor: last.anchor, max_chars: 50000 });
    expect(r.data.start_line).toBe(last.start_line);
    expect(r.data.content.startsWith('# ')).toBe(true);
    const sec = await s.call('docs_get_section', {
      path: 'big.md',
      anchor: last.anchor.split('#')[1],
    });
    expect(sec.data.start_line).toBe(last.start_line);
    const chunks = await s.call('docs_chunk', { doc_id: 'big', limit: 5 });
    expect(chunks.data.total_chunks).toBeGreaterThan(1000);
  });

  it('refuses a file over the 10 MB default', async () => {
    const r = await s.call('docs_get_section', { path: 'over.md', heading: 'x' });
    expect(r.data.code).toBe('FILE_TOO_LARGE');
    // The 10 MB document's outline alone is over the 64 KiB answer budget: its first headings,
    // with the section_offset that outlines it alone from there; the next page goes on.
    const first = await s.call('docs_outline', {});
    expect(first.isError, first.text.slice(0, 300)).toBe(false);
    expect(first.data.documents[0].next_section_offset).toBe(
      first.data.documents[0].sections.length,
    );
    expect(first.data.skipped.map((x: { path: string }) => x.path)).toEqual(['over.md']);
  });
});
