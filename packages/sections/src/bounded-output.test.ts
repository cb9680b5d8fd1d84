import { bySize } from '@lectern/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from './package.js';
import { session, tempTree } from './test-helpers/mcp.js';

// Issue 13 item 3: no response passes the byte budget; what does not fit comes on a later page.
const BUDGET = 16 * 1024;
const HEADINGS = bySize(3_000, 60_000);
const manyHeadings = Array.from({ length: HEADINGS }, (_, i) => `## Heading number ${i}\n`).join(
  '',
);
const bigChunks = Array.from(
  { length: 40 },
  (_, i) => `# Part ${i}\n\n${'word '.repeat(900)}\n`,
).join('\n');
const files = Object.fromEntries(
  Array.from({ length: 60 }, (_, i) => [`many/doc-${i}.md`, `# Doc ${i}\n\n## A\n\n## B\n`]),
);

let tree: ReturnType<typeof tempTree>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  tree = tempTree({
    'headings.md': manyHeadings,
    'chunks.md': bigChunks,
    'fence.md': `# Code\n\n\`\`\`\n${'x'.repeat(40_000)}\n\`\`\`\n\n# After\n\ntext\n`,
    'quotes.md': `# Quotes\n\n${'"\\\u0001'.repeat(6_000)}\n`,
    ...files,
  });
  s = await session(
    sectionTools({ roots: [{ id: 'docs', path: tree.dir }], maxOutputBytes: BUDGET }),
  );
});
afterAll(async () => {
  await s.close();
  tree.cleanup();
});

const bytes = (r: { text: string }) => Buffer.byteLength(r.text, 'utf8');

describe('responses stay within the byte budget', () => {
  it('docs_outline of one document of many headings pages them with section_offset', async () => {
    const seen: string[] = [];
    let next: number | null = 0;
    let calls = 0;
    while (next !== null) {
      const r = await s.call('docs_outline', { doc_id: 'headings', section_offset: next });
      expect(r.isError, r.text).toBe(false);
      expect(bytes(r)).toBeLessThanOrEqual(BUDGET);
      const page = r.data.documents[0].sections as Array<{ heading: string }>;
      expect(page.length).toBeGreaterThan(0);
      seen.push(...page.map((x) => x.heading));
      expect(r.data.has_more).toBe(r.data.next_section_offset !== null);
      next = r.data.next_section_offset;
      calls++;
    }
    expect(calls).toBeGreaterThan(1);
    expect(seen).toEqual(Array.from({ length: HEADINGS }, (_, i) => `Heading number ${i}`));
  }, 120_000);

  it('docs_outline of every document pages by bytes as well as by limit', async () => {
    const r = await s.call('docs_outline', { depth: 6, limit: 200 });
    expect(r.isError, r.text).toBe(false);
    expect(bytes(r)).toBeLessThanOrEqual(BUDGET);
    expect(r.data.has_more).toBe(true);
    expect(r.data.next_offset).toBe(r.data.documents.length);
    // the document too large for any page is refused with the offset that skips it
    const at = ['chunks', 'fence', 'headings', 'many/doc-0'];
    expect(r.data.documents.map((d: { doc_id: string }) => d.doc_id)).toEqual(
      at.slice(0, r.data.documents.length),
    );
  });

  it('docs_outline answers a document that alone exceeds the budget cut, naming how to go on', async () => {
    // Issue 29: its first headings, and the section_offset that outlines it alone from there.
    const r = await s.call('docs_outline', { depth: 6, offset: 2, limit: 1 });
    expect(r.isError, r.text.slice(0, 300)).toBe(false);
    expect(bytes(r)).toBeLessThanOrEqual(BUDGET);
    const [doc] = r.data.documents;
    expect(doc.doc_id).toBe('headings');
    expect(doc.sections.length).toBeGreaterThan(10);
    expect(doc.next_section_offset).toBe(doc.sections.length);
    expect(r.data).toMatchObject({ next_offset: 3, has_more: true });
    const on = await s.call('docs_outline', {
      doc_id: 'headings',
      depth: 6,
      section_offset: doc.next_section_offset,
    });
    expect(on.isError, on.text.slice(0, 300)).toBe(false);
    expect(on.data.documents[0].sections[0].start_line).toBeGreaterThan(
      doc.sections.at(-1).start_line,
    );
  });

  it('docs_chunk stops a page at the budget and continues with next_offset', async () => {
    const texts: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    let total = 0;
    while (offset !== null) {
      const r = await s.call('docs_chunk', { doc_id: 'chunks', offset, limit: 500 });
      expect(r.isError, r.text).toBe(false);
      expect(bytes(r)).toBeLessThanOrEqual(BUDGET);
      texts.push(...r.data.chunks.map((c: { text: string }) => c.text));
      expect(r.data.has_more).toBe(r.data.next_offset !== null);
      total = r.data.total_chunks;
      offset = r.data.next_offset;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(texts.length).toBe(total);
    for (let i = 0; i < 40; i++) expect(texts).toContain(`# Part ${i}`);
  });

  it('docs_chunk refuses one chunk over the budget with the offset that skips it', async () => {
    // the first page stops before the fence; asked for alone, the fence is refused
    const first = await s.call('docs_chunk', { doc_id: 'fence', max_chars: 200 });
    expect(first.isError).toBe(false);
    expect(first.data.has_more).toBe(true);
    const r = await s.call('docs_chunk', {
      doc_id: 'fence',
      max_chars: 200,
      offset: first.data.next_offset,
    });
    expect(r.data.code).toBe('OUTPUT_TOO_LARGE');
    const after = await s.call('docs_chunk', {
      doc_id: 'fence',
      max_chars: 200,
      offset: r.data.details.next_offset,
    });
    expect(after.isError).toBe(false);
    expect(after.data.chunks.at(-1).text).toContain('# After');
  });

  it('docs_get_section pages text heavy with escapes by its JSON size', async () => {
    let offset: number | null = 0;
    let text = '';
    let pages = 0;
    while (offset !== null) {
      const r = await s.call('docs_get_section', {
        path: 'quotes.md',
        heading: 'Quotes',
        max_chars: 200000,
        offset,
      });
      expect(r.isError, r.text).toBe(false);
      expect(bytes(r)).toBeLessThanOrEqual(BUDGET);
      text += r.data.text;
      offset = r.data.next_offset;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(text).toBe(`# Quotes\n\n${'"\\\u0001'.repeat(6_000)}`);
  });
});
