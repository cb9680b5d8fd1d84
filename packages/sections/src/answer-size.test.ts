import { DEFAULT_OUTPUT_BYTES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from './package.js';
import { session, tempTree } from './test-helpers/mcp.js';

// Issue 29: docs_outline of one document with 200,000 headings answered 4.9 million characters
// with default arguments; every answer now stays within the 64 KiB default and says how to go on.
const HEADINGS = 200_000;
// one heading of 100,000 characters between two short sections
const BIG = `Big ${'heading words '.repeat(7_142)}end`;
let tree: ReturnType<typeof tempTree>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  const lines: string[] = ['# Many'];
  for (let i = 1; i < HEADINGS; i++) lines.push(`## Heading ${i}`);
  tree = tempTree({
    'many.md': `${lines.join('\n')}\n`,
    'huge.md': `# Huge\n\nintro text\n\n## ${BIG}\n\nbody of the big one\n\n## After\n\nlast words\n`,
  });
  s = await session(sectionTools({ roots: [{ id: 'docs', path: tree.dir }] }));
}, 120_000);
afterAll(async () => {
  await s?.close();
  tree?.cleanup();
});

/** The marker of a cut string: what was kept, and the docs_read call that reads it whole. */
const MARK =
  / … \[cut: (\d+) of (\d+) characters; docs_read "([^"]+)" from offset (\d+) reads it whole\]$/;

/** Follows a cut marker: docs_read of the document from its offset, page by page, to the line's end. */
async function readOn(mark: RegExpExecArray): Promise<string> {
  let offset = Number(mark[4]);
  let text = '';
  for (let calls = 0; !text.includes('\n') && calls < 100; calls++) {
    const r = await s.call('docs_read', { anchor: mark[3], offset, max_chars: 50_000 });
    expect(r.isError, r.text.slice(0, 300)).toBe(false);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    text += r.data.content;
    if (r.data.next_offset === null) break;
    offset = r.data.next_offset;
  }
  return text.split('\n')[0]!;
}

describe('a heading of 100,000 characters is cut with a marker and read whole by docs_read', () => {
  const check = async (value: string) => {
    const m = MARK.exec(value);
    expect(m, value.slice(-300)).not.toBeNull();
    expect(Number(m![2])).toBe(BIG.length);
    expect(value.startsWith(BIG.slice(0, Number(m![1])))).toBe(true);
    expect(await readOn(m!)).toBe(`## ${BIG}`);
  };

  it('docs_outline of the document: the page with the big heading cuts it and goes on', async () => {
    const first = await s.call('docs_outline', { doc_id: 'huge' });
    expect(first.data.next_section_offset).toBe(1);
    const r = await s.call('docs_outline', { doc_id: 'huge', section_offset: 1 });
    expect(r.isError, r.text.slice(0, 300)).toBe(false);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    const [big] = r.data.documents[0].sections;
    expect(big.start_line).toBe(5);
    await check(big.heading);
    expect(big.anchor).toMatch(MARK);
    const next = await s.call('docs_outline', {
      doc_id: 'huge',
      section_offset: r.data.next_section_offset,
    });
    expect(next.data.documents[0].sections[0].heading).toBe('After');
  }, 120_000);

  it('docs_outline of every document: each entry fits, cut ones say where to go on', async () => {
    let offset: number | null = 0;
    const seen: Record<string, { sections: { heading: string }[]; next_section_offset?: number }> =
      {};
    while (offset !== null) {
      const r = await s.call('docs_outline', { offset });
      expect(r.isError, r.text.slice(0, 300)).toBe(false);
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
      for (const d of r.data.documents) seen[d.doc_id] = d;
      offset = r.data.next_offset;
    }
    // the 200,000 headings: the first ones, and where outlining it alone goes on
    const many = seen.many!;
    expect(many.next_section_offset).toBe(many.sections.length);
    expect(many.sections.length).toBeGreaterThan(100);
    const on = await s.call('docs_outline', {
      doc_id: 'many',
      depth: 2,
      section_offset: many.next_section_offset,
    });
    expect(on.data.documents[0].sections[0].heading).toBe(`Heading ${many.sections.length}`);
    expect(seen.huge!.next_section_offset).toBe(1);
  }, 120_000);

  it('docs_search and docs_where answer the section cut instead of refusing it', async () => {
    const found = await s.call('docs_search', { query: 'body big one' });
    expect(found.isError, found.text.slice(0, 300)).toBe(false);
    expect(Buffer.byteLength(found.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    const hit = found.data.results.find((h: { start_line: number }) => h.start_line === 5);
    await check(hit.heading);
    const where = await s.call('docs_where', { query: 'words' });
    expect(where.isError, where.text.slice(0, 300)).toBe(false);
    expect(Buffer.byteLength(where.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    expect(where.data.results.length).toBeGreaterThan(1);
    await check(where.data.results.find((h: { start_line: number }) => h.start_line === 5).heading);
    const line = await s.call('docs_where', { doc_id: 'huge', line: 7 });
    expect(line.isError, line.text.slice(0, 300)).toBe(false);
    expect(Buffer.byteLength(line.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    await check(line.data.results[0].heading);
    await check(line.data.results[0].heading_path[1]);
  }, 120_000);
});

describe('docs answers fit the default output budget', () => {
  it('docs_outline of a 200,000-heading document pages within 64 KiB', async () => {
    const r = await s.call('docs_outline', { doc_id: 'many' });
    expect(r.isError, r.text.slice(0, 300)).toBe(false);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    const shown = r.data.documents[0].sections.length;
    expect(shown).toBeGreaterThan(100);
    expect(r.data.has_more).toBe(true);
    expect(r.data.next_section_offset).toBe(shown);
    const next = await s.call('docs_outline', {
      doc_id: 'many',
      section_offset: r.data.next_section_offset,
    });
    expect(Buffer.byteLength(next.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    expect(next.data.documents[0].sections[0].heading).toBe(`Heading ${shown}`);
  }, 120_000);

  it('docs_get_section of the whole document stays within 64 KiB and says how to continue', async () => {
    const read = await s.call('docs_get_section', {
      path: 'many.md',
      heading: 'Many',
      include_subsections: true,
    });
    expect(read.isError, read.text.slice(0, 300)).toBe(false);
    expect(Buffer.byteLength(read.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    expect(JSON.stringify(read.data)).toMatch(/"has_more":true|"truncated":true/);
  }, 120_000);
});
