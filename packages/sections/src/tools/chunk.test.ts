import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from '../package.js';
import { docsFixture } from '../test-helpers/fixture.js';
import { session, writeTree } from '../test-helpers/mcp.js';

const LONG = [
  '# Manual',
  '',
  `Intro ${'words '.repeat(20)}`.trim(),
  '',
  '## Install',
  '',
  '```sh',
  '# not a heading',
  'make install',
  '```',
  '',
  `Then ${'steps '.repeat(20)}`.trim(),
  '',
  '## Configure',
  '',
  `Edit ${'options '.repeat(15)}`.trim(),
  '',
].join('\n');

let fx: ReturnType<typeof docsFixture>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  fx = docsFixture();
  writeTree(fx.dir, 'long.md', LONG);
  s = await session(sectionTools({ roots: [{ id: 'docs', path: fx.dir }] }));
});
afterAll(async () => {
  await s.close();
  fx.cleanup();
});

describe('docs_chunk', () => {
  it('chunks a document along headings with anchors and line ranges', async () => {
    const r = await s.call('docs_chunk', { doc_id: 'long', max_chars: 200 });
    expect(r.isError).toBe(false);
    expect(r.data.doc_id).toBe('long');
    const anchors = r.data.chunks.map((c: { anchor: string }) => c.anchor);
    expect(anchors).toEqual(['long#manual', 'long#install', 'long#configure']);
    const install = r.data.chunks[1];
    expect(install).toMatchObject({
      heading_path: ['Manual', 'Install'],
      start_line: 5,
      end_line: 12,
      oversized: false,
    });
    expect(install.text).toContain('```sh\n# not a heading\nmake install\n```');
    expect(r.data.total_chunks).toBe(3);
    const whole = await s.call('docs_chunk', { doc_id: 'long' });
    expect(whole.data.chunks).toHaveLength(1);
  });

  it('pages chunks with offset and limit', async () => {
    const r = await s.call('docs_chunk', { doc_id: 'long', max_chars: 200, offset: 1, limit: 1 });
    expect(r.data.chunks.map((c: { index: number }) => c.index)).toEqual([1]);
    expect(r.data.next_offset).toBe(2);
  });

  it('chunks inline text and skips front matter', async () => {
    const r = await s.call('docs_chunk', { text: '---\na: 1\n---\nintro\n\n# A\nx\n' });
    expect(r.data.chunks.map((c: { anchor: string; text: string }) => [c.anchor, c.text])).toEqual([
      ['', 'intro'],
      ['a', '# A\nx'],
    ]);
  });

  it('errors for no source, two sources and a budget under 200', async () => {
    expect((await s.call('docs_chunk', {})).data.code).toBe('SOURCE_MISSING');
    expect((await s.call('docs_chunk', { doc_id: 'guide', path: 'guide.md' })).data.code).toBe(
      'SOURCE_CONFLICT',
    );
    expect((await s.call('docs_chunk', { doc_id: 'guide', max_chars: 199 })).isError).toBe(true);
  });
});
