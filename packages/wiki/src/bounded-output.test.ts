import { bySize } from '@lectern/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWiki, removeDir, tempDir, writeFiles } from './test-helpers/wiki.js';

// Issue 13 item 3: no response passes the byte budget; what does not fit comes on a later page.
const BUDGET = 16 * 1024;
const PAGES = bySize(120, 600);
const longTitle = (i: number) => `Bees ${i} ${'t'.repeat(400)}`;

let dir: string;
let s: Awaited<ReturnType<typeof connectWiki>>;
beforeAll(async () => {
  dir = tempDir();
  const files: Record<string, string> = {
    'index.md': '# Index\n',
    'quotes.md': `# Quotes\n${'"\\\u0001 bees\n'.repeat(4000)}`,
  };
  for (let i = 0; i < PAGES; i++) files[`p/page-${i}.md`] = `# ${longTitle(i)}\n\nbees and honey\n`;
  writeFiles(dir, files);
  s = await connectWiki({ wikis: [{ id: 'w', path: dir }], maxOutputBytes: BUDGET });
});
afterAll(async () => {
  await s.close();
  removeDir(dir);
});

const size = (data: unknown) => Buffer.byteLength(JSON.stringify(data), 'utf8');

describe('wiki responses stay within the byte budget', () => {
  it('list_pages stops at the budget and continues with next_offset', async () => {
    const paths: string[] = [];
    let offset: number | null = 0;
    let calls = 0;
    while (offset !== null) {
      const r = await s.call('list_pages', { wiki: 'w', folder: 'p', limit: 500, offset });
      expect(r.isError).toBe(false);
      expect(size(r.data)).toBeLessThanOrEqual(BUDGET);
      paths.push(...r.data.pages.map((p: { path: string }) => p.path));
      expect(r.data.has_more).toBe(r.data.next_offset !== null);
      offset = r.data.next_offset;
      calls++;
    }
    expect(calls).toBeGreaterThan(2);
    expect(new Set(paths).size).toBe(PAGES);
  });

  it('search_wiki stops at the budget and continues with next_offset', async () => {
    const r = await s.call('search_wiki', { wiki: 'w', query: 'bees', limit: 50 });
    expect(r.isError).toBe(false);
    expect(size(r.data)).toBeLessThanOrEqual(BUDGET);
    expect(r.data.results.length).toBeLessThan(50);
    expect(r.data.has_more).toBe(true);
    expect(r.data.next_offset).toBe(r.data.results.length);
  });

  it('read_page stops at a whole line before the budget; next_offset reads on', async () => {
    let text = '';
    let offset: number | null = 1;
    let calls = 0;
    while (offset !== null) {
      const r = await s.call('read_page', { wiki: 'w', path: 'quotes.md', raw: true, offset });
      expect(r.isError).toBe(false);
      expect(size(r.data)).toBeLessThanOrEqual(BUDGET);
      text += r.data.content;
      expect(r.data.has_more).toBe(r.data.next_offset !== null);
      offset = r.data.next_offset;
      calls++;
    }
    expect(calls).toBeGreaterThan(2);
    expect(text).toBe(`# Quotes\n${'"\\\u0001 bees\n'.repeat(4000)}`);
  });
});
