import { jsonBytes } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_SEARCH_LIMIT, MAX_SEARCH_OUTPUT_BYTES } from './limits.js';
import { checkSearch, MAX_CITATION_TEXT_CHARS, runSearch } from './search.js';
import { createMemory } from './store.js';
import { type TempDir, tempDir } from './test-helpers/fs.js';
import type { MemoryStore } from './types.js';

// Issue 13 item 3: a full page of citations with very long heading paths would be over 5 MiB
// of JSON. Issue 29: each heading path is cut to MAX_CITATION_TEXT_CHARS with a marker, and the
// page stops before the 64 KiB budget; next_offset continues after it.
describe('memory_search result size', () => {
  const NOTES = MAX_SEARCH_LIMIT;
  // one heading of ~120 KB per note: every citation carries it in heading_path
  const heading = (i: number) => `# ${`note${i} `}${'longheadingword '.repeat(7_500)}`;
  let dir: TempDir;
  let store: MemoryStore;
  beforeAll(async () => {
    dir = tempDir();
    for (let i = 0; i < NOTES; i++) {
      dir.write(`n${String(i).padStart(2, '0')}.md`, `${heading(i)}\n\nthe needle is here ${i}\n`);
    }
    store = createMemory({ sources: [{ id: 'notes', path: dir.path }] });
    await store.reindex({});
  }, 120_000);
  afterAll(() => {
    store?.close();
    dir?.cleanup();
  });

  test('a page of long heading paths stops before the budget; next_offset reaches every hit', async () => {
    const seen = new Set<string>();
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const r = await store.search({ query: 'needle', limit: MAX_SEARCH_LIMIT, offset });
      expect(jsonBytes(r)).toBeLessThanOrEqual(MAX_SEARCH_OUTPUT_BYTES);
      expect(r.results.length).toBeGreaterThan(0);
      for (const c of r.results) {
        expect(c.heading_path.length).toBeLessThan(MAX_CITATION_TEXT_CHARS + 100);
        expect(c.heading_path).toMatch(/… \[cut: \d+ characters; read the lines for the rest\]$/);
        seen.add(c.path);
      }
      if (pages === 0) {
        expect(r.results.length).toBeLessThan(NOTES);
        expect(r.next_offset).toBe(r.results.length);
        expect(r.warnings.at(-1)).toContain(`stopped after ${r.results.length} citations`);
      }
      offset = r.next_offset;
      pages++;
      expect(pages).toBeLessThan(NOTES);
    }
    expect(seen.size).toBe(NOTES);
    expect(pages).toBeGreaterThan(1);
  }, 120_000);

  test('a citation that alone is over the budget is OUTPUT_TOO_LARGE with the offset after it', async () => {
    const internal = (store as unknown as { ctx: Parameters<typeof runSearch>[0] }).ctx;
    expect(internal).toBeDefined();
    // the budget is a parameter of runSearch, so a small one stands in for a large citation
    const checked = checkSearch(internal, { query: 'needle', limit: 10, offset: 3 });
    const err = await runSearch(internal, checked, undefined, 1_000).catch((e) => e);
    expect(err.code).toBe('OUTPUT_TOO_LARGE');
    expect(err.details).toMatchObject({ offset: 3, next_offset: 4, max_bytes: 1_000 });
    const page = await runSearch(internal, checked, undefined, 20_000);
    expect(page.results.length).toBeGreaterThan(0);
    expect(page.results.length).toBeLessThan(10);
    expect(page.next_offset).toBe(3 + page.results.length);
  }, 60_000);
});
