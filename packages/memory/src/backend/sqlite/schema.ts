import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { STATE_DIR_NAME, ToolError } from '@lectern/core';
import type Database from 'better-sqlite3';
import { sqlite } from './native.js';

/** A better-sqlite3 connection. */
export type Db = Database.Database;

/** Bumped when the schema changes; an index with another version is rebuilt. */
export const SCHEMA_VERSION = 5;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sources (
  id TEXT PRIMARY KEY,
  root TEXT NOT NULL,
  indexed_at TEXT
);
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  ino INTEGER NOT NULL DEFAULT 0,
  sha256 TEXT NOT NULL,
  indexed_at TEXT NOT NULL,
  racy INTEGER NOT NULL DEFAULT 0,
  lang TEXT NOT NULL,
  UNIQUE (source, path)
);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  file INTEGER NOT NULL REFERENCES files (id),
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  heading_path TEXT NOT NULL,
  lang TEXT NOT NULL,
  title_len INTEGER NOT NULL,
  headings_len INTEGER NOT NULL,
  body_len INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks (file);
CREATE TABLE IF NOT EXISTS problems (
  source TEXT NOT NULL,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  code TEXT NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (source, path)
);
CREATE TABLE IF NOT EXISTS champions (
  term TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  counts INTEGER NOT NULL,
  PRIMARY KEY (term, chunk)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS champions_chunk ON champions (chunk);
CREATE TABLE IF NOT EXISTS champion_terms (
  term TEXT PRIMARY KEY,
  floor REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS postings (
  term TEXT PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS postings_added (
  term TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  counts INTEGER NOT NULL,
  PRIMARY KEY (term, chunk)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5 (
  title,
  heading_path,
  body,
  content = '',
  contentless_delete = 1,
  tokenize = 'ascii'
);
`;

const DROP = `
DROP TABLE IF EXISTS chunks_fts;
DROP TABLE IF EXISTS champions;
DROP TABLE IF EXISTS champion_terms;
DROP TABLE IF EXISTS postings;
DROP TABLE IF EXISTS postings_added;
DROP VIEW IF EXISTS chunk_content;
DROP TABLE IF EXISTS terms;
DROP TABLE IF EXISTS problems;
DROP TABLE IF EXISTS chunks;
DROP TABLE IF EXISTS files;
DROP TABLE IF EXISTS sources;
DROP TABLE IF EXISTS meta;
`;

/** The two connections of an open store and what opening it found. */
export interface OpenedDatabase {
  /** Runs every query; sees the last committed index. */
  reader: Db;
  /** Runs reindex transactions, so a reindex in progress is invisible to the reader. */
  writer: Db;
  /** Human-readable notes about what opening had to repair. */
  warnings: string[];
}

/** True for SQLite errors that mean the file is damaged or not a database at all. */
export function isCorruptionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB'))
  );
}

function connect(path: string): Db {
  const Sqlite = sqlite();
  const db = new Sqlite(path, { timeout: 5000 });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // A full reindex is one large transaction; give the WAL file back after it is checkpointed.
    db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** A SQLITE_CORRUPT-like error, which {@link openDatabase} answers by moving the file aside. */
function corrupt(message: string): Error {
  const error = new Error(message);
  (error as Error & { code: string }).code = 'SQLITE_CORRUPT';
  return error;
}

/**
 * The file that records damage a store met in the database at `path` while using it: the next
 * open moves the database aside (and rebuilds) without looking further.
 */
export function damageMarker(path: string): string {
  return `${path}.damaged`;
}

/**
 * Records that the database at `path` turned out damaged while in use (see
 * {@link damageMarker}). Best effort: a marker that cannot be written leaves the damage to be
 * found again.
 */
export function markDamaged(path: string, reason: string): void {
  if (path === ':memory:' || path === '' || path.startsWith('file:')) return;
  try {
    writeFileSync(damageMarker(path), `${new Date().toISOString()} ${reason}\n`);
  } catch {
    // A read-only folder: the next use meets the damage again and reports it again.
  }
}

/**
 * Throws a SQLITE_CORRUPT-like error when the database was marked damaged, or when
 * `PRAGMA quick_check` of one of its ordinary tables fails: every b-tree page of the tables
 * and their indexes, the full-text index's shadow tables included, is read and checked (about
 * 60 ms per 10,000 notes). Checking the whole file at once would add the full-text index's own
 * consistency check, a pass over every doclist that costs about 1 s per 10,000 notes at every
 * start; FTS5 reports a malformed doclist when a query reads it, and the store then marks the
 * file (see {@link markDamaged}) so the next open rebuilds it. A partial check cannot see a
 * page that no table uses, which costs space, not answers.
 */
function check(db: Db, path: string): void {
  const marker = damageMarker(path);
  if (existsSync(marker)) {
    let reason = '';
    try {
      reason = readFileSync(marker, 'utf8').trim();
    } catch {
      reason = 'reason unreadable';
    }
    throw corrupt(`damage was met while it was in use: ${reason}`);
  }
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'",
    )
    .pluck()
    .all() as string[];
  for (const table of tables) {
    const rows = db.pragma(`quick_check("${table.replace(/"/g, '""')}")`) as Array<{
      quick_check: string;
    }>;
    if (rows[0]?.quick_check !== 'ok') {
      throw corrupt(
        `quick_check of ${table} reported: ${rows
          .slice(0, 3)
          .map((r) => r.quick_check)
          .join('; ')}`,
      );
    }
  }
}

