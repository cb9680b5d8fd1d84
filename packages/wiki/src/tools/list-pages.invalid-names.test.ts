import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectWiki, exampleCopy, removeDir } from '../test-helpers/wiki.js';

// Issue 30 #14, for the wiki: a page or folder whose name is not valid UTF-8 vanished from
// list_pages (readdir decodes it with U+FFFD, a name that finds no file). It is now reported.
let dir: string;
let wiki: Awaited<ReturnType<typeof connectWiki>>;
const at = (...parts: Array<string | number[]>) =>
  Buffer.concat([
    Buffer.from(`${dir}/`),
    ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))),
  ]);
beforeEach(async () => {
  dir = exampleCopy();
  writeFileSync(at('wiki/note', [0xfe], '.md'), '# Lost\n');
  writeFileSync(at('wiki/image', [0xfe], '.png'), 'not a page: not reported');
  writeFileSync(at('wiki/.hid', [0xfe], '.md'), '# hidden: not reported\n');
  mkdirSync(at('wiki/bad', [0xff], 'dir'));
  writeFileSync(at('wiki/bad', [0xff], 'dir/inside.md'), '# Inside\n');
  writeFileSync(at('top', [0xfe], '.md'), '# Top\n');
  wiki = await connectWiki({ wikis: [{ id: 'bees', path: dir }] });
});
afterEach(async () => {
  await wiki.close();
  removeDir(dir);
});

describe('list_pages and names that are not UTF-8 (issue 30 #14)', () => {
  it('reports each such page and folder, escaped, and lists the rest', async () => {
    const all = await wiki.call('list_pages', { wiki: 'bees', limit: 500 });
    expect(all.isError, JSON.stringify(all.data)).toBe(false);
    expect(all.data.pages.length).toBeGreaterThan(0);
    expect(all.data.pages.some((p: { path: string }) => p.path.includes('\uFFFD'))).toBe(false);
    expect(all.data.unlisted).toEqual({
      count: 3,
      names: ['top\\xfe.md', 'wiki/bad\\xffdir/', 'wiki/note\\xfe.md'],
    });
    // Within a folder, only that folder's; a glob keeps the pages it matches, and folders.
    const inWiki = await wiki.call('list_pages', { wiki: 'bees', folder: 'wiki' });
    expect(inWiki.data.unlisted.names).toEqual(['wiki/bad\\xffdir/', 'wiki/note\\xfe.md']);
    const globbed = await wiki.call('list_pages', { wiki: 'bees', glob: 'top*' });
    expect(globbed.data.unlisted.names).toEqual(['top\\xfe.md', 'wiki/bad\\xffdir/']);
  });
});
