import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from './package.js';
import { session, tempTree } from './test-helpers/mcp.js';

// Issue 13 item 3: docs_search and docs_where keep to the byte budget of one response. With
// long headings (and quotes, which JSON doubles) a full page is many times the budget.
const BUDGET = 16 * 1024;
const DOCS = 50;
const longDocs = Object.fromEntries(
  Array.from({ length: DOCS }, (_, i) => [
    `long/doc-${String(i).padStart(2, '0')}.md`,
    `# Needle ${i} ${'"quoted" '.repeat(150)}\n\n## Section needle ${i} ${'longword '.repeat(150)}\n\nneedle body ${i}\n`,
  ]),
);

let tree: ReturnType<typeof tempTree>;
let s: Awaited<ReturnType<typeof session>>;
beforeAll(async () => {
  tree = tempTree({
    ...longDocs,
    'giant.md': `# Giant ${'g'.repeat(20_000)}\n\ngiantword here\n`,
  });
  s = await session(
    sectionTools({ roots: [{ id: 'docs', path: tree.dir }], maxOutputBytes: BUDGET }),
  );
});
afterAll(async () => {
  await s.close();
  tree.cleanup();
});

const bytes = (r: { text: string }) => Buffer.byteLength(r.text, 'utf8');

describe('docs_search and docs_where stay within the byte budget', () => {
  it('docs_search stops a page before the budget; next_offset reaches every hit once', async () => {
    const anchors: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    let total = 0;
    while (offset !== null) {
      const r = await s.call('docs_search', { query: 'needle', limit: 50, offset });
      expect(r.isError, r.text).toBe(false);
      expect(bytes(r)).toBeLessThanOrEqual(BUDGET);
      expect(r.data.results.length).toBeGreaterThan(0);
      expect(r.data.offset).toBe(offset);
      anchors.push(...r.data.results.map((x: { anchor: string }) => x.anchor));
      total = r.data.total;
      offset = r.data.next_offset;
      if (offset !== null) expect(offset).toBe(anchors.length);
      pages++;
      expect(pages).toBeLessThan(200);
    }
    // each document has two matching sections (its title and its subsection)
    expect(total).toBe(DOCS * 2);
    expect(new Set(anchors).size).toBe(total);
    expect(pages).toBeGreaterThan(4);
  }, 120_000);

  // Issue 29: one section over the budget (a 20,000-character heading) is answered cut, with a
  // marker naming the docs_read call that reads the heading whole, not refused.
  const MARK =
    / … \[cut: (\d+) of 20006 characters; docs_read "giant" from offset 0 reads it whole\]$/;

  it('docs_search answers one result over the budget cut, saying how to read it whole', async () => {
    const r = await s.call('docs_search', { query: 'giantword' });
    expect(r.isError, r.text.slice(0, 300)).toBe(false);
    expect(bytes(r)).toBeLessThanOrEqual(BUDGET);
    expect(r.data.results[0].heading).toMatch(MARK);
    expect(r.data.results[0].heading.startsWith(`Giant ${'g'.repeat(1000)}`)).toBe(true);
    const whole = await s.call('docs_read', { anchor: 'giant', max_chars: 50_000 });
    expect(whole.data.content.split('\n')[0]).toBe(`# Giant ${'g'.repeat(20_000)}`);
    const after = await s.call('docs_search', { query: 'giantword', offset: 1 });
    expect(after.isError, after.text).toBe(false);
    expect(after.data.next_offset).toBeNull();
  });

  it('docs_where names the limit that fits instead of passing the budget', async () => {
    const r = await s.call('docs_where', { query: 'needle', limit: 10 });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('OUTPUT_TOO_LARGE');
    const fits = r.data.details.fits as number;
    expect(fits).toBeGreaterThan(0);
    expect(fits).toBeLessThan(10);
    expect(r.data.error).toContain(`limit ${fits}`);
    const ok = await s.call('docs_where', { query: 'needle', limit: fits });
    expect(ok.isError, ok.text).toBe(false);
    expect(bytes(ok)).toBeLessThanOrEqual(BUDGET);
    expect(ok.data.results).toHaveLength(fits);
  });

  it('docs_where answers a section that alone is over the budget cut, in both modes', async () => {
    const topic = await s.call('docs_where', { query: 'giant' });
    expect(topic.isError, topic.text.slice(0, 300)).toBe(false);
    expect(bytes(topic)).toBeLessThanOrEqual(BUDGET);
    expect(topic.data.results[0].heading).toMatch(MARK);
    const line = await s.call('docs_where', { path: 'giant.md', line: 3 });
    expect(line.isError, line.text.slice(0, 300)).toBe(false);
    expect(bytes(line)).toBeLessThanOrEqual(BUDGET);
    expect(line.data.results[0].heading).toMatch(MARK);
    expect(line.data.results[0].heading_path[0]).toMatch(MARK);
    const small = await s.call('docs_where', { path: 'long/doc-00.md', line: 5 });
    expect(small.isError, small.text).toBe(false);
    expect(small.data.results[0].level).toBe(2);
  });
});
