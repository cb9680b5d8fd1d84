import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isTempName, sha256, TEMP_PREFIX, ToolError, writeFileAtomic } from '@lectern/core';
import { removeDeadLockTemps } from './lock.js';

/** Journal format tag; a journal with another tag is moved aside, never applied. */
export const JOURNAL_FORMAT = 'lectern-wiki-journal/1';
/** File name of the journal inside the state folder. */
export const JOURNAL_FILE = 'journal.json';

/** One page a batch changes: its bytes before and after (null = absent). */
export interface JournalEntry {
  path: string;
  /** Base64 of the bytes before the batch, or null when the page did not exist. */
  before: string | null;
  /** Base64 of the bytes after the batch, or null when the batch removes the page. */
  after: string | null;
  before_version: string | null;
  after_version: string | null;
}

/** What a batch writes before touching any page; enough to finish it after a crash. */
export interface Journal {
  format: typeof JOURNAL_FORMAT;
  batch_id: string;
  created_at: string;
  pid: number;
  entries: JournalEntry[];
}

/** What a recovery did. */
export interface RecoveryReport {
  batch_id: string | null;
  /** Pages rewritten (or removed) to finish the batch. */
  completed: string[];
  /** Pages that matched neither side of the journal (changed by someone else) and were left alone. */
  skipped: string[];
  /** Leftover temporary files removed. */
  temp_files_removed: number;
  at: string;
  /** A journal that could not be read, moved aside under this name. */
  quarantined?: string;
}

/** The outcome of checking a path for writing without following links. */
interface SyncTarget {
  absolute: string;
  existing: Stats | null;
}

/**
 * Synchronous counterpart of core's `resolveForWrite` for recovery at start-up (core has no
 * synchronous variant): walks `rel` from the root with lstat, refusing any link and any
 * non-folder on the way; with `createParents`, creates missing folders one by one.
 */
function syncTarget(rootPath: string, rel: string, createParents: boolean): SyncTarget {
  const segments = rel.split('/');
  let current = rootPath;
  for (let i = 0; i < segments.length; i++) {
    const next = join(current, segments[i]!);
    let st: Stats | null = null;
    try {
      st = lstatSync(next);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
    }
    if (st?.isSymbolicLink()) {
      throw new ToolError('PATH_SYMLINK', `${rel} passes through a symbolic link; not followed.`);
    }
    const last = i === segments.length - 1;
    if (last) {
      if (st && !st.isFile())
        throw new ToolError('PATH_NOT_REGULAR', `${rel} is not a regular file.`);
      return { absolute: next, existing: st };
    }
    if (st === null) {
      if (!createParents) return { absolute: join(next, ...segments.slice(i + 1)), existing: null };
      mkdirSync(next);
    } else if (!st.isDirectory()) {
      throw new ToolError(
        'PATH_NOT_DIRECTORY',
        `${rel}: ${segments.slice(0, i + 1).join('/')} is a file.`,
      );
    }
    current = next;
  }
  throw new ToolError('PATH_INVALID', `${rel} could not be resolved.`);
}

