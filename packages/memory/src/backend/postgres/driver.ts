import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ConnectionOptions } from 'node:tls';
import { ToolError } from '@lectern/core';
import type * as Pg from 'pg';

/** True for a `postgres://` or `postgresql://` connection URL. */
export function isPostgresUrl(value: unknown): value is string {
  return typeof value === 'string' && /^postgres(?:ql)?:\/\//i.test(value.trim());
}

/** TLS settings passed through to the driver (file paths are read once, when the store opens). */
export interface PostgresTlsOptions {
  /** PEM file of the certificate authority that signed the server's certificate. */
  ca?: string;
  /** PEM file of a client certificate (with `key`). */
  cert?: string;
  /** PEM file of the client certificate's private key. */
  key?: string;
  /** Refuse a server whose certificate does not verify (default true). */
  rejectUnauthorized?: boolean;
  /** Server name to verify the certificate against, when it differs from the host. */
  servername?: string;
}

/** How to reach the database: everything but the URL is optional. */
export interface PostgresConnectionOptions {
  /** `postgres://user@host:port/database`; the usual `PG*` variables fill in what it leaves out. */
  url: string;
  /** Name of an environment variable holding the password (else `PGPASSWORD`, else `~/.pgpass`). */
  passwordEnv?: string;
  /** TLS options; `true` for TLS with default verification. A URL `sslmode` also turns TLS on. */
  tls?: boolean | PostgresTlsOptions;
  /** Most connections the store opens (default 4). */
  poolSize?: number;
}

let driver: typeof Pg | undefined;

/** Options of `postgresBackend`. */
export interface PostgresBackendOptions extends PostgresConnectionOptions {
  /**
   * Schema holding the index (default `lectern`, or the URL's `?schema=` parameter); several
   * indexes can share one database in different schemas. Created when missing.
   */
  schema?: string;
  /**
   * Name of this machine among those sharing the database (default the host name). With the
   * folder of each source it tells apart what each machine saw on its own disk.
   */
  machine?: string;
  /**
   * Time a raw (`tsquery`) search may run on the server, in ms (default 2000, as on SQLite):
   * its statements run with this `statement_timeout`, and a search stopped by it fails with
   * `QUERY_TOO_SLOW`, so one expression cannot hold a connection and the server's CPU.
   */
  rawBudgetMs?: number;
}

/**
 * The `pg` driver, loaded on first use: it is an optional peer dependency, needed only when a
 * PostgreSQL URL is configured. A missing driver is a clear `DB_DRIVER_MISSING` error.
 */
export function loadDriver(): typeof Pg {
  driver ??= loadDriverWith(createRequire(import.meta.url));
  return driver;
}

/** @internal {@link loadDriver} with a given `require` (tests pass one that finds nothing). */
export function loadDriverWith(load: (id: string) => unknown): typeof Pg {
  try {
    return load('pg') as typeof Pg;
  } catch (cause) {
    if ((cause as { code?: string }).code !== 'MODULE_NOT_FOUND') throw cause;
    throw new ToolError(
      'DB_DRIVER_MISSING',
      'a PostgreSQL memory database needs the `pg` package, which is not installed: add it next to @lectern/memory (npm install pg, or pnpm add pg), or use a SQLite file instead of a postgres:// URL.',
      { cause },
    );
  }
}

/** The URL with its password replaced by `***` (and no password query parameter): safe to show. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) {
      if (/pass|secret|key/i.test(k)) u.searchParams.set(k, '***');
    }
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Splits Lectern's own URL parameter (`schema`) from the ones the driver understands. */
export function splitUrl(url: string): { url: string; schema: string | undefined } {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new ToolError(
      'INVALID_OPTIONS',
      `the PostgreSQL URL ${redactUrl(url)} is not a valid URL; use postgres://user@host:5432/database.`,
    );
  }
  const schema = u.searchParams.get('schema') ?? undefined;
  u.searchParams.delete('schema');
  return { url: u.toString(), schema };
}

function readPem(what: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    throw new ToolError(
      'INVALID_OPTIONS',
      `cannot read the TLS ${what} file ${path}: ${(cause as Error).message}.`,
      { cause },
    );
  }
}

/** The least `work_mem` a search connection runs with (see {@link RAISE_WORK_MEM}). */
export const SEARCH_WORK_MEM_BYTES = 16 * 1024 * 1024;

/**
 * Sent once on each new connection: raises the session's `work_mem` to
 * {@link SEARCH_WORK_MEM_BYTES} when the server's setting is lower (PostgreSQL's default is
 * 4 MB), never lowers it. A search carries up to MAX_RANKED_CHUNKS chunk vectors (about 1.5 kB
 * each) through its ranking steps; at 4 MB those spill to temporary files (on the bench's
 * 10,000 notes: query p95 75 → 64 ms).
 */
export const RAISE_WORK_MEM = `SELECT CASE WHEN pg_size_bytes(current_setting('work_mem')) < ${SEARCH_WORK_MEM_BYTES} THEN set_config('work_mem', '${SEARCH_WORK_MEM_BYTES / 1024 / 1024}MB', false) END`;

/** The driver's pool configuration: URL, password source, TLS, pool size. */
export function poolConfig(options: PostgresConnectionOptions, url: string): Pg.PoolConfig {
  const config: Pg.PoolConfig = {
    connectionString: url,
    max: options.poolSize ?? 4,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 15_000,
    application_name: 'lectern-memory',
  };
  if (options.passwordEnv !== undefined) {
    const password = process.env[options.passwordEnv];
    if (password === undefined) {
      throw new ToolError(
        'INVALID_OPTIONS',
        `the PostgreSQL password variable ${options.passwordEnv} is not set; export it, or leave passwordEnv out to use PGPASSWORD or ~/.pgpass.`,
      );
    }
    config.password = password;
  }
  if (options.tls !== undefined && options.tls !== false) {
    const t = options.tls === true ? {} : options.tls;
    const ssl: ConnectionOptions = {};
    if (t.ca !== undefined) ssl.ca = readPem('ca', t.ca);
    if (t.cert !== undefined) ssl.cert = readPem('cert', t.cert);
    if (t.key !== undefined) ssl.key = readPem('key', t.key);
    if (t.rejectUnauthorized !== undefined) ssl.rejectUnauthorized = t.rejectUnauthorized;
    if (t.servername !== undefined) ssl.servername = t.servername;
    // The driver lets a URL's sslmode replace these options: TLS settings given here win.
    const u = new URL(url);
    for (const k of ['sslmode', 'sslcert', 'sslkey', 'sslrootcert']) u.searchParams.delete(k);
    config.connectionString = u.toString();
    config.ssl = ssl;
  }
  return config;
}

/** Sends one statement (on the pool, or on a client inside a transaction). */
export type Run = (query: Pg.QueryConfig) => Promise<Pg.QueryResult>;
