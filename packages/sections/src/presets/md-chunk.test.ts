import { DEFAULT_OUTPUT_BYTES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsFixture } from '../test-helpers/fixture.js';
import { session } from '../test-helpers/mcp.js';
import { mdChunkTools } from './md-chunk.js';

let fx: ReturnType<typeof docsFixture>;
let s: Awaited<ReturnType<typeof session>>;
// biome-ignore lint/suspicious/noExplicitAny: JSON schema from tools/list
let listed: any[];
beforeAll(async () => {
  fx = docsFixture();
  s = await session(mdChunkTools({ roots: [{ id: 'docs', path: fx.dir }] }));
  listed = (await s.client.listTools()).tools;
});
afterAll(async () => {
  await s.close();
  fx.cleanup();
});
const tool = (name: string) => listed.find((t) => t.name === name);

describe('md-chunk preset surface', () => {
  it('has the three seed tool names', () => {
    expect(listed.map((t) => t.name)).toEqual([
      'get_section',
      'outline_markdown',
      'chunk_markdown',
    ]);
    for (const t of listed)
      expect(t.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
  });

  it('get_section takes the seed parameters (plus offset) with include_subsections defaulting to true', () => {
    const schema = tool('get_section').inputSchema;
    expect(Object.keys(schema.properties).sort()).toEqual([
      'anchor',
      'heading',
      'include_subsections',
      'offset',
      'path',
      'text',
    ]);
    // the seed's callers send "" for what they leave out: no string field refuses it
    for (const k of ['anchor', 'heading', 'path', 'text'])
      expect(schema.properties[k].minLength).toBeUndefined();
    expect(schema.required ?? []).toEqual([]);
    expect(schema.properties.include_subsections).toMatchObject({ type: 'boolean', default: true });
    expect(Object.keys(tool('get_section').outputSchema.properties)).toEqual(
      expect.arrayContaining([
        'title',
        'heading_path',
        'level',
        'anchor',
        'start_line',
        'end_line',
        'chars',
        'matches',
        'text',
      ]),
    );
  });

  it('outline_markdown and chunk_markdown take path/text plus their own options', () => {
    expect(Object.keys(tool('outline_markdown').inputSchema.properties).sort()).toEqual([
      'max_depth',
      'path',
      'text',
    ]);
    expect(tool('outline_markdown').inputSchema.properties.max_depth).toMatchObject({
      default: 6,
      minimum: 1,
      maximum: 6,
    });
    expect(Object.keys(tool('chunk_markdown').inputSchema.properties).sort()).toEqual([
      'max_chars',
      'offset',
      'path',
      'text',
    ]);
    expect(tool('chunk_markdown').inputSchema.properties.max_chars).toMatchObject({
      default: 2000,
      minimum: 200,
      maximum: 100000,
    });
  });
});

describe('md-chunk preset calls', () => {
  it('get_section returns the seed shape by heading and by anchor', async () => {
    const r = await s.call('get_section', { path: 'faq.md', heading: 'install' });
    expect(r.isError).toBe(false);
    expect(r.data).toEqual({
      title: 'Install',
      heading_path: ['FAQ', 'Install'],
      level: 2,
      anchor: 'install',
      start_line: 3,
      end_line: 9,
      chars: 37,
      matches: 2,
      text: '## Install\n\nFirst.\n\n### Example\n\nOne.',
      truncated: false,
      next_offset: null,
    });
    const second = await s.call('get_section', { text: '# A\n## B\nx\n## B\ny\n', anchor: 'b-1' });
    expect(second.data).toMatchObject({ title: 'B', start_line: 4, text: '## B\ny', matches: 1 });
  });

  it('get_section treats empty strings as not given, as the seed asks callers to send them', async () => {
    const byHeading = await s.call('get_section', {
      path: 'faq.md',
      text: '',
      anchor: '',
      heading: 'install',
    });
    expect(byHeading.isError).toBe(false);
    expect(byHeading.data).toMatchObject({ title: 'Install', matches: 2 });
    const byAnchor = await s.call('get_section', {
      path: '',
      text: '# A\n## B\nx\n## B\ny\n',
      anchor: 'b-1',
      heading: '',
    });
    expect(byAnchor.data).toMatchObject({ title: 'B', start_line: 4 });
    const none = await s.call('get_section', { path: '', text: '', heading: 'x' });
    expect(none.data.code).toBe('SOURCE_MISSING');
    const noSelector = await s.call('get_section', { path: 'faq.md', anchor: '', heading: '' });
    expect(noSelector.data.code).toBe('SELECTOR_MISSING');
  });

  it('get_section returns a section over 200000 characters in parts that join back', async () => {
    const body = `${'abcdefghij'.repeat(45_000)}\n`; // 450,001 characters of body
    const text = `# Big\n\n${body}\n# Next\n`;
    const section = `# Big\n\n${body}`.replace(/\n$/, '');
    const parts: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const r = await s.call('get_section', {
        text,
        heading: 'Big',
        ...(offset ? { offset } : {}),
      });
      expect(r.isError).toBe(false);
      expect(r.data.text.length).toBeLessThanOrEqual(200000);
      // the 64 KiB answer budget, not max_chars, ends each part
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
      expect(r.data.truncated).toBe(r.data.next_offset !== null);
      parts.push(r.data.text);
      offset = r.data.next_offset;
    }
    expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(section.length / DEFAULT_OUTPUT_BYTES));
    expect(parts.join('')).toBe(section);
  });

  it('get_section errors for both, neither and an unknown heading', async () => {
    expect(
      (await s.call('get_section', { path: 'faq.md', text: '# x', heading: 'x' })).data.code,
    ).toBe('SOURCE_CONFLICT');
    expect((await s.call('get_section', { heading: 'x' })).data.code).toBe('SOURCE_MISSING');
    const miss = await s.call('get_section', { path: 'faq.md', heading: 'Uninstall' });
    expect(miss.data.code).toBe('SECTION_NOT_FOUND');
    expect(miss.data.suggestions[0]).toBe('Install');
  });

  it('outline_markdown lists headings with slugs', async () => {
    const r = await s.call('outline_markdown', { path: 'guide.md', max_depth: 2 });
    expect(r.data).toMatchObject({ title: 'Guide', total: 3 });
    expect(r.data.headings.map((h: { anchor: string }) => h.anchor)).toEqual([
      'guide',
      'install',
      'configure',
    ]);
    expect((await s.call('outline_markdown', {})).data.code).toBe('SOURCE_MISSING');
  });

  it('chunk_markdown chunks text and a file', async () => {
    const r = await s.call('chunk_markdown', { text: 'pre\n\n# A\nx\n' });
    expect(r.data).toEqual({
      chunks: [
        {
          index: 0,
          heading_path: [],
          anchor: '',
          start_line: 1,
          end_line: 1,
          chars: 3,
          oversized: false,
          text: 'pre',
        },
        {
          index: 1,
          heading_path: ['A'],
          anchor: 'a',
          start_line: 3,
          end_line: 4,
          chars: 5,
          oversized: false,
          text: '# A\nx',
        },
      ],
      total_chunks: 2,
      next_offset: null,
    });
    const file = await s.call('chunk_markdown', { path: 'crlf.md' });
    expect(file.data.chunks[0].text).toBe(
      '# Windows\r\n\r\nLine one.\r\n\r\n## Part\r\n\r\nLine two.',
    );
    expect((await s.call('chunk_markdown', { text: 'x', max_chars: 199 })).isError).toBe(true);
  });
});