function fsyncDirSync(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Atomic replace, synchronously: temp file (core's prefix) + fsync + rename + fsync folder. */
function writeAtomicSync(path: string, data: Buffer): void {
  const tmp = join(
    dirname(path),
    `${TEMP_PREFIX}${basename(path)}.${randomBytes(6).toString('hex')}`,
  );
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    try {
      let off = 0;
      while (off < data.length) off += writeSync(fd, data, off, data.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
    throw e;
  }
  fsyncDirSync(dirname(path));
}

function currentBytes(target: SyncTarget): Buffer | null {
  if (!target.existing) return null;
  const fd = openSync(
    target.absolute,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  );
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.ino !== target.existing.ino) {
      throw new ToolError('PATH_CHANGED', 'a page changed while recovery was reading it.');
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes the journal durably (atomic replace in the state folder). */
export async function writeJournal(stateDir: string, journal: Journal): Promise<void> {
  await writeFileAtomic(join(stateDir, JOURNAL_FILE), JSON.stringify(journal));
}

/** Removes the journal and makes the removal durable. */
export function removeJournal(stateDir: string): void {
  try {
    unlinkSync(join(stateDir, JOURNAL_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  fsyncDirSync(stateDir);
}

/** True when a journal is waiting in the state folder. */
export function hasJournal(stateDir: string): boolean {
  try {
    // lstat the folder first: a state folder replaced by a link is never looked into.
    return lstatSync(stateDir).isDirectory() && lstatSync(join(stateDir, JOURNAL_FILE)).isFile();
  } catch {
    return false;
  }
}

function readJournal(stateDir: string): Journal | 'corrupt' | null {
  let raw: string;
  try {
    raw = readFileSync(join(stateDir, JOURNAL_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const j = JSON.parse(raw) as Journal;
    if (j.format !== JOURNAL_FORMAT || !Array.isArray(j.entries)) return 'corrupt';
    for (const e of j.entries) {
      if (typeof e.path !== 'string' || (e.before !== null && typeof e.before !== 'string'))
        return 'corrupt';
      if (e.after !== null && typeof e.after !== 'string') return 'corrupt';
    }
    return j;
  } catch {
    return 'corrupt';
  }
}

/**
 * Applies one side of a journal to the pages: every entry whose page still holds the other
 * side (or already holds this side) ends up holding this side. A page that holds neither was
 * changed by someone else after the crash; it is left alone and reported. `checkPath` must
 * throw for a path the wiki would never write (outside, hidden, not a page).
 */
export function applyJournalSide(
  rootPath: string,
  journal: Journal,
  side: 'after' | 'before',
  checkPath: (rel: string) => string,
): { completed: string[]; skipped: string[] } {
  const completed: string[] = [];
  const skipped: string[] = [];
  for (const entry of journal.entries) {
    let rel: string;
    try {
      rel = checkPath(entry.path);
    } catch {
      skipped.push(entry.path);
      continue;
    }
    const wantB64 = side === 'after' ? entry.after : entry.before;
    const otherB64 = side === 'after' ? entry.before : entry.after;
    const want = wantB64 === null ? null : Buffer.from(wantB64, 'base64');
    const other = otherB64 === null ? null : Buffer.from(otherB64, 'base64');
    try {
      const target = syncTarget(rootPath, rel, false);
      const now = currentBytes(target);
      const nowVersion = now === null ? null : sha256(now);
      const wantVersion = want === null ? null : sha256(want);
      const otherVersion = other === null ? null : sha256(other);
      if (nowVersion === wantVersion) continue;
      if (nowVersion !== otherVersion) {
        skipped.push(rel);
        continue;
      }
      if (want === null) {
        unlinkSync(target.absolute);
        fsyncDirSync(dirname(target.absolute));
      } else {
        writeAtomicSync(syncTarget(rootPath, rel, true).absolute, want);
      }
      completed.push(rel);
    } catch {
      skipped.push(rel);
    }
  }
  return { completed, skipped };
}

/**
 * Removes temporary files left by interrupted atomic writes (names from core's
 * `TEMP_PREFIX`) anywhere in the wiki and in the state folder, and lock temporary files of
 * dead processes. Call only while holding the wiki lock, so no live writer's temporary page
 * file is removed.
 */
export function sweepTempFiles(rootPath: string, stateDir: string): number {
  let removed = 0;
  const walk = (dir: string, depth: number) => {
    if (depth > 64) return;
    let names: import('node:fs').Dirent[];
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names) {
      const abs = join(dir, d.name);
      if (isTempName(d.name) && d.isFile()) {
        try {
          unlinkSync(abs);
          removed++;
        } catch {
          /* raced with another cleaner */
        }
      } else if (d.isDirectory() && !d.name.startsWith('.')) {
        walk(abs, depth + 1);
      }
    }
  };
  walk(rootPath, 0);
  walk(stateDir, 64);
  return removed + removeDeadLockTemps(stateDir);
}

/**
 * Finishes an interrupted batch (rolls it forward from the journal), removes the journal and
 * sweeps temporary files. Must run while holding the wiki lock. Returns null when there was
 * nothing to do.
 */
export function recover(
  rootPath: string,
  stateDir: string,
  checkPath: (rel: string) => string,
): RecoveryReport | null {
  const journal = readJournal(stateDir);
  const report: RecoveryReport = {
    batch_id: null,
    completed: [],
    skipped: [],
    temp_files_removed: 0,
    at: new Date().toISOString(),
  };
  if (journal === 'corrupt') {
    report.quarantined = `journal.unreadable-${Date.now()}.json`;
    renameSync(join(stateDir, JOURNAL_FILE), join(stateDir, report.quarantined));
    fsyncDirSync(stateDir);
  } else if (journal) {
    Object.assign(report, applyJournalSide(rootPath, journal, 'after', checkPath));
    report.batch_id = journal.batch_id;
    removeJournal(stateDir);
  }
  report.temp_files_removed = sweepTempFiles(rootPath, stateDir);
  return journal === null && report.temp_files_removed === 0 ? null : report;
}
