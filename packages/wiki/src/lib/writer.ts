import { randomBytes } from 'node:crypto';
import { fchmodSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import {
  isToolError,
  type OpenedDir,
  openStateDirSync,
  readFileInRoot,
  removeFileInRoot,
  sha256,
  ToolError,
  writeFileInRoot,
} from '@lectern/core';
import { type BatchPlan, BatchPlanner, type Operation, type PlannedChange } from './batch.js';
import {
  applyJournalSide,
  errnoOf,
  hasJournal,
  JOURNAL_FORMAT,
  type Journal,
  type PendingPage,
  pageWriteSeam,
  type RecoveryReport,
  recover,
  removeJournal,
  writeJournal,
} from './journal.js';
import { type HeldLock, LOCK_WAIT_MS, WikiLock } from './lock.js';
import { STATE_DIR, type Wiki } from './wiki.js';

/** Largest diff text returned for one page by a dry run, in characters. */
export const MAX_DIFF_CHARS = 64 * 1024;
/** Largest total of diff text returned by one dry run, in characters. */
export const MAX_TOTAL_DIFF_CHARS = 512 * 1024;

/** Input of {@link WikiWriter.run}. */
export interface BatchInput {
  operations: Operation[];
  log?: string | undefined;
  dry_run?: boolean | undefined;
}

/** A change as reported to the caller. */
export interface ReportedChange {
  path: string;
  action: PlannedChange['action'];
  cause: PlannedChange['cause'];
  previous_version: string | null;
  version: string | null;
  links_updated?: number;
  diff?: string;
  diff_truncated?: boolean;
}

/** Result of a batch that was applied (or previewed). */
export interface BatchResult {
  dry_run: boolean;
  applied: boolean;
  operations: BatchPlan['operations'];
  changes: ReportedChange[];
  broken_links: BatchPlan['broken_links'];
  broken_links_truncated: boolean;
  log_entry: string | null;
  warnings: string[];
}

/** Test hook: called after each page is written while applying a batch (crash tests). */
export type AfterWriteHook = (path: string, index: number) => void;

/** Test seams of a {@link WikiWriter} (pauses and outside edits at chosen moments). */
export interface WriterHooks {
  /** After a plan is made, before anything is checked or written (an editor saving meanwhile). */
  afterPlan?: (attempt: number) => void | Promise<void>;
  /** Right before each page of a batch is checked and written (a writer that stalls). */
  beforeWrite?: (path: string, index: number) => void | Promise<void>;
  /** Free bytes of the wiki's file system, instead of asking statfs. */
  freeBytes?: () => number | null;
}

/** Errors that keep a lock from being written at all: recovery waits for a later call. */
const CANNOT_LOCK = new Set(['ENOSPC', 'EDQUOT', 'EACCES', 'EROFS', 'EPERM', 'EIO']);

/** How many times a batch is planned again when a page changed on disk while it was planned. */
export const MAX_REPLANS = 2;

/** What applying a planned batch came to, when it did not throw. */
type CommitOutcome = { kind: 'applied' } | { kind: 'changed'; path: string; found: string | null };

/**
 * Applies write_batch plans to one wiki with the guarantees the tool promises: one writer at a
 * time across processes (lock file), every page replaced atomically (core `writeFileAtomic`),
 * and all-or-nothing across crashes (a journal with the old and new bytes of every page is made
 * durable before the first page is touched; a later start rolls it forward).
 */
export class WikiWriter {
  /** Where the state folder is (for display and a quick look; all work goes through a handle). */
  readonly stateDir: string;
  /** What the most recent recovery in this process did, if anything. */
  lastRecovery: RecoveryReport | null = null;
  /** Test seams; empty in production. */
  hooks: WriterHooks = {};
  /** How long a batch waits for the wiki lock before `WIKI_BUSY`. */
  lockWaitMs = LOCK_WAIT_MS;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly checkPath: (rel: string) => string;

  constructor(private readonly wiki: Wiki) {
    this.stateDir = join(wiki.root.path, STATE_DIR);
    this.checkPath = (rel) => wiki.checkPagePath(rel);
  }

  /**
   * Opens the state folder by descriptor (never through a link), so the lock, the journal and
   * their temporary files are always created in the wiki's own `.lectern`, whatever happens
   * to its path meanwhile. Null when it does not exist (or is not a folder) and `create` is
   * not set.
   */
  private openState(create: boolean): OpenedDir | null {
    try {
      return openStateDirSync(this.wiki.root, { create });
    } catch (e) {
      if (!create && isToolError(e)) return null;
      throw e;
    }
  }

  /**
   * Start-up recovery, synchronous: when the wiki has a state folder and no live writer holds
   * the lock, finishes an interrupted batch and removes leftover temporary files. A wiki that
   * was never written has nothing to recover and is not touched.
   */
  recoverAtStart(): RecoveryReport | null {
    let state: OpenedDir | null;
    try {
      state = this.openState(false);
    } catch {
      return null;
    }
    if (!state) return null;
    try {
      return this.recoverHeld(state);
    } finally {
      state.close();
    }
  }

  /**
   * Takes the lock when no live writer holds it and recovers. A lock that cannot even be
   * written (a full disk, a read-only wiki) means no recovery now: the journal stays, and the
   * next call tries again.
   */
  private recoverHeld(state: OpenedDir): RecoveryReport | null {
    let held: HeldLock | null;
    try {
      held = new WikiLock(state.path).tryAcquire();
    } catch (e) {
      const errno = errnoOf(e);
      if (!CANNOT_LOCK.has(errno)) throw e;
      if (hasJournal(state.path)) {
        // a batch waits and cannot even be looked at: say so (list_wikis shows it)
        this.lastRecovery = {
          batch_id: null,
          completed: [],
          skipped: [],
          pending: [{ path: '.lectern/write.lock', errno }],
          temp_files_removed: 0,
          at: new Date().toISOString(),
        };
      }
      return null;
    }
    if (!held) return null;
    try {
      const report = recover(this.wiki.root, state.path, this.checkPath);
      if (report) this.lastRecovery = report;
      return report;
    } finally {
      held.release();
    }
  }

  /**
   * Before a read: when a journal is waiting and no live writer holds the lock, recover now,
   * so no reader sees a half-applied batch left by a crash. When the batch can be neither
   * finished nor undone (disk full), the journal stays, `lastRecovery.pending` says which pages
   * wait, and the next call tries again.
   */
  async ensureRecovered(): Promise<void> {
    if (!hasJournal(this.stateDir)) return;
    await this.serial(async () => {
      const state = this.openState(false);
      if (!state) return;
      try {
        if (hasJournal(state.path)) this.recoverHeld(state);
      } finally {
        state.close();
      }
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Plans, checks and (unless a dry run) applies one batch. */
  run(input: BatchInput, signal?: AbortSignal, afterWrite?: AfterWriteHook): Promise<BatchResult> {
    return this.serial(() => this.runLocked(input, signal, afterWrite));
  }

  private async runLocked(
    input: BatchInput,
    signal?: AbortSignal,
    afterWrite?: AfterWriteHook,
  ): Promise<BatchResult> {
    let state: OpenedDir;
    let held: HeldLock;
    try {
      state = this.openState(true)!;
    } catch (e) {
      throw writeError(e, 'could not open the state folder .lectern');
    }
    try {
      tightenStateDir(state);
      try {
        held = await new WikiLock(state.path).acquire(this.lockWaitMs, signal);
      } catch (e) {
        throw writeError(e, 'could not take the wiki lock');
      }
      try {
        return await this.runHeld(state, held, input, signal, afterWrite);
      } finally {
        held.release();
      }
    } finally {
      state.close();
    }
  }

  private async runHeld(
    state: OpenedDir,
    held: HeldLock,
    input: BatchInput,
    signal?: AbortSignal,
    afterWrite?: AfterWriteHook,
  ): Promise<BatchResult> {
    const warnings: string[] = [];
    if (hasJournal(state.path)) {
      const report = recover(this.wiki.root, state.path, this.checkPath);
      if (report) {
        this.lastRecovery = report;
        if (report.pending.length > 0) throw recoveryPending(report);
        if (report.batch_id !== null) {
          warnings.push(
            `${report.undone ? 'undid' : 'finished'} an interrupted batch (${report.batch_id}) before this one: ${report.completed.length} page(s) ${report.undone ? 'put back' : 'completed'}${report.skipped.length ? `, ${report.skipped.length} left as found` : ''}.`,
          );
        }
      }
    }
    for (let attempt = 0; ; attempt++) {
      const files = (await this.wiki.scan()).map((f) => f.path);
      const planner = new BatchPlanner(this.wiki, files);
      const plan = await planner.plan(input.operations, {
        log: input.log,
        diffs: input.dry_run === true,
      });
      if (plan.failures.length > 0) throw rejected(plan, input.operations.length);
      const result = report(plan, input.dry_run === true, warnings);
      if (input.dry_run || plan.changes.length === 0) return result;
      await this.hooks.afterPlan?.(attempt);
      if (signal?.aborted) {
        throw new ToolError('CANCELLED', 'the request was cancelled before anything was written.');
      }
      if (!held.stillHeld()) {
        throw new ToolError(
          'LOCK_LOST',
          'the wiki lock was taken over while the batch was being planned; nothing was written. Try again.',
        );
      }
      // A page an editor saved while the batch was planned (a page a move rewrites links in is
      // named by no operation): plan again from the new bytes, so that edit is kept.
      let outcome: CommitOutcome | null = await this.changedSincePlan(plan.changes);
      if (outcome === null) {
        this.checkSpace(state, plan.changes);
        outcome = await this.commit(state, held, plan.changes, afterWrite);
      }
      if (outcome.kind === 'applied') return { ...result, applied: true };
      if (attempt >= MAX_REPLANS) throw pageChanged(outcome.path, plan.changes, outcome.found);
    }
  }

  /** A page's version as it is now: null when absent, `(CODE)` when it cannot be read as planned. */
  private async versionNow(rel: string): Promise<string | null> {
    try {
      const { bytes } = await readFileInRoot(this.wiki.root, rel, {
        maxBytes: this.wiki.maxPageBytes,
      });
      return sha256(bytes);
    } catch (e) {
      if (!isToolError(e)) throw e;
      if (e.code === 'PATH_NOT_FOUND') return null;
      return `(${e.code})`;
    }
  }

  /** The first page of a plan whose bytes are no longer the ones it was planned from. */
  private async changedSincePlan(changes: PlannedChange[]): Promise<CommitOutcome | null> {
    for (const c of changes) {
      const now = await this.versionNow(c.path);
      if (now !== c.previous_version) return { kind: 'changed', path: c.path, found: now };
    }
    return null;
  }

  /**
   * Refuses a batch the file system has no room for, before anything is written: the journal,
   * the growth of every page and the largest page's temporary copy, in whole blocks. Skipped
   * where the file system does not report its free space.
   */
  private checkSpace(state: OpenedDir, changes: PlannedChange[]): void {
    let free: number | null = null;
    let block = 4096;
    if (this.hooks.freeBytes) free = this.hooks.freeBytes();
    else {
      try {
        const st = statfsSync(state.path);
        if (st.bsize > 0) block = st.bsize;
        // A file system that reports no blocks at all (some FUSE and network ones) does not
        // report its free space either. Root may use the blocks reserved for it; anyone else
        // only the available ones.
        free = st.blocks > 0 ? (process.getuid?.() === 0 ? st.bfree : st.bavail) * st.bsize : null;
      } catch {
        free = null;
      }
    }
    if (free === null || !Number.isFinite(free)) return;
    const blocks = (n: number) => Math.ceil(n / block) * block;
    let journal = 4096;
    let growth = 0;
    let largest = 0;
    for (const c of changes) {
      const before = c.before?.length ?? 0;
      const after = c.after?.length ?? 0;
      journal += Math.ceil(before / 3) * 4 + Math.ceil(after / 3) * 4 + c.path.length * 2 + 256;
      growth += Math.max(0, blocks(after) - blocks(before));
      largest = Math.max(largest, blocks(after));
    }
    const needed = blocks(journal) + growth + largest;
    if (needed > free) {
      throw new ToolError(
        'DISK_FULL',
        `the wiki's disk has ${free} bytes free and this batch needs about ${needed} (its journal and the new page bytes); nothing was written. Free some space and try again.`,
        { details: { written: false, needed_bytes: needed, free_bytes: free } },
      );
    }
  }

  private async commit(
    state: OpenedDir,
    held: HeldLock,
    changes: PlannedChange[],
    afterWrite?: AfterWriteHook,
  ): Promise<CommitOutcome> {
    const journal: Journal = {
      format: JOURNAL_FORMAT,
      batch_id: randomBytes(8).toString('hex'),
      created_at: new Date().toISOString(),
      pid: process.pid,
      entries: changes.map((c) => ({
        path: c.path,
        before: c.before === null ? null : c.before.toString('base64'),
        after: c.after === null ? null : c.after.toString('base64'),
        before_version: c.previous_version,
        after_version: c.version,
      })),
    };
    try {
      // The journal goes into the held state folder, confirmed inside the wiki before and after.
      state.confirm();
      await writeJournal(state.path, journal);
      state.confirm();
    } catch (e) {
      throw writeError(e, 'could not write the batch journal');
    }
    // Writes first, removals last: a moved page exists at its new path before the old one goes.
    const order = [
      ...changes.filter((c) => c.after !== null),
      ...changes.filter((c) => c.after === null),
    ];
    let index = 0;
    let current = '';
    try {
      for (const c of order) {
        current = c.path;
        await this.hooks.beforeWrite?.(c.path, index);
        // Right before each page: this writer must still hold the lock (one stopped long enough
        // to lose it must not land its old plan over newer edits)...
        if (!held.stillHeld()) throw lockLost(index, order.length);
        // ...and the page must still hold the bytes the plan was made from.
        const now = await this.versionNow(c.path);
        if (now !== c.previous_version) {
          this.rollBack(state, journal, `${c.path} changed on disk while the batch was written`);
          return { kind: 'changed', path: c.path, found: now };
        }
        pageWriteSeam.before?.(c.path, c.after === null ? 'remove' : 'write', c.after?.length ?? 0);
        // Each page is written inside its folder held by descriptor (core's anchored write).
        if (c.after === null) await removeFileInRoot(this.wiki.root, c.path);
        else await writeFileInRoot(this.wiki.root, c.path, c.after, { createParents: true });
        afterWrite?.(c.path, index);
        index++;
      }
    } catch (e) {
      if (isToolError(e) && e.code === 'LOCK_LOST') throw e;
      // Put back what was already written. If that fails too (the disk is still full), the
      // journal stays: every later call finishes or undoes the batch, and the answer says so.
      const failure = writeError(e, `could not write ${current}`);
      this.rollBack(state, journal, failure.message.replace(/; nothing was changed\.$/, ''));
      throw failure;
    }
    removeJournal(state.path);
    return { kind: 'applied' };
  }

  /**
   * Puts back the old bytes of every page the batch already wrote and removes the journal.
   * When some page cannot be put back, the journal stays and a `WRITE_FAILED` error saying the
   * batch is half-applied (never "nothing was changed") is thrown, naming those pages.
   */
  private rollBack(state: OpenedDir, journal: Journal, why: string): void {
    let failed: PendingPage[];
    try {
      failed = applyJournalSide(this.wiki.root, journal, 'before', this.checkPath).failed;
    } catch (e) {
      failed = journal.entries.map((entry) => ({ path: entry.path, errno: errnoOf(e) }));
    }
    if (failed.length === 0) {
      try {
        removeJournal(state.path);
        return;
      } catch (e) {
        failed = [{ path: '.lectern/journal.json', errno: errnoOf(e) }];
      }
    }
    this.lastRecovery = {
      batch_id: journal.batch_id,
      completed: [],
      skipped: [],
      pending: failed,
      temp_files_removed: 0,
      at: new Date().toISOString(),
    };
    throw new ToolError(
      'WRITE_FAILED',
      `${why}, and putting back the pages already written failed too (${showPending(failed)}). The batch is half-applied: its journal is kept in .lectern, and every later call on this wiki tries to finish it (or else undo it); write_batch refuses other batches until then. Free space on the wiki's disk (or fix the error) and call any wiki tool.`,
      { details: { written: true, recovery_pending: true, pending: failed } },
    );
  }
}

/** At most five pending pages, as `path: ERRNO`. */
function showPending(pending: PendingPage[]): string {
  const shown = pending.slice(0, 5).map((p) => `${p.path}: ${p.errno}`);
  return shown.join(', ') + (pending.length > 5 ? `, and ${pending.length - 5} more` : '');
}

function recoveryPending(report: RecoveryReport): ToolError {
  return new ToolError(
    'RECOVERY_PENDING',
    `an earlier batch${report.batch_id ? ` (${report.batch_id})` : ''} could be neither finished nor undone (${showPending(report.pending)}); its journal is kept and every call on this wiki tries again. Nothing was written: free space on the wiki's disk (or fix the error) and send the batch again.`,
    { details: { written: false, batch_id: report.batch_id, pending: report.pending } },
  );
}

function lockLost(done: number, total: number): ToolError {
  return new ToolError(
    'LOCK_LOST',
    `this writer was stopped so long that another writer took the wiki's lock, so it stopped after ${done} of ${total} page(s) instead of writing over newer edits. The batch's journal is left to the writer that took the lock, whose recovery finishes the batch; read the pages again before editing them.`,
    { details: { pages_written: done, pages_total: total } },
  );
}

function pageChanged(path: string, changes: PlannedChange[], found: string | null): ToolError {
  const planned = changes.find((c) => c.path === path)?.previous_version ?? null;
  return new ToolError(
    'VERSION_MISMATCH',
    `page ${path} kept changing on disk while the batch was being planned (another program is editing it); nothing was written. Read it again, or wait until the edits stop, and send the batch again.`,
    { details: { written: false, path, planned_version: planned, current_version: found } },
  );
}

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EMFILE: 'too many open files',
};

/**
 * A `WRITE_FAILED` error for an I/O error: what failed, the errno and its meaning, and that
 * nothing was changed. Never the error's own message, which may show internal paths
 * (`/proc/self/fd/...`) and repeats the code.
 */
function writeError(e: unknown, what: string): ToolError {
  if (isToolError(e)) return e;
  const code = errnoOf(e);
  const meaning = ERRNO_TEXT[code];
  return new ToolError(
    'WRITE_FAILED',
    `${what} (${code}${meaning ? `: ${meaning}` : ''}); nothing was changed.`,
    { details: { written: false, errno: code } },
  );
}

/**
 * The state folder holds page bytes (the journal) and the lock: for the wiki's owner only. A
 * folder an older version made 0755 is tightened when this process owns it.
 */
function tightenStateDir(state: OpenedDir): void {
  if ((state.stat.mode & 0o077) === 0) return;
  if (process.getuid && state.stat.uid !== process.getuid()) return;
  try {
    fchmodSync(state.fd, 0o700);
  } catch {
    /* not ours to change */
  }
}

function rejected(plan: BatchPlan, total: number): ToolError {
  const shown = plan.failures
    .slice(0, 5)
    .map(
      (f) => `${f.index === -1 ? 'log' : `#${f.index} ${f.op} ${f.path}`}: ${f.code}: ${f.message}`,
    )
    .join(' | ');
  const counted = plan.failures.filter((f) => f.index !== -1).length;
  const suggestions = plan.failures.flatMap((f) => f.suggestions ?? []).slice(0, 5);
  return new ToolError(
    'BATCH_REJECTED',
    `write_batch rejected the batch; nothing was written. ${counted} of ${total} operation(s) failed${plan.failures.length > counted ? ' and the log entry failed' : ''}: ${shown}${plan.failures.length > 5 ? ' | ...' : ''}`,
    { details: { written: false, failures: plan.failures }, suggestions },
  );
}

function report(
  plan: BatchPlan & { diffs: Map<string, string> },
  dryRun: boolean,
  warnings: string[],
): BatchResult {
  let budget = MAX_TOTAL_DIFF_CHARS;
  const changes: ReportedChange[] = plan.changes.map((c) => {
    const out: ReportedChange = {
      path: c.path,
      action: c.action,
      cause: c.cause,
      previous_version: c.previous_version,
      version: c.version,
      ...(c.links_updated ? { links_updated: c.links_updated } : {}),
    };
    const diff = plan.diffs.get(c.path);
    if (diff !== undefined) {
      const cap = Math.min(MAX_DIFF_CHARS, budget);
      if (diff.length > cap) {
        out.diff = diff.slice(0, cap);
        out.diff_truncated = true;
      } else {
        out.diff = diff;
      }
      budget -= out.diff.length;
    }
    return out;
  });
  return {
    dry_run: dryRun,
    applied: false,
    operations: plan.operations,
    changes,
    broken_links: plan.broken_links,
    broken_links_truncated: plan.broken_links_truncated,
    log_entry: plan.log_entry,
    warnings: [...warnings, ...plan.warnings],
  };
}
