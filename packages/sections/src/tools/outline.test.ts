import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from '../package.js';
import { docsFixture } from '../test-helpers/fixture.js';
import { session, writeTree } from '../test-helpers/mcp.js';

let fx: ReturnType<typeof docsFixture>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  fx = docsFixture();
  writeTree(fx.dir, 'huge.md', `# Huge\n${'y'.repeat(5000)}\n`);
  s = await session(sectionTools({ roots: [{ id: 'docs', path: fx.dir }], maxFileBytes: 4096 }));
});
afterAll(async () => {
  await s.close();
  fx.cleanup();
});

describe('docs_outline', () => {
  it('outlines every document to depth 2 by default, sorted, reporting skipped files', async () => {
    const r = await s.call('docs_outline', {});
    expect(r.isError).toBe(false);
    expect(r.data.documents.map((d: { doc_id: string }) => d.doc_id)).toEqual([
      'crlf',
      'empty',
      'faq',
      'front',
      'guide',
      'plain',
      'ref/api',
      'wide',
    ]);
    const guide = r.data.documents.find((d: { doc_id: string }) => d.doc_id === 'guide');
    expect(guide.sections.map((x: { anchor: string }) => x.anchor)).toEqual([
      'guide#guide',
      'guide#install',
      'guide#configure',
    ]);
    expect(r.data.skipped).toEqual([
      { path: 'huge.md', reason: expect.stringMatching(/over the 4096-byte limit/) },
    ]);
    expect(r.data).toMatchObject({ total_documents: 8, offset: 0, next_offset: null });
  });

  it('pages documents with offset and limit', async () => {
    const p1 = await s.call('docs_outline', { limit: 3 });
    expect(p1.data.documents).toHaveLength(3);
    expect(p1.data.next_offset).toBe(3);
    const p3 = await s.call('docs_outline', { limit: 3, offset: 6 });
    expect(p3.data.documents.map((d: { doc_id: string }) => d.doc_id)).toEqual(['ref/api', 'wide']);
    expect(p3.data.next_offset).toBeNull();
  });

  it('outlines one document by doc_id, path or text with line ranges and sizes', async () => {
    const byId = await s.call('docs_outline', { doc_id: 'faq' });
    expect(byId.data.documents[0].sections).toEqual([
      { anchor: 'faq#faq', heading: 'FAQ', level: 1, start_line: 1, end_line: 17, chars: 84 },
      {
        anchor: 'faq#install',
        heading: 'Install',
        level: 2,
        start_line: 3,
        end_line: 9,
        chars: 37,
      },
      {
        anchor: 'faq#example',
        heading: 'Example',
        level: 3,
        start_line: 7,
        end_line: 9,
        chars: 17,
      },
      {
        anchor: 'faq#install-1',
        heading: 'Install',
        level: 2,
        start_line: 11,
        end_line: 17,
        chars: 38,
      },
      {
        anchor: 'faq#example-1',
        heading: 'Example',
        level: 3,
        start_line: 15,
        end_line: 17,
        chars: 17,
      },
    ]);
    const byPath = await s.call('docs_outline', { path: 'front.md', depth: 1 });
    expect(byPath.data.documents[0]).toMatchObject({
      doc_id: 'front',
      title: 'Front matter page',
      sections: [{ anchor: 'front#front-matter-page', start_line: 6 }],
    });
    const text = await s.call('docs_outline', { text: '# T\n## U\n' });
    expect(text.data.documents[0]).toMatchObject({ doc_id: null, path: null, lines: 2 });
    expect(text.data.documents[0].sections.map((x: { anchor: string }) => x.anchor)).toEqual([
      't',
      'u',
    ]);
    const empty = await s.call('docs_outline', { doc_id: 'empty' });
    expect(empty.data.documents[0]).toMatchObject({
      lines: 0,
      chars: 0,
      sections: [],
      title: null,
    });
  });

  it('errors for two sources, an unknown doc_id and an offset with one document', async () => {
    const both = await s.call('docs_outline', { doc_id: 'faq', text: '# x' });
    expect(both.data.code).toBe('SOURCE_CONFLICT');
    const unknown = await s.call('docs_outline', { doc_id: 'gude' });
    expect(unknown.data).toMatchObject({
      code: 'DOC_NOT_FOUND',
      suggestions: expect.arrayContaining(['guide']),
    });
    const off = await s.call('docs_outline', { doc_id: 'faq', offset: 1 });
    expect(off.data.code).toBe('INVALID_INPUT');
    const deep = await s.call('docs_outline', { depth: 7 });
    expect(deep.isError).toBe(true);
  });
});
