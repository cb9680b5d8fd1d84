import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from '../package.js';
import { docsFixture } from '../test-helpers/fixture.js';
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

describe('docs_search', () => {
  it('ranks sections by relevance with snippets and anchors', async () => {
    const r = await s.call('docs_search', { query: 'cache timeout' });
    expect(r.isError).toBe(false);
    expect(r.data.results[0]).toMatchObject({
      anchor: 'guide#configure',
      heading_path: ['Guide', 'Configure'],
      start_line: 21,
    });
    expect(r.data.results[0].snippet).toContain('cache timeout');
    expect(r.data.results[0].score).toBeGreaterThan(0);
    expect(r.data.total).toBe(1);
  });

  it('matches headings and word forms, CJK characters and the text before headings', async () => {
    const heading = await s.call('docs_search', { query: 'installing' });
    const anchors = heading.data.results.map((x: { anchor: string }) => x.anchor);
    expect(anchors).toEqual(
      expect.arrayContaining(['guide#install', 'faq#install', 'faq#install-1']),
    );
    const cjk = await s.call('docs_search', { query: '中文' });
    expect(cjk.data.results[0].anchor).toBe('wide#wide');
    const pre = await s.call('docs_search', { query: 'paragraph' });
    expect(pre.data.results[0]).toMatchObject({ anchor: 'plain', level: 0, heading: 'plain' });
  });

  it('pages results and restricts to a scope', async () => {
    const all = await s.call('docs_search', { query: 'install example', limit: 2 });
    expect(all.data.results).toHaveLength(2);
    expect(all.data.next_offset).toBe(2);
    const next = await s.call('docs_search', { query: 'install example', limit: 2, offset: 2 });
    expect(next.data.results[0].anchor).not.toBe(all.data.results[1].anchor);
    const scoped = await s.call('docs_search', { query: 'error', scope: 'ref/' });
    expect(
      scoped.data.results.every((x: { anchor: string }) => x.anchor.split('#')[0] === 'ref/api'),
    ).toBe(true);
    const none = await s.call('docs_search', { query: 'error', scope: 'nothing/' });
    expect(none.data.code).toBe('SCOPE_EMPTY');
  });

  it('refuses an empty or punctuation-only query and bad limits', async () => {
    expect((await s.call('docs_search', { query: '' })).isError).toBe(true);
    expect((await s.call('docs_search', { query: ' ?! ' })).data.code).toBe('EMPTY_QUERY');
    expect((await s.call('docs_search', { query: 'x', limit: 51 })).isError).toBe(true);
    const nothing = await s.call('docs_search', { query: 'zzzqqq' });
    expect(nothing.data).toMatchObject({ results: [], total: 0, next_offset: null });
  });
});