function ensureSchema(db: Db, warnings: string[]): void {
  const hasMeta = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
    .get();
  if (hasMeta) {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
      | { value: string }
      | undefined;
    if (row && row.value !== String(SCHEMA_VERSION)) {
      warnings.push(
        `the memory index was built by another version (schema ${row.value}, expected ${SCHEMA_VERSION}); it was cleared and will be rebuilt.`,
      );
      db.exec(DROP);
    }
  }
  db.exec(SCHEMA);
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)").run(
    String(SCHEMA_VERSION),
  );
}

/** The real path of `path`, resolving its nearest existing ancestor (the rest may not exist). */
function realish(path: string): string {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const up = dirname(at);
      if (up === at) return path;
      rest.push(basename(at));
      at = up;
    }
  }
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** True when `path` is a SQLite file holding a Lectern memory index (its meta table). */
function isLecternDatabase(path: string): boolean {
  const head = Buffer.alloc(16);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    if (readSync(fd, head, 0, 16, 0) !== 16 || !head.equals(SQLITE_HEADER)) return false;
  } finally {
    closeSync(fd);
  }
  const Sqlite = sqlite();
  try {
    const db = new Sqlite(path, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get();
      return row !== undefined;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/**
 * Refuses a database path inside a content root (`roots`, real paths) unless it is under a
 * `.lectern` folder (Lectern's own, never served) or already a Lectern memory index: a path
 * naming a note would otherwise be moved aside as "damaged" and replaced by an index. Throws
 * `DB_PATH_INVALID`.
 */
export function checkDbPath(path: string, roots: readonly string[]): void {
  const real = realish(path);
  for (const root of roots) {
    const rel = relative(root, real);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) continue;
    const inState = rel
      .split(sep)
      .slice(0, -1)
      .some((s) => s.toLowerCase() === STATE_DIR_NAME);
    if (inState) return;
    let exists = false;
    try {
      exists = lstatSync(real).isFile();
    } catch {
      exists = false;
    }
    if (exists && isLecternDatabase(real)) return;
    throw new ToolError(
      'DB_PATH_INVALID',
      `the memory database ${path} is inside the content root ${root}${exists ? ' and is not a Lectern memory index (it would be moved aside and replaced)' : ''}; put it under ${join(root, STATE_DIR_NAME)} or outside the roots.`,
      { details: { db: path, root } },
    );
  }
}

function moveAside(path: string): string {
  const aside = `${path}.corrupt`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(aside + suffix)) rmSync(aside + suffix, { force: true });
  }
  renameSync(path, aside);
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  }
  rmSync(damageMarker(path), { force: true });
  return aside;
}

