import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  isTempName,
  isToolError,
  type OpenedDir,
  openDirInRootSync,
  type Root,
  readFileInRootSync,
  removeFileInRootSync,
  sha256,
  writeFileAtomic,
  writeFileInRootSync,
} from '@lectern/core';
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

/** A page a journal side could not be applied to because of an I/O error (disk full, ...). */
export interface PendingPage {
  path: string;
  /** The error code, e.g. `ENOSPC`. */
  errno: string;
}

/** What applying one side of a journal did. */
export interface SideResult {
  completed: string[];
  /** Pages holding neither side (changed by someone else), left alone. */
  skipped: string[];
  /** Pages that could not be written (I/O error); the journal must stay while any remain. */
  failed: PendingPage[];
}

/**
 * Test seam: called right before each page write or removal that applying a journal side (or a
 * batch) makes; throwing from it stands for the file system failing that write (e.g. ENOSPC).
 */
export const pageWriteSeam: {
  before?: ((path: string, kind: 'write' | 'remove', bytes: number) => void) | undefined;
} = {};

/** What a recovery did. */
export interface RecoveryReport {
  batch_id: string | null;
  /** Pages rewritten (or removed) to finish the batch (or, when `undone`, to undo it). */
  completed: string[];
  /** Pages that matched neither side of the journal (changed by someone else) and were left alone. */
  skipped: string[];
  /**
   * Pages that could be neither finished nor put back because of an I/O error (disk full):
   * the journal is kept, and every later call on the wiki tries again.
   */
  pending: PendingPage[];
  /** True when the batch could not be finished and was undone instead (every page old). */
  undone?: boolean;
  /** Leftover temporary files removed. */
  temp_files_removed: number;
  at: string;
  /** A journal that could not be read, moved aside under this name. */
  quarantined?: string;
}

