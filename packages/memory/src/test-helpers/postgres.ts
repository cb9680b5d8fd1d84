import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { expect, inject, test } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL the suites use, or why there is none (see scripts/vitest-postgres.mjs). */
    lecternPg: { url: string | null; reason: string | null; ci: boolean };
  }
}

/**
 * The PostgreSQL of this test run: its URL, or undefined after registering one test that says
 * why the PostgreSQL tests did not run (and fails under CI, where they must run).
 */
export function postgresForTests(what: string): string | undefined {
  const provided = inject('lecternPg');
  if (provided.url) return provided.url;
  const reason = provided.reason ?? 'no PostgreSQL was provided';
  test(`NOT RUN: ${what} (no PostgreSQL: ${reason})`, () => {
    console.warn(`[lectern] ${what} did not run: ${reason}`);
    // Under CI the global setup already fails the run; this keeps the rule visible here too.
    expect(provided.ci, 'under CI the PostgreSQL tests must run').toBe(false);
  });
  return undefined;
}

/**
 * Schemas for one test file in the shared database: `schema(name)` gives a fresh schema name
 * for the current test (created by the store on first use), `dropAll()` removes every schema
 * handed out so far.
 */
export function testSchemas(url: string) {
  const prefix = `t${randomBytes(4).toString('hex')}`;
  let test = 0;
  const made = new Set<string>();
  let admin: pg.Pool | undefined;
  return {
    /** Starts a new test: later names are fresh. */
    next(): void {
      test++;
    },
    schema(name = 'main'): string {
      const schema = `${prefix}_${test}_${name}`;
      made.add(schema);
      return schema;
    },
    async dropAll(): Promise<void> {
      if (made.size === 0) return;
      admin ??= new pg.Pool({ connectionString: url, max: 1 });
      for (const s of made) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      made.clear();
    },
    async close(): Promise<void> {
      await this.dropAll();
      await admin?.end();
      admin = undefined;
    },
  };
}
