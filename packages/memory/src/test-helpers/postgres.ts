import { randomBytes } from 'node:crypto';
import pg from 'pg';

export { postgresForTests } from '../../../../scripts/postgres-for-tests.mjs';

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
