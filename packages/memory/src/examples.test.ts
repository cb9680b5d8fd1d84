import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMemory } from './store.js';
import { type TempDir, tempDir } from './test-helpers/fs.js';
import type { MemoryStore } from './types.js';

const notes = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'notes');
let tmp: TempDir;
let store: MemoryStore;

beforeAll(() => {
  tmp = tempDir();
  // The database goes to a temp folder so the test never writes into the repository.
  store = createMemory({ sources: [{ id: 'notes', path: notes }], dbPath: join(tmp.path, 'm.db') });
});
afterAll(() => {
  store.close();
  tmp.cleanup();
});

test('the bundled example notes index cleanly and answer questions with citations', async () => {
  const r = await store.reindex();
  expect(r.errors).toEqual([]);
  expect(r.files).toBeGreaterThanOrEqual(6);
  expect(r.files).toBeLessThanOrEqual(10);
  expect(existsSync(join(notes, '.lectern'))).toBe(false);

  const limits = await store.search({ query: 'vendor rate limit' });
  expect(limits.results.map((c) => c.path)).toContain('notes/meetings/2024-03-12-vendor-sync.md');

  // Spanish, accents optional.
  const cafe = await store.search({ query: 'cafe de olla' });
  expect(cafe.results[0]!.path).toBe('notes/viajes/oaxaca-2023.md');
  const cite = cafe.results[0]!;
  const frag = await store.readFragment({
    path: cite.path,
    startLine: cite.start_line,
    endLine: cite.end_line,
  });
  expect(frag.content).toContain('piloncillo');

  // Plain text is indexed too.
  const journal = await store.search({ query: '"gift_wrap"' });
  expect(journal.results.map((c) => c.path)).toContain('notes/journal/2024-03.txt');
});
