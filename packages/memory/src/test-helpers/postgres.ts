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

/**
 * Records the statements the `pg` driver sends (every pooled query goes through
 * `Client.prototype.query`), on the real server, until `restore()`: all of them in order
 * (`texts`), and each connection's in order (`byClient`).
 */
export function recordStatements() {
  const original = pg.Client.prototype.query;
  const texts: string[] = [];
  const byClient = new Map<pg.Client, string[]>();
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : String((q as { text?: string })?.text);
    texts.push(text);
    const own = byClient.get(this) ?? [];
    byClient.set(this, own);
    own.push(text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return {
    texts,
    byClient,
    /** Statements sent while `fn` ran. */
    async during<T>(fn: () => Promise<T>): Promise<{ value: T; sent: string[] }> {
      const from = texts.length;
      const value = await fn();
      return { value, sent: texts.slice(from) };
    },
    restore() {
      pg.Client.prototype.query = original;
    },
  };
}
