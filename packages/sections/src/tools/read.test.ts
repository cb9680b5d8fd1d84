import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from '../package.js';
import { docsFixture, WIDE_TEXT } from '../test-helpers/fixture.js';
import { session } from '../test-helpers/mcp.js';

let fx: ReturnType<typeof docsFixture>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  fx = docsFixture();
  s = await session(sectionTools({ roots: [{ id: 'docs', path: fx.dir }] }));
});
afterAll(async () => {
  await s.close();
  fx.cleanup();
});

describe('docs_read', () => {
  it('reads a section by anchor with its heading path and line range', async () => {
    const r = await s.call('docs_read', { anchor: 'guide#linux' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({
      anchor: 'guide#linux',
      doc_id: 'guide',
      path: 'guide.md',
      heading: 'Linux',
      heading_path: ['Guide', 'Install', 'Linux'],
      level: 3,
      start_line: 13,
      end_line: 15,
      content: '### Linux\n\nUse apt.',
      offset: 0,
      has_more: false,
      next_offset: null,
      total_chars: 19,
    });
    expect(r.data.version).toMatch(/^[0-9a-f]{64}$/);
  });

  it('includes subsections by default and can stop at the next heading', async () => {
    const all = await s.call('docs_read', { anchor: 'guide#install' });
    expect(all.data.content).toContain('### macOS');
    expect(all.data.content).toContain('# not a heading');
    const own = await s.call('docs_read', { anchor: 'guide#install', include_subsections: false });
    expect(own.data.content).not.toContain('### Linux');
    expect(own.data.end_line).toBe(11);
  });

  it('reads a whole document by doc_id, a setext section and a CRLF one', async () => {
    const whole = await s.call('docs_read', { anchor: 'front' });
    expect(whole.data.content.startsWith('---\ntitle: Front')).toBe(true);
    expect(whole.data.heading).toBe('Front matter page');
    const setext = await s.call('docs_read', { anchor: 'guide#configure' });
    expect(setext.data.content).toBe(
      'Configure\n---------\n\nEdit `lectern.yaml` to configure the cache timeout.',
    );
    const crlf = await s.call('docs_read', { anchor: 'crlf#part' });
    expect(crlf.data.content).toBe('## Part\r\n\r\nLine two.');
    const empty = await s.call('docs_read', { anchor: 'empty' });
    expect(empty.data).toMatchObject({ content: '', has_more: false, total_chars: 0 });
    const plain = await s.call('docs_read', { anchor: 'plain' });
    expect(plain.data.content).toBe('No headings at all, just a paragraph\nover two lines.');
  });

  it('continues with next_offset to reassemble emoji and CJK text exactly', async () => {
    const parts: string[] = [];
    let offset = 0;
    let pages = 0;
    for (;;) {
      const r = await s.call('docs_read', { anchor: 'wide', offset, max_chars: 100 });
      expect(r.isError).toBe(false);
      const page: string = r.data.content;
      expect(page.length).toBeLessThanOrEqual(100);
      expect(/^[\udc00-\udfff]/.test(page)).toBe(false);
      expect(/[\ud800-\udbff]$/.test(page)).toBe(false);
      parts.push(page);
      pages++;
      if (!r.data.has_more) break;
      offset = r.data.next_offset;
    }
    expect(pages).toBeGreaterThan(15);
    expect(parts.join('')).toBe(`# Wide\n\n${WIDE_TEXT}\n\n## After\n\nDone.`);
  });

  it('suggests the same document’s anchors for an unknown slug', async () => {
    const r = await s.call('docs_read', { anchor: 'guide#linx' });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('ANCHOR_NOT_FOUND');
    expect(r.data.suggestions[0]).toBe('guide#linux');
    expect(r.data.suggestions.every((a: string) => a.startsWith('guide#'))).toBe(true);
  });

  it('suggests the closest anchors for an unknown document', async () => {
    const r = await s.call('docs_read', { anchor: 'gide#linux' });
    expect(r.data.code).toBe('ANCHOR_NOT_FOUND');
    expect(r.data.suggestions).toContain('guide#linux');
    expect(r.data.error).toContain('gide');
  });

  it('rejects limits outside 100..50000 and offsets past the end', async () => {
    for (const max_chars of [99, 50001]) {
      const r = await s.call('docs_read', { anchor: 'guide', max_chars });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/max_chars/);
    }
    const past = await s.call('docs_read', { anchor: 'guide#linux', offset: 10_000 });
    expect(past.data.code).toBe('OFFSET_OUT_OF_RANGE');
    const anchorless = await s.call('docs_read', { anchor: '' });
    expect(anchorless.isError).toBe(true);
  });

  it('sees a file change on the next call', async () => {
    writeFileSync(join(fx.dir, 'ref/api.md'), '# API\n\n## Errors\n\nChanged.\n');
    const r = await s.call('docs_read', { anchor: 'ref/api#errors' });
    expect(r.data.content).toBe('## Errors\n\nChanged.');
    const gone = await s.call('docs_read', { anchor: 'ref/api#tokens' });
    expect(gone.data.code).toBe('ANCHOR_NOT_FOUND');
  });
});
