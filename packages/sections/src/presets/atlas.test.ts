import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsFixture } from '../test-helpers/fixture.js';
import { session } from '../test-helpers/mcp.js';
import { atlasTools } from './atlas.js';

let fx: ReturnType<typeof docsFixture>;
let s: Awaited<ReturnType<typeof session>>;
// biome-ignore lint/suspicious/noExplicitAny: JSON schema from tools/list
let listed: any[];
beforeAll(async () => {
  fx = docsFixture();
  s = await session(atlasTools({ roots: [{ id: 'docs', path: fx.dir }] }));
  listed = (await s.client.listTools()).tools;
});
afterAll(async () => {
  await s.close();
  fx.cleanup();
});
const tool = (name: string) => listed.find((t) => t.name === name);

describe('atlas preset surface', () => {
  it('has the four seed tool names, read-only and closed-world', () => {
    expect(listed.map((t) => t.name)).toEqual([
      'atlas_read',
      'atlas_where',
      'atlas_search',
      'atlas_outline',
    ]);
    for (const t of listed) {
      expect(t.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(t.description.length).toBeGreaterThan(200);
    }
  });

  it('atlas_read takes anchor, offset and max_chars with the seed defaults and limits', () => {
    const schema = tool('atlas_read').inputSchema;
    expect(Object.keys(schema.properties).sort()).toEqual(['anchor', 'max_chars', 'offset']);
    expect(schema.required).toEqual(['anchor']);
    expect(schema.properties.anchor.minLength).toBe(1);
    expect(schema.properties.offset).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
    expect(schema.properties.max_chars).toMatchObject({
      type: 'integer',
      minimum: 100,
      maximum: 50000,
      default: 3000,
    });
    // the seed's output schema: one required string, the JSON of the answer
    expect(tool('atlas_read').outputSchema).toMatchObject({
      type: 'object',
      properties: { result: { type: 'string' } },
      required: ['result'],
    });
    expect(Object.keys(tool('atlas_read').outputSchema.properties)).toEqual(['result']);
  });

  it('the other tools take the designed parameters', () => {
    const props = (n: string) => Object.keys(tool(n).inputSchema.properties).sort();
    expect(props('atlas_where')).toEqual(['limit', 'query']);
    expect(props('atlas_search')).toEqual(['limit', 'offset', 'query']);
    expect(props('atlas_outline')).toEqual(['depth', 'doc_id', 'offset']);
    expect(tool('atlas_where').inputSchema.properties.limit).toMatchObject({
      default: 3,
      minimum: 1,
      maximum: 10,
    });
    expect(tool('atlas_search').inputSchema.properties.limit).toMatchObject({
      default: 10,
      minimum: 1,
      maximum: 50,
    });
    expect(tool('atlas_outline').inputSchema.properties.depth).toMatchObject({
      minimum: 1,
      maximum: 6,
    });
  });
});

describe('atlas preset calls', () => {
  it('atlas_read returns the seed shape and rejects max_chars 99 and 50001', async () => {
    const r = await s.call('atlas_read', { anchor: 'guide#macos' });
    expect(r.isError).toBe(false);
    // structuredContent.result is the JSON, and the text block is the same JSON
    expect(Object.keys(r.data)).toEqual(['result']);
    expect(r.text).toBe(r.data.result);
    expect(JSON.parse(r.data.result)).toEqual({
      anchor: 'guide#macos',
      heading: 'macOS',
      path: 'guide.md',
      lines: { start: 17, end: 19 },
      content: '### macOS\n\nUse brew.',
      truncated: false,
      next_offset: null,
    });
    for (const max_chars of [99, 50001]) {
      expect((await s.call('atlas_read', { anchor: 'guide', max_chars })).isError).toBe(true);
    }
    expect((await s.call('atlas_read', { anchor: 'guide', offset: -1 })).isError).toBe(true);
    const page = await s.call('atlas_read', { anchor: 'wide', max_chars: 100 });
    expect(JSON.parse(page.data.result)).toMatchObject({ truncated: true, next_offset: 100 });
  });

  it('atlas_read suggests the closest anchors for an unknown one, in result', async () => {
    const r = await s.call('atlas_read', { anchor: 'guide#instal' });
    expect(r.isError).toBe(true);
    const error = JSON.parse(r.data.result);
    expect(error).toMatchObject({ code: 'ANCHOR_NOT_FOUND' });
    expect(error.suggestions[0]).toBe('guide#install');
    expect(JSON.parse(r.text)).toEqual(error);
  });

  it('atlas_where, atlas_search and atlas_outline answer', async () => {
    const where = await s.call('atlas_where', { query: 'rotate tokens' });
    expect(where.data.results[0]).toMatchObject({
      anchor: 'ref/api#tokens',
      path: 'ref/api.md',
      lines: { start: 7 },
    });
    const search = await s.call('atlas_search', { query: 'brew' });
    expect(search.data).toMatchObject({ total: 1, next_offset: null });
    expect(search.data.results[0]).toMatchObject({ anchor: 'guide#macos', snippet: 'Use brew.' });
    const outline = await s.call('atlas_outline', { doc_id: 'crlf' });
    expect(outline.data.documents[0].sections).toEqual([
      {
        anchor: 'crlf#windows',
        heading: 'Windows',
        level: 1,
        lines: { start: 1, end: 7 },
        chars: 46,
      },
      { anchor: 'crlf#part', heading: 'Part', level: 2, lines: { start: 5, end: 7 }, chars: 20 },
    ]);
    const all = await s.call('atlas_outline', {});
    expect(all.data.total_documents).toBe(8);
  });
});
