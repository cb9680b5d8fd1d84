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

describe('docs_where', () => {
  it('points a question to the section whose heading names the topic', async () => {
    const r = await s.call('docs_where', { query: 'How do I rotate my tokens?' });
    expect(r.isError).toBe(false);
    expect(r.data.mode).toBe('topic');
    expect(r.data.results[0]).toMatchObject({ anchor: 'ref/api#tokens', matched_in: 'heading' });
    expect(r.data.results.length).toBeLessThanOrEqual(3);
  });

  it('prefers heading matches over body mentions', async () => {
    const r = await s.call('docs_where', { query: 'configure', limit: 5 });
    expect(r.data.results[0].anchor).toBe('guide#configure');
  });

  it('returns the innermost section enclosing a line of a file or doc_id', async () => {
    const byPath = await s.call('docs_where', { path: 'guide.md', line: 15 });
    expect(byPath.data).toMatchObject({
      mode: 'line',
      results: [
        { anchor: 'guide#linux', heading_path: ['Guide', 'Install', 'Linux'], score: null },
      ],
    });
    const inFence = await s.call('docs_where', { doc_id: 'guide', line: 9 });
    expect(inFence.data.results[0].anchor).toBe('guide#install');
    const before = await s.call('docs_where', { doc_id: 'plain', line: 1 });
    expect(before.data.results[0]).toMatchObject({ anchor: 'plain', level: 0 });
  });

  it('errors for mixed modes, no mode, a line past the end and an empty query', async () => {
    expect((await s.call('docs_where', { query: 'x', line: 3, doc_id: 'guide' })).data.code).toBe(
      'SOURCE_CONFLICT',
    );
    expect((await s.call('docs_where', {})).data.code).toBe('SOURCE_MISSING');
    expect((await s.call('docs_where', { line: 3 })).data.code).toBe('SOURCE_MISSING');
    expect((await s.call('docs_where', { doc_id: 'guide', line: 999 })).data.code).toBe(
      'LINE_OUT_OF_RANGE',
    );
    expect((await s.call('docs_where', { query: '???' })).data.code).toBe('EMPTY_QUERY');
    expect((await s.call('docs_where', { query: 'x', limit: 11 })).isError).toBe(true);
  });
});
