import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeEach } from 'vitest';
import type { MemoryStore } from '../types.js';
import { type TempDir, tempDir } from './fs.js';

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
 * A test file's schemas ({@link testSchemas}) and a one-connection pool to read them with,
 * both closed after the file's tests.
 */
export function testDatabase(url: string): {
  schemas: ReturnType<typeof testSchemas>;
  admin: pg.Pool;
} {
  const schemas = testSchemas(url);
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  afterAll(async () => {
    await schemas.close();
    await admin.end();
  });
  return { schemas, admin };
}

/**
 * Per test of the calling `describe`: fresh schema names, a temporary folder (`dir`) and the
 * stores it opens (`stores`), closed, dropped and removed after the test.
 */
export function testStores(schemas: ReturnType<typeof testSchemas>): {
  readonly dir: TempDir;
  stores: MemoryStore[];
} {
  let dir: TempDir | undefined;
  const stores: MemoryStore[] = [];
  beforeEach(() => {
    schemas.next();
    dir = tempDir();
    stores.length = 0;
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
    await schemas.dropAll();
    dir?.cleanup();
  });
  return {
    get dir() {
      if (!dir) throw new Error('testStores: no test is running');
      return dir;
    },
    stores,
  };
}

/**
 * Records the statements the `pg` driver sends (every pooled query goes through
 * `Client.prototype.query`), on the real server, until `restore()`: all of them in order
 * (`texts`), each connection's in order (`byClient`), and the rows each one returned
 * (`rows`, parallel to `texts`; undefined until it answers, or when it failed).
 */
export function recordStatements() {
  const original = pg.Client.prototype.query;
  const texts: string[] = [];
  const rows: Array<number | undefined> = [];
  const byClient = new Map<pg.Client, string[]>();
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : String((q as { text?: string })?.text);
    const at = texts.push(text) - 1;
    rows.push(undefined);
    const own = byClient.get(this) ?? [];
    byClient.set(this, own);
    own.push(text);
    const seen = (r: unknown) => {
      const n = (r as { rows?: unknown[] } | undefined)?.rows?.length;
      if (typeof n === 'number') rows[at] = n;
    };
    // The pool passes a callback; a direct call gets a promise back.
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const done = args[last] as (err: unknown, r: unknown) => void;
      args[last] = (err: unknown, r: unknown) => {
        if (!err) seen(r);
        done(err, r);
      };
    }
    const out = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (out && typeof (out as Promise<unknown>).then === 'function') {
      (out as Promise<unknown>).then(seen, () => {});
    }
    return out;
  } as typeof original;
  return {
    texts,
    rows,
    byClient,
    /** Statements sent while `fn` ran, and the rows each returned. */
    async during<T>(
      fn: () => Promise<T>,
    ): Promise<{ value: T; sent: string[]; rows: Array<number | undefined> }> {
      const from = texts.length;
      const value = await fn();
      return { value, sent: texts.slice(from), rows: rows.slice(from) };
    },
    restore() {
      pg.Client.prototype.query = original;
    },
  };
}
