import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectWiki, exampleCopy, removeDir, writeFiles } from '../test-helpers/wiki.js';

let dir: string;
let wiki: Awaited<ReturnType<typeof connectWiki>>;
beforeEach(async () => {
  dir = exampleCopy();
  writeFiles(dir, {
    'wiki/notes/café.md':
      '---\ntitle: Café visits\n---\n# Café visits\n\nThe café near the apiary sells local honey.\n',
    'wiki/notes/mention.md': '# Misc\n\nOnce we saw a varroa mite on a drone.\n',
    '.obsidian/secret.md': 'varroa varroa varroa',
  });
  wiki = await connectWiki({ wikis: [{ id: 'bees', path: dir }] });
});
afterEach(async () => {
  await wiki.close();
  removeDir(dir);
});

const search = (args: Record<string, unknown>) =>
  wiki.call('search_wiki', { wiki: 'bees', ...args });
const paths = (data: { results: Array<{ path: string }> }) => data.results.map((r) => r.path);

describe('search_wiki', () => {
  it('ranks a page titled or aliased with the words above pages that only mention them', async () => {
    const { data } = await search({ query: 'varroa mite' });
    expect(data.results[0]).toMatchObject({ path: 'wiki/varroa-mite.md', title: 'Varroa mite' });
    expect(data.results[0].matched).toEqual(['title', 'aliases', 'body']);
    expect(paths(data)).toContain('wiki/notes/mention.md');
    expect(paths(data)).not.toContain('.obsidian/secret.md');
    const alias = await search({ query: 'extraction' });
    expect(alias.data.results[0].path).toBe('wiki/harvest/honey-harvest.md');
  });

  it('matches tags only with #tag, and folds case, accents and plurals', async () => {
    const tag = await search({ query: '#pest' });
    expect(paths(tag.data)).toEqual(['wiki/varroa-mite.md']);
    expect(tag.data.results[0].matched).toEqual(['tags']);
    expect(paths((await search({ query: 'CAFE' })).data)[0]).toBe('wiki/notes/café.md');
    const plural = await search({ query: 'queens' });
    expect(paths(plural.data)[0]).toBe('wiki/queen-bee.md');
  });

  it('returns a rendered snippet and a line that read_page opens at', async () => {
    const { data } = await search({ query: 'supersedure' });
    const hit = data.results.find((r: { path: string }) => r.path === 'wiki/hive-inspection.md');
    expect(hit.snippet).toBe(
      '6. Queen cells: note how many and where (see queen-bee > Supersedure and swarming).',
    );
    const page = await wiki.call('read_page', {
      wiki: 'bees',
      path: hit.path,
      offset: hit.line,
      limit: 1,
    });
    expect(page.data.content.trim()).toBe(hit.snippet);
    for (const r of data.results) expect(r.snippet).not.toContain('[[');
  });

  it('pages through hits and filters by folder', async () => {
    const all = await search({ query: 'bees', limit: 50 });
    expect(all.data.total).toBeGreaterThan(4);
    const first = await search({ query: 'bees', limit: 2 });
    const second = await search({ query: 'bees', limit: 2, offset: 2 });
    expect(first.data).toMatchObject({ next_offset: 2, has_more: true });
    expect([...paths(first.data), ...paths(second.data)]).toEqual(paths(all.data).slice(0, 4));
    const folder = await search({ query: 'honey', folder: 'wiki/notes' });
    expect(paths(folder.data)).toEqual(['wiki/notes/café.md']);
  });

  it('sees edits made outside the server', async () => {
    expect((await search({ query: 'zeppelin' })).data.total).toBe(0);
    writeFileSync(join(dir, 'wiki/swarming.md'), '# Swarming\n\nA swarm shaped like a zeppelin.\n');
    const { data } = await search({ query: 'zeppelin' });
    expect(paths(data)).toEqual(['wiki/swarming.md']);
    expect(data.results[0].line).toBe(3);
  });

  it('refuses an empty query, a bad folder and an unknown wiki', async () => {
    expect((await search({ query: '!!! ???' })).data.code).toBe('EMPTY_QUERY');
    expect((await search({ query: 'x', folder: 'nowhere' })).data.code).toBe('FOLDER_NOT_FOUND');
    expect((await wiki.call('search_wiki', { wiki: 'nope', query: 'x' })).data.code).toBe(
      'UNKNOWN_WIKI',
    );
    expect((await search({ query: '' })).isError).toBe(true);
    const many = Array.from({ length: 33 }, (_, i) => `word${i}`).join(' ');
    expect((await search({ query: many })).data.code).toBe('QUERY_TOO_LONG');
  });
});