function fsyncDirSync(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A page's bytes as they are now (read through the anchored guard), or null when absent. */
function currentBytes(root: Root, rel: string): Buffer | null {
  try {
    return readFileInRootSync(root, rel, { maxBytes: Number.MAX_SAFE_INTEGER }).bytes;
  } catch (e) {
    if (isToolError(e) && e.code === 'PATH_NOT_FOUND') return null;
    throw e;
  }
}

/** Writes the journal durably (atomic replace in the state folder). */
export async function writeJournal(stateDir: string, journal: Journal): Promise<void> {
  // It holds whole pages: readable by the wiki's owner only, like the folder it sits in.
  await writeFileAtomic(join(stateDir, JOURNAL_FILE), JSON.stringify(journal), { mode: 0o600 });
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

/** Reads the journal without following a link in its place (a link is a corrupt journal). */
function readJournal(stateDir: string): Journal | 'corrupt' | null {
  let raw: string;
  let fd: number;
  try {
    fd = openSync(
      join(stateDir, JOURNAL_FILE),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') return 'corrupt';
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return 'corrupt';
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    raw = buf.subarray(0, off).toString('utf8');
  } finally {
    closeSync(fd);
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

/** Path errors that mean someone else put something else at a page's place: left alone. */
const FOREIGN_CODES = new Set([
  'PATH_SYMLINK',
  'PATH_NOT_DIRECTORY',
  'PATH_IS_DIRECTORY',
  'PATH_NOT_REGULAR',
  'PATH_HARD_LINK',
  'PATH_TOO_LONG',
]);

/** The short code of an error (errno such as ENOSPC, else a ToolError code). */
export function errnoOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

/**
 * The order in which a side's entries are applied. Finishing (`after`): writes first, removals
 * last, so a moved page exists at its new path before the old one goes. Undoing (`before`):
 * removals first (they free space), then the old bytes are put back.
 */
function ordered(entries: JournalEntry[], side: 'after' | 'before'): JournalEntry[] {
  const removes = (e: JournalEntry) => (side === 'after' ? e.after : e.before) === null;
  const writes = entries.filter((e) => !removes(e));
  const removals = entries.filter(removes);
  return side === 'after' ? [...writes, ...removals] : [...removals, ...writes];
}

/**
 * Applies one side of a journal to the pages: every entry whose page still holds the other
 * side (or already holds this side) ends up holding this side. A page that holds neither was
 * changed by someone else after the crash; it is left alone and reported. A page that cannot
 * be written (an I/O error such as ENOSPC) is reported as failed, and the others are still
 * tried. `checkPath` must throw for a path the wiki would never write (outside, hidden, not a
 * page).
 */
export function applyJournalSide(
  root: Root,
  journal: Journal,
  side: 'after' | 'before',
  checkPath: (rel: string) => string,
): SideResult {
  const completed: string[] = [];
  const skipped: string[] = [];
  const failed: PendingPage[] = [];
  for (const entry of ordered(journal.entries, side)) {
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
      const now = currentBytes(root, rel);
      const nowVersion = now === null ? null : sha256(now);
      const wantVersion = want === null ? null : sha256(want);
      const otherVersion = other === null ? null : sha256(other);
      if (nowVersion === wantVersion) continue;
      if (nowVersion !== otherVersion) {
        skipped.push(rel);
        continue;
      }
      pageWriteSeam.before?.(rel, want === null ? 'remove' : 'write', want?.length ?? 0);
      if (want === null) removeFileInRootSync(root, rel);
      else writeFileInRootSync(root, rel, want, { createParents: true });
      completed.push(rel);
    } catch (e) {
      if (isToolError(e) && FOREIGN_CODES.has(e.code)) skipped.push(rel);
      else failed.push({ path: rel, errno: errnoOf(e) });
    }
  }
  return { completed, skipped, failed };
}

/**
 * Removes temporary files left by interrupted atomic writes (names from core's
 * `TEMP_PREFIX`) anywhere in the wiki and in the state folder, and lock temporary files of
 * dead processes. Call only while holding the wiki lock, so no live writer's temporary page
 * file is removed. The wiki is walked folder by folder through descriptors (no link is ever
 * followed), so nothing outside the wiki is removed even if a folder is swapped meanwhile.
 */
export function sweepTempFiles(root: Root, stateDir: string): number {
  let removed = 0;
  const walk = (dir: OpenedDir, depth: number) => {
    if (depth > 64) return;
    let names: Dirent[];
    try {
      names = dir.list();
    } catch {
      return;
    }
    for (const d of names) {
      if (isTempName(d.name) && d.isFile()) {
        try {
          unlinkSync(dir.at(d.name));
          removed++;
        } catch {
          /* raced with another cleaner */
        }
      } else if (d.isDirectory() && !d.name.startsWith('.')) {
        let child: OpenedDir;
        try {
          child = dir.openDir(d.name);
        } catch (e) {
          if (isToolError(e)) continue;
          throw e;
        }
        try {
          walk(child, depth + 1);
        } finally {
          child.close();
        }
      }
    }
  };
  try {
    const top = openDirInRootSync(root, '');
    try {
      walk(top, 0);
    } finally {
      top.close();
    }
  } catch (e) {
    if (!isToolError(e)) throw e;
  }
  for (const name of safeList(stateDir)) {
    if (!isTempName(name)) continue;
    try {
      if (lstatSync(join(stateDir, name)).isFile()) {
        unlinkSync(join(stateDir, name));
        removed++;
      }
    } catch {
      /* raced with another cleaner */
    }
  }
  return removed + removeDeadLockTemps(stateDir);
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Finishes an interrupted batch (rolls it forward from the journal), removes the journal and
 * sweeps temporary files. When a page cannot be written (an I/O error such as a full disk) the
 * batch is undone instead; when that fails too, the journal is kept and `pending` names the
 * pages, so a later call tries again. Must run while holding the wiki lock. Returns null when
 * there was nothing to do.
 */
export function recover(
  root: Root,
  stateDir: string,
  checkPath: (rel: string) => string,
): RecoveryReport | null {
  const journal = readJournal(stateDir);
  const report: RecoveryReport = {
    batch_id: null,
    completed: [],
    skipped: [],
    pending: [],
    temp_files_removed: 0,
    at: new Date().toISOString(),
  };
  if (journal === 'corrupt') {
    report.quarantined = `journal.unreadable-${Date.now()}.json`;
    renameSync(join(stateDir, JOURNAL_FILE), join(stateDir, report.quarantined));
    fsyncDirSync(stateDir);
  } else if (journal) {
    report.batch_id = journal.batch_id;
    const forward = applyJournalSide(root, journal, 'after', checkPath);
    report.completed = forward.completed;
    report.skipped = forward.skipped;
    if (forward.failed.length > 0) {
      // Cannot finish (disk full, ...): undo instead, so the wiki is wholly old rather than
      // half-applied. When that fails too, the journal (the only copy of some pages' bytes)
      // stays, and the next call tries again.
      const back = applyJournalSide(root, journal, 'before', checkPath);
      if (back.failed.length === 0) {
        report.undone = true;
        report.completed = back.completed;
        report.skipped = back.skipped;
      } else {
        report.pending = forward.failed;
      }
    }
    if (report.pending.length === 0) removeJournal(stateDir);
  }
  report.temp_files_removed = sweepTempFiles(root, stateDir);
  return journal === null && report.temp_files_removed === 0 ? null : report;
}
