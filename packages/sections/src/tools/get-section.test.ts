import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from '../package.js';
import { docsFixture } from '../test-helpers/fixture.js';
import { session } from '../test-helpers/mcp.js';

let fx: ReturnType<typeof docsFixture>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  fx = docsFixture();
  s = await session(sectionTools({ roots: [{ id: 'docs', path: fx.dir }], maxFileBytes: 4096 }));
});
afterAll(async () => {
  await s.close();
  fx.cleanup();
});

describe('docs_get_section', () => {
  it('finds a section by case-insensitive heading in a file and counts duplicates', async () => {
    const r = await s.call('docs_get_section', { path: 'faq.md', heading: '  example ' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({
      title: 'Example',
      heading_path: ['FAQ', 'Install', 'Example'],
      level: 3,
      anchor: 'example',
      start_line: 7,
      end_line: 9,
      matches: 2,
      text: '### Example\n\nOne.',
      has_more: false,
      doc_id: 'faq',
    });
  });

  it('picks a duplicate by anchor, which wins over heading', async () => {
    const r = await s.call('docs_get_section', {
      path: 'faq.md',
      anchor: 'install-1',
      heading: 'FAQ',
    });
    expect(r.data).toMatchObject({
      title: 'Install',
      anchor: 'install-1',
      matches: 1,
      start_line: 11,
    });
    expect(r.data.text).toContain('Two.');
    const own = await s.call('docs_get_section', {
      path: 'faq.md',
      anchor: 'faq#install-1',
      include_subsections: false,
    });
    expect(own.data.text).toBe('## Install\n\nSecond.');
  });

  it('works on inline text, including setext and fenced headings', async () => {
    const text = 'Title\n=====\n\n```\n# fake\n```\n\nPart\n----\nbody\n';
    const r = await s.call('docs_get_section', { text, heading: 'part' });
    expect(r.data).toMatchObject({
      title: 'Part',
      level: 2,
      start_line: 8,
      end_line: 10,
      doc_id: null,
    });
    const miss = await s.call('docs_get_section', { text, heading: 'fake' });
    expect(miss.data.code).toBe('SECTION_NOT_FOUND');
    expect(miss.data.details.headings.map((h: { heading: string }) => h.heading)).toEqual([
      'Title',
      'Part',
    ]);
  });

  it('lists the headings when nothing matches, closest first', async () => {
    const r = await s.call('docs_get_section', { path: 'guide.md', heading: 'Instal' });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('SECTION_NOT_FOUND');
    expect(r.data.suggestions[0]).toBe('Install');
    expect(r.data.details.total_headings).toBe(5);
    const none = await s.call('docs_get_section', { path: 'plain.md', heading: 'x' });
    expect(none.data.error).toMatch(/no headings/);
  });

  it('refuses both path and text, neither, no selector, oversize and outside the root', async () => {
    const both = await s.call('docs_get_section', { path: 'faq.md', text: '# x', heading: 'x' });
    expect(both.data.code).toBe('SOURCE_CONFLICT');
    const neither = await s.call('docs_get_section', { heading: 'x' });
    expect(neither.data.code).toBe('SOURCE_MISSING');
    const noSel = await s.call('docs_get_section', { path: 'faq.md' });
    expect(noSel.data.code).toBe('SELECTOR_MISSING');
    const big = await s.call('docs_get_section', {
      text: `# A\n${'x'.repeat(5000)}`,
      heading: 'A',
    });
    expect(big.data.code).toBe('TEXT_TOO_LARGE');
    const outside = await s.call('docs_get_section', { path: '../escape.md', heading: 'x' });
    expect(outside.data.code).toBe('PATH_ESCAPES_ROOT');
    const abs = await s.call('docs_get_section', { path: '/etc/hosts', heading: 'x' });
    expect(abs.data.code).toBe('PATH_ABSOLUTE_OUTSIDE_ROOT');
    const missing = await s.call('docs_get_section', { path: 'nope.md', heading: 'x' });
    expect(missing.data.code).toBe('PATH_NOT_FOUND');
    const inside = await s.call('docs_get_section', {
      path: join(fx.dir, 'faq.md'),
      heading: 'faq',
    });
    expect(inside.data.title).toBe('FAQ');
  });

  it('pages a long section with max_chars and next_offset', async () => {
    const text = `# Long\n\n${'abcdefghij'.repeat(50)}\n`;
    const first = await s.call('docs_get_section', { text, heading: 'Long', max_chars: 200 });
    expect(first.data).toMatchObject({ has_more: true, next_offset: 200, chars: 508 });
    const rest = await s.call('docs_get_section', {
      text,
      heading: 'Long',
      offset: 200,
      max_chars: 1000,
    });
    expect(first.data.text + rest.data.text).toBe(text.trimEnd());
  });
});
