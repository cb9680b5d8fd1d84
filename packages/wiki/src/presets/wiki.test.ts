import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWiki, EXAMPLE_WIKI } from '../test-helpers/wiki.js';
import { wikiPresetTools } from './wiki.js';

type Session = Awaited<ReturnType<typeof connectWiki>>;
let preset: Session;
let native: Session;
beforeAll(async () => {
  const options = { wikis: [{ id: 'bees', path: EXAMPLE_WIKI }] };
  preset = await connectWiki(options, wikiPresetTools);
  native = await connectWiki(options);
});
afterAll(async () => {
  await preset.close();
  await native.close();
});

describe('wiki preset', () => {
  it('serves the seed names with truncated where the native tools say has_more', async () => {
    const listed = (await preset.client.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual([
      'list_wikis',
      'list_pages',
      'search_wiki',
      'read_page',
      'write_batch',
    ]);
    for (const name of ['list_pages', 'search_wiki', 'read_page']) {
      const props = Object.keys(listed.find((t) => t.name === name)!.outputSchema!.properties!);
      expect(props, name).toContain('truncated');
      expect(props, name).not.toContain('has_more');
    }
    const nativeListed = (await native.client.listTools()).tools;
    for (const name of ['list_pages', 'search_wiki', 'read_page']) {
      const props = Object.keys(
        nativeListed.find((t) => t.name === name)!.outputSchema!.properties!,
      );
      expect(props, name).toContain('has_more');
      expect(props, name).not.toContain('truncated');
    }
    const read = listed.find((t) => t.name === 'read_page')!;
    expect(read.description).toContain('when truncated is true, follow next_offset');
    const nativeRead = nativeListed.find((t) => t.name === 'read_page')!;
    expect(nativeRead.description).toContain('When has_more is true, follow next_offset');
  });

  it('answers with the same values as the native tools, truncated standing for has_more', async () => {
    const args = { wiki: 'bees', path: 'index.md', offset: 1, limit: 2 };
    const p = await preset.call('read_page', args);
    const n = await native.call('read_page', args);
    expect(p.isError).toBe(false);
    // the native read also says where to read on inside a cut line, which the seed cannot
    const { has_more, next_start_char, ...rest } = n.data as Record<string, unknown>;
    expect(next_start_char).toBeNull();
    expect(p.data).toEqual({ ...rest, truncated: has_more });
    expect(p.data.truncated).toBe(true);
    const pages = await preset.call('list_pages', { wiki: 'bees', limit: 1 });
    expect(pages.data).toMatchObject({ truncated: true, next_offset: 1 });
    const hits = await preset.call('search_wiki', { wiki: 'bees', query: 'bee', limit: 1 });
    expect(hits.data).toMatchObject({ truncated: true, next_offset: 1 });
    const missing = await preset.call('read_page', { wiki: 'bees', path: 'nope.md' });
    expect(missing.isError).toBe(true);
    expect(missing.data.code).toBe(
      (await native.call('read_page', { wiki: 'bees', path: 'nope.md' })).data.code,
    );
  });
});
