import { DEFAULT_OUTPUT_BYTES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from './package.js';
import { session, tempTree } from './test-helpers/mcp.js';

// Issue 29: docs_outline of one document with 200,000 headings answered 4.9 million characters
// with default arguments; every answer now stays within the 64 KiB default and says how to go on.
const HEADINGS = 200_000;
let tree: ReturnType<typeof tempTree>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  const lines: string[] = ['# Many'];
  for (let i = 1; i < HEADINGS; i++) lines.push(`## Heading ${i}`);
  tree = tempTree({ 'many.md': `${lines.join('\n')}\n` });
  s = await session(sectionTools({ roots: [{ id: 'docs', path: tree.dir }] }));
}, 120_000);
afterAll(async () => {
  await s?.close();
  tree?.cleanup();
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
