import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMemory } from './store.js';
import { type TempDir, tempDir } from './test-helpers/fs.js';
import { postgresForTests, testSchemas } from './test-helpers/postgres.js';
import type { MemoryStore } from './types.js';

const notes = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'notes');

// The same bundled notes, indexed into a SQLite file and into PostgreSQL: same answers.
const targets: Array<{
  name: string;
  dbPath: (tmp: TempDir) => string;
  done?: () => Promise<void>;
}> = [
  // The database goes to a temp folder so the test never writes into the repository.
  { name: 'SQLite', dbPath: (tmp) => join(tmp.path, 'm.db') },
];
const url = postgresForTests('the bundled example notes on PostgreSQL');
if (url) {
  const schemas = testSchemas(url);
  targets.push({
    name: 'PostgreSQL',
    dbPath: () => {
      const u = new URL(url);
      u.searchParams.set('schema', schemas.schema('examples'));
      return u.toString();
    },
    done: () => schemas.close(),
  });
}

describe.each(targets)('example notes on $name', (target) => {
  let tmp: TempDir;
  let store: MemoryStore;

  beforeAll(() => {
    tmp = tempDir();
    store = createMemory({ sources: [{ id: 'notes', path: notes }], dbPath: target.dbPath(tmp) });
  });
  afterAll(async () => {
    await store.close();
    await target.done?.();
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
});
