import { createRequire } from 'node:module';
import { ToolError } from '@lectern/core';
import type Database from 'better-sqlite3';

/** The package that holds the native SQLite module the embedded index runs on. */
export const SQLITE_MODULE = 'better-sqlite3';

const require = createRequire(import.meta.url);
let loaded: typeof Database | undefined;

function missing(cause: unknown): ToolError {
  const code = (cause as { code?: unknown } | null)?.code;
  const notInstalled = code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
  const why = notInstalled
    ? 'is not installed'
    : `could not be loaded (${(cause as Error)?.message ?? String(cause)})`;
  return new ToolError(
    'SQLITE_UNAVAILABLE',
    `the memory index needs the native SQLite module ${SQLITE_MODULE}, which ${why}. Install it beside @lectern/memory (npm install ${SQLITE_MODULE}; it builds from source where no prebuilt binary fits), or serve memory from another backend.`,
    { details: { module: SQLITE_MODULE }, cause },
  );
}

/**
 * True when the native module can be found, without loading it (a cheap check at set-up, so a
 * missing module is reported before anything is served).
 */
export function sqliteInstalled(): boolean {
  try {
    require.resolve(SQLITE_MODULE);
    return true;
  } catch {
    return false;
  }
}

/** Throws `SQLITE_UNAVAILABLE` naming the module when it cannot be found. */
export function assertSqliteInstalled(): void {
  if (!sqliteInstalled()) {
    const error = new Error(`Cannot find module '${SQLITE_MODULE}'`);
    (error as Error & { code: string }).code = 'MODULE_NOT_FOUND';
    throw missing(error);
  }
}

/**
 * The better-sqlite3 constructor, loaded on first use: importing `@lectern/memory` never loads
 * the native module, only opening a SQLite index does. Throws `SQLITE_UNAVAILABLE` (naming the
 * module and how to install it) when it is missing or fails to load.
 */
export function sqlite(): typeof Database {
  if (loaded) return loaded;
  try {
    loaded = require(SQLITE_MODULE) as typeof Database;
  } catch (cause) {
    throw missing(cause);
  }
  return loaded;
}
