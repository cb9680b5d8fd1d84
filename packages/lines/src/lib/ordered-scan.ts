import type { Root } from '@lectern/core';
import {
  type FileVerdict,
  HERE,
  type JudgeParams,
  loadAndJudge,
  type PrefilterSpec,
} from './file-scan.js';
import { type SearchPool, searchPool } from './search-pool.js';

/**
 * When a search hands files to the worker pool: `auto` whenever workers are online, and a
 * search starts them (in the background; this thread goes on meanwhile) once it has proved
 * large (see {@link POOL_AFTER_FILES}, {@link POOL_AFTER_BYTES}); `always` for every file,
 * waiting for the workers (tests); `off` never.
 */
export type PoolMode = 'auto' | 'always' | 'off';

let poolMode: PoolMode = 'auto';

/** Sets when searches use the worker pool (for tests that compare both ways). */
export function setSearchPoolMode(mode: PoolMode): void {
  poolMode = mode;
}

/** A search that has met this many files starts using the pool. */
export const POOL_AFTER_FILES = 48;
/** Nor is a search that has read this many bytes on the main thread small. */
export const POOL_AFTER_BYTES = 2 * 1024 * 1024;
/**
 * A batch (one worker message) closes at this many files. A round trip costs both threads
 * about as much CPU as reading and checking a few typical files, so batches are large enough
 * to make it small next to their work (16 cost ~10 % more CPU per search than 32), and small
 * enough that two per worker stay well inside the read-ahead window.
 */
const BATCH_FILES = 32;
/** Batches queued at one worker; later ones wait here, so the load stays even. */
const WORKER_DEPTH = 2;
/** Most files opened or handed out ahead of the one the caller is waiting for. */
const WINDOW_FILES = 192;

/** How one search reads and judges its files. */
export interface ScanPlan {
  root: Root;
  /** Largest file searched (bigger ones are `too_large`). */
  maxFileBytes: number;
  /** The literal prefilter; null for none. */
  prefilter: PrefilterSpec | null;
  /** The same check, built on this thread. */
  mayMatch: ((bytes: Buffer) => boolean) | undefined;
  params: JudgeParams;
  /**
   * True to scan each file's text here or in a worker (literal queries, which cannot
   * backtrack); false to return the decoded text for the caller's own timed scan (regex).
   */
  scan: boolean;
  /**
   * Bytes the caller has consumed so far (it stops at its byte budget): while it is at or past
   * `maxSearchBytes`, no file is handed out ahead of it.
   */
  consumed: () => number;
  maxSearchBytes: number;
  /** Defaults to the process's pool. */
  pool?: SearchPool;
}

interface Batch {
  paths: string[];
  /** Set once sent to a worker. */
  promise?: Promise<FileVerdict[] | null>;
  /** Set once judged on this thread instead. */
  local?: FileVerdict[];
  settled: boolean;
}

interface Item {
  path: string;
  verdict?: FileVerdict;
  batch?: Batch;
  index: number;
}

/**
 * Reads and judges `paths`, yielding each path with its verdict in exactly that order, whether
 * the work ran here or on a worker. Workers open files with the same root guard as this thread
 * (see `search-pool.ts`), and only paths this search's walk produced. Work is handed out at
 * most a bounded window ahead of the caller, and none while the caller is at its byte budget,
 * so a caller that stops early (match, output or byte limits) wastes little, all of it bounded.
 */
export async function* scanInOrder(
  paths: AsyncIterable<string>,
  plan: ScanPlan,
): AsyncGenerator<[string, FileVerdict]> {
  const pool = plan.pool ?? searchPool;
  const mode: PoolMode = plan.scan ? poolMode : 'off';
  const window: Item[] = [];
  let filling: Batch | undefined;
  let seen = 0;
  let localBytes = 0;

  const local = (path: string): FileVerdict =>
    loadAndJudge(plan.root, path, plan.maxFileBytes, plan.mayMatch, plan.params, plan.scan, HERE);

  /** Closed batches not sent yet (each worker holds at most WORKER_DEPTH); sent in order. */
  const queued: Batch[] = [];

  const send = (batch: Batch) => {
    batch.promise = pool
      .run({
        root: plan.root,
        paths: batch.paths,
        cap: plan.maxFileBytes,
        prefilter: plan.prefilter,
        params: plan.params,
      })
      .then((results) => {
        batch.settled = true;
        pump();
        return results;
      });
  };

  const pump = () => {
    while (queued.length > 0 && pool.hasRoom(WORKER_DEPTH)) send(queued.shift()!);
  };

  const close = (batch: Batch) => {
    if (filling === batch) filling = undefined;
    queued.push(batch);
    pump();
  };

  const judgeHere = (batch: Batch) => {
    const i = queued.indexOf(batch);
    if (i !== -1) queued.splice(i, 1);
    if (filling === batch) filling = undefined;
    batch.local = batch.paths.map(local);
    batch.settled = true;
  };

  const headReady = () => {
    const head = window[0];
    return head !== undefined && (head.verdict !== undefined || head.batch?.settled === true);
  };

  const takeHead = async (): Promise<[string, FileVerdict]> => {
    const item = window.shift()!;
    if (item.verdict) return [item.path, item.verdict];
    const batch = item.batch!;
    if (!batch.promise && !batch.local) judgeHere(batch);
    if (batch.local) return [item.path, batch.local[item.index]!];
    // (Taking waiting batches on this thread while the workers are busy was tried: slower on
    // a loaded 2-core machine, as this thread then stops walking and collecting answers.)
    const results = await batch.promise!;
    // A worker that stopped before answering leaves its files to this thread.
    return [item.path, results?.[item.index] ?? local(item.path)];
  };

  for await (const path of paths) {
    while (
      window.length > 0 &&
      (window.length >= WINDOW_FILES || plan.consumed() >= plan.maxSearchBytes)
    ) {
      yield await takeHead();
    }
    seen++;
    let remote = false;
    if (mode === 'always') {
      // The pool may be closed while it starts (a server shutting down): this thread then
      // reads the file itself, as it does for the jobs of a worker that stopped.
      remote = await pool.whenReady().then(
        () => true,
        () => false,
      );
    } else if (mode === 'auto') {
      // Running workers cost one message per batch; starting them is only worth it once a
      // search has proved large (they start in the background while this thread goes on).
      if (!pool.ready() && (seen > POOL_AFTER_FILES || localBytes >= POOL_AFTER_BYTES)) {
        pool.warm();
      }
      remote = pool.ready();
    }
    if (remote) {
      if (!filling) filling = { paths: [], settled: false };
      const batch = filling;
      window.push({ path, batch, index: batch.paths.length });
      batch.paths.push(path);
      if (batch.paths.length >= BATCH_FILES) close(batch);
    } else {
      const verdict = local(path);
      if (verdict.kind !== 'too_large' && verdict.kind !== 'unreadable') {
        localBytes += verdict.length;
      }
      window.push({ path, verdict, index: 0 });
    }
    while (headReady()) yield await takeHead();
  }
  if (filling) close(filling);
  while (window.length > 0) yield await takeHead();
}
