import { isToolError } from '@lectern/core';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { RAW_LIMITS } from '../../lib/raw-guard.js';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import { postgresForTests, testSchemas } from '../../test-helpers/postgres.js';
import type { MemoryStore } from '../../types.js';
import { postgresBackend } from './backend.js';

// Issue 30 #6 asked SQLite to stop a raw query past a time budget; the same holds on
// PostgreSQL, where a raw tsquery runs under `statement_timeout` (and bad syntax names
// PostgreSQL's query language, never FTS5).
const url = postgresForTests('raw query bounds on PostgreSQL');

if (url) {
  const schemas = testSchemas(url);
  afterAll(() => schemas.close());

  describe('raw queries on PostgreSQL (issue 30 #6)', () => {
    let dir: TempDir;
    let stores: MemoryStore[];
    let admin: pg.Pool;
    beforeEach(() => {
      schemas.next();
      dir = tempDir();
      stores = [];
      admin = new pg.Pool({ connectionString: url, max: 2 });
    });
    afterEach(async () => {
      for (const s of stores) await s.close();
      await admin.end();
      await schemas.dropAll();
      dir.cleanup();
    });

    function open(rawBudgetMs?: number): { store: MemoryStore; schema: string } {
      const schema = schemas.schema('main');
      const store = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        backend: postgresBackend({
          url: url!,
          schema,
          poolSize: 2,
          ...(rawBudgetMs !== undefined ? { rawBudgetMs } : {}),
        }),
      });
      stores.push(store);
      return { store, schema };
    }

    test('a raw search past its time budget is stopped with QUERY_TOO_SLOW; the pool stays usable', async () => {
      dir.write('a.md', '# Alpha\n\nalpine alps alpaca\n');
      const { store, schema } = open(300);
      await store.reindex();
      // Another session holds the chunks table: the raw search waits on it, as a costly
      // expression would run on, until its statement_timeout stops it.
      const locker = await admin.connect();
      let outcome: unknown;
      try {
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE "${schema}".chunks IN ACCESS EXCLUSIVE MODE`);
        // Settles while the lock is still held (never waits for it); 60 s is only a ceiling
        // that turns a stall into a failure.
        outcome = await Promise.race([
          store.search({ query: 'alp:*', raw: true }).then(
            () => 'answered',
            (e: unknown) => e,
          ),
          new Promise((resolve) => setTimeout(() => resolve('stalled'), 60_000)),
        ]);
      } finally {
        await locker.query('ROLLBACK');
        locker.release();
      }
      expect(isToolError(outcome) && outcome.code, String(outcome)).toBe('QUERY_TOO_SLOW');
      expect((outcome as { details?: unknown }).details).toMatchObject({ budget_ms: 300 });
      expect((outcome as Error).message).toMatch(/300 ms time budget/);
      // The budget was the transaction's own: the next searches, raw and plain, answer.
      expect((await store.search({ query: 'alp:*', raw: true })).results).toHaveLength(1);
      expect((await store.search({ query: 'alpaca' })).results).toHaveLength(1);
    }, 120_000);

    test('bad raw syntax names PostgreSQL tsquery, never FTS5', async () => {
      dir.write('a.md', 'alpha\n');
      const { store } = open();
      await store.reindex();
      for (const bad of ['&(', 'alpha &', '!']) {
        const error = await store.search({ query: bad, raw: true }).catch((e: unknown) => e);
        expect(isToolError(error) && error.code, bad).toBe('INVALID_QUERY');
        expect((error as Error).message).toContain('not valid PostgreSQL tsquery syntax');
        expect((error as Error).message).not.toMatch(/FTS5/);
        expect((error as { details?: unknown }).details).toMatchObject({
          syntax: 'PostgreSQL tsquery',
        });
      }
    });

    test('raw syntax is bounded before it runs: too many prefix terms is QUERY_TOO_COMPLEX', async () => {
      dir.write('a.md', 'alpha\n');
      const { store } = open();
      await store.reindex();
      const many = Array.from({ length: RAW_LIMITS.maxPrefixTerms + 1 }, (_, i) => `a${i}:*`);
      const error = await store.search({ query: many.join(' | '), raw: true }).catch((e) => e);
      expect(isToolError(error) && error.code).toBe('QUERY_TOO_COMPLEX');
      expect((error as { details?: unknown }).details).toMatchObject({ limit: 'maxPrefixTerms' });
      const ok = many.slice(0, RAW_LIMITS.maxPrefixTerms).join(' | ');
      await expect(store.search({ query: ok, raw: true })).resolves.toHaveProperty('results');
    });

    test('rawBudgetMs must be a positive whole number', () => {
      for (const rawBudgetMs of [0, -5, 1.5]) {
        let error: unknown;
        try {
          createMemory({
            sources: [{ id: 'notes', path: dir.path }],
            backend: postgresBackend({ url: url!, schema: schemas.schema('bad'), rawBudgetMs }),
          });
        } catch (e) {
          error = e;
        }
        expect(isToolError(error) && error.code, String(rawBudgetMs)).toBe('INVALID_OPTIONS');
      }
    });
  });
}