function openOnce(path: string, warnings: string[]): OpenedDatabase {
  const writer = connect(path);
  try {
    check(writer, path);
    writer.transaction(() => ensureSchema(writer, warnings)).immediate();
    const reader = connect(path);
    // Per-connection views of the index vocabulary: document frequency per term, and where
    // each term occurs (chunk, field), which the ranking counts (and the writer, which
    // writes the listed terms' postings from them).
    for (const db of [reader, writer]) {
      db.exec(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, 'chunks_fts', 'row')",
      );
      db.exec(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_places USING fts5vocab(main, 'chunks_fts', 'instance')",
      );
    }
    return { reader, writer, warnings };
  } catch (e) {
    writer.close();
    throw e;
  }
}

/**
 * Creates a missing database file empty with mode 0600 before SQLite opens it: SQLite would
 * create it 0644 (less the umask), readable by every local user, and gives its `-wal` and `-shm`
 * files the database file's mode.
 */
function createPrivate(path: string): void {
  if (existsSync(path)) return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * A database path as an error message shows it: relative to the working folder when inside it,
 * else its last folder and name (`…/index/memory.db`), never the whole absolute path.
 */
export function shownDbPath(path: string): string {
  const rel = relative(process.cwd(), path);
  if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
  return `…${sep}${join(basename(dirname(path)), basename(path))}`;
}

/** A system message with its quoted absolute paths shortened by {@link shownDbPath}. */
function scrubPaths(message: string): string {
  return message.replace(/'(\/[^']*)'/g, (_, p: string) => `'${shownDbPath(p)}'`);
}

/**
 * Opens (creating when missing) the index database at `path` with two connections in WAL
 * mode. A file that is not a database, fails `PRAGMA quick_check` (see `check`) or was marked
 * damaged while in use is moved aside to
 * `<path>.corrupt` and replaced by an empty index, with a warning saying so; any other failure
 * (permissions, a folder in the way) throws `DB_UNAVAILABLE`.
 */
export function openDatabase(path: string): OpenedDatabase {
  // A missing native module is its own error (SQLITE_UNAVAILABLE), not a database problem.
  sqlite();
  const warnings: string[] = [];
  try {
    // The index holds the notes' words: folders it creates are private (0700).
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (cause) {
    throw new ToolError(
      'DB_UNAVAILABLE',
      `cannot create the folder for the memory database ${shownDbPath(path)}: ${scrubPaths((cause as Error).message)}. Pass a writable dbPath.`,
      { cause },
    );
  }
  // A marker outliving its database (deleted by hand) says nothing about the new one.
  if (!existsSync(path)) rmSync(damageMarker(path), { force: true });
  try {
    createPrivate(path);
    return openOnce(path, warnings);
  } catch (error) {
    if (!isCorruptionError(error)) {
      throw new ToolError(
        'DB_UNAVAILABLE',
        `cannot open the memory database ${shownDbPath(path)}: ${scrubPaths((error as Error).message)}.`,
        { cause: error },
      );
    }
    const aside = moveAside(path);
    warnings.push(
      `the memory database ${path} was damaged (${(error as Error).message}); it was moved to ${aside} and a new, empty index was created. The next search or reindex rebuilds it from the sources.`,
    );
    try {
      createPrivate(path);
      return openOnce(path, warnings);
    } catch (again) {
      throw new ToolError(
        'DB_UNAVAILABLE',
        `cannot recreate the memory database ${shownDbPath(path)}: ${scrubPaths((again as Error).message)}.`,
        { cause: again },
      );
    }
  }
}
