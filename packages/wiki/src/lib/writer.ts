import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  isToolError,
  type OpenedDir,
  openStateDirSync,
  removeFileInRoot,
  ToolError,
  writeFileInRoot,
} from '@lectern/core';
import { type BatchPlan, BatchPlanner, type Operation, type PlannedChange } from './batch.js';
import {
  applyJournalSide,
  hasJournal,
  JOURNAL_FORMAT,
  type Journal,
  type RecoveryReport,
  recover,
  removeJournal,
  writeJournal,
} from './journal.js';
import { LOCK_WAIT_MS, WikiLock } from './lock.js';
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
      let held: ReturnType<WikiLock['tryAcquire']>;
      try {
        held = new WikiLock(state.path).tryAcquire();
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') return null;
        throw e;
      }
      if (!held) return null;
      try {
        const report = recover(this.wiki.root, state.path, this.checkPath);
        if (report) this.lastRecovery = report;
        return report;
      } finally {
        held.release();
      }
    } finally {
      state.close();
    }
  }

  /**
   * Before a read: when a journal is waiting and no live writer holds the lock, recover now,
   * so no reader sees a half-applied batch left by a crash.
   */
  async ensureRecovered(): Promise<void> {
    if (!hasJournal(this.stateDir)) return;
    await this.serial(async () => {
      const state = this.openState(false);
      if (!state) return;
      try {
        if (!hasJournal(state.path)) return;
        const held = new WikiLock(state.path).tryAcquire();
        if (!held) return;
        try {
          const report = recover(this.wiki.root, state.path, this.checkPath);
          if (report) this.lastRecovery = report;
        } finally {
          held.release();
        }
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
    let held: Awaited<ReturnType<WikiLock['acquire']>>;
    try {
      state = this.openState(true)!;
    } catch (e) {
      throw writeError(e, 'open the state folder');
    }
    try {
      try {
        held = await new WikiLock(state.path).acquire(LOCK_WAIT_MS, signal);
      } catch (e) {
        throw writeError(e, 'take the wiki lock');
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
    held: Awaited<ReturnType<WikiLock['acquire']>>,
    input: BatchInput,
    signal?: AbortSignal,
    afterWrite?: AfterWriteHook,
  ): Promise<BatchResult> {
    const warnings: string[] = [];
    if (hasJournal(state.path)) {
      const report = recover(this.wiki.root, state.path, this.checkPath);
      if (report) {
        this.lastRecovery = report;
        warnings.push(
          `finished an interrupted batch${report.batch_id ? ` (${report.batch_id})` : ''} before this one: ${report.completed.length} page(s) completed${report.skipped.length ? `, ${report.skipped.length} left as found` : ''}.`,
        );
      }
    }
    const files = (await this.wiki.scan()).map((f) => f.path);
    const planner = new BatchPlanner(this.wiki, files);
    const plan = await planner.plan(input.operations, {
      log: input.log,
      diffs: input.dry_run === true,
    });
    if (plan.failures.length > 0) throw rejected(plan, input.operations.length);
    const result = report(plan, input.dry_run === true, warnings);
    if (input.dry_run || plan.changes.length === 0) return result;
    if (signal?.aborted) {
      throw new ToolError('CANCELLED', 'the request was cancelled before anything was written.');
    }
    if (!held.stillHeld()) {
      throw new ToolError(
        'LOCK_LOST',
        'the wiki lock was taken over while the batch was being planned; nothing was written. Try again.',
      );
    }
    await this.commit(state, plan.changes, afterWrite);
    return { ...result, applied: true };
  }

  private async commit(
    state: OpenedDir,
    changes: PlannedChange[],
    afterWrite?: AfterWriteHook,
  ): Promise<void> {
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
      throw writeError(e, 'write the batch journal');
    }
    let index = 0;
    try {
      for (const c of changes) {
        // Each page is written inside its folder held by descriptor (core's anchored write).
        if (c.after === null) await removeFileInRoot(this.wiki.root, c.path);
        else await writeFileInRoot(this.wiki.root, c.path, c.after, { createParents: true });
        afterWrite?.(c.path, index++);
      }
    } catch (e) {
      // Put back what was already written; if that fails too, the journal stays and the next
      // start finishes the batch instead. Either way no page is left half-changed.
      try {
        const back = applyJournalSide(this.wiki.root, journal, 'before', this.checkPath);
        if (back.skipped.length === 0) removeJournal(state.path);
      } catch {
        /* recovery will roll forward */
      }
      throw writeError(e, 'apply the batch');
    }
    removeJournal(state.path);
  }
}

function writeError(e: unknown, what: string): ToolError {
  if (isToolError(e)) return e;
  const code = (e as NodeJS.ErrnoException).code ?? 'UNKNOWN';
  return new ToolError(
    'WRITE_FAILED',
    `could not ${what} (${code}: ${(e as Error).message}); nothing was changed.`,
    { details: { errno: code } },
  );
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
