import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Root } from '@lectern/core';
import {
  type FileVerdict,
  type JudgeParams,
  judgeBytes,
  loadAndJudge,
  makePrefilter,
  type PrefilterSpec,
  readBounded,
} from './file-scan.js';
import { findLineMatches } from './match.js';

/** One batch of files of one literal search, judged in order by one worker. */
export interface PoolJob {
  root: Root;
  /** Workspace-relative paths, as the walk gave them. */
  paths: string[];
  /** Largest file searched. */
  cap: number;
  /** The prefilter of the query, or null for none. */
  prefilter: PrefilterSpec | null;
  params: JudgeParams;
}

/*
 * A worker opens each file with the root guard's own synchronous open (the same module the
 * main thread uses, loaded into the worker), so a worker reads exactly what the main thread
 * would: links, hard links, reserved names and swapped folders are refused the same way. The
 * per-file code is the main thread's, passed as source text.
 */
const workerSource = (coreUrl: string) => `
const { parentPort } = require('node:worker_threads');
const { readSync, closeSync } = require('node:fs');
const { isUtf8 } = require('node:buffer');
const findLineMatches = (${findLineMatches.toString()});
const makePrefilter = (${makePrefilter.toString()});
const readBounded = (${readBounded.toString()});
const judgeBytes = (${judgeBytes.toString()});
const loadAndJudge = (${loadAndJudge.toString()});
let deps;
let lastKey = '';
let lastCheck;
const queue = [];
const handle = (msg) => {
  if (msg.stop) {
    parentPort.close();
    return;
  }
  const key = msg.prefilter ? JSON.stringify(msg.prefilter) : '';
  if (key !== lastKey) {
    lastKey = key;
    lastCheck = msg.prefilter ? makePrefilter(msg.prefilter) : undefined;
  }
  const results = msg.paths.map((path) =>
    loadAndJudge(msg.root, path, msg.cap, lastCheck, msg.params, true, deps));
  parentPort.postMessage({ id: msg.id, results });
};
parentPort.on('message', (msg) => (deps ? handle(msg) : queue.push(msg)));
import(${JSON.stringify(coreUrl)}).then((core) => {
  deps = {
    openInRootSync: core.openInRootSync,
    isToolError: core.isToolError,
    readSync, closeSync, isUtf8, readBounded, scratch: { buf: undefined }, judgeBytes, findLineMatches,
  };
  parentPort.postMessage({ ready: true });
  for (const msg of queue.splice(0)) handle(msg);
}, () => process.exit(1));
`;

interface Slot {
  worker: Worker;
  online: boolean;
  /** Jobs sent and not answered, by id. */
  pending: Map<number, (results: FileVerdict[] | null) => void>;
}

/** Workers idle this long are stopped (the next large search starts them again). */
const IDLE_MS = 30_000;
/** How long {@link SearchPool.close} lets workers finish their jobs before stopping them. */
const STOP_GRACE_MS = 10_000;

let source: string | undefined;

/**
 * Worker threads for literal searches, one per core, started on first use and shared by every
 * search of the process. A job resolves to one verdict per path, in order, or to null when its
 * worker stopped before answering (the thread died): the caller then does the work itself.
 * Idle workers never keep the process alive.
 */
export class SearchPool {
  #slots: Slot[] = [];
  #nextId = 0;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(readonly size: number = Math.max(1, availableParallelism())) {}

  /** Workers started and able to take jobs. */
  get onlineCount(): number {
    return this.#slots.filter((s) => s.online).length;
  }

  /** Workers started (online or starting). */
  get workerCount(): number {
    return this.#slots.length;
  }

  /** True when at least one worker can take a job now. */
  ready(): boolean {
    return this.#slots.some((s) => s.online);
  }

  /** Starts the workers if none are running; does not wait for them. */
  warm(): void {
    if (this.#slots.length > 0) return;
    if (source === undefined) {
      const core = createRequire(import.meta.url).resolve('@lectern/core');
      source = workerSource(pathToFileURL(core).href);
    }
    for (let i = 0; i < this.size; i++) this.#spawn(source);
    this.#touch();
  }

  /** Resolves once at least one worker is online (starting them if needed). */
  async whenReady(): Promise<void> {
    this.warm();
    while (!this.ready()) {
      if (this.#slots.length === 0) throw new Error('search workers could not start');
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  #spawn(code: string): void {
    const worker = new Worker(code, { eval: true });
    const slot: Slot = { worker, online: false, pending: new Map() };
    worker.unref();
    worker.on('message', (msg: { id: number; results: FileVerdict[]; ready?: boolean }) => {
      if (msg.ready) {
        slot.online = true;
        return;
      }
      const done = slot.pending.get(msg.id);
      if (!done) return;
      slot.pending.delete(msg.id);
      if (slot.pending.size === 0) worker.unref();
      done(msg.results);
      this.#touch();
    });
    // Errors are followed by 'exit'; the work of a stopped worker falls back to the caller.
    worker.on('error', () => {});
    worker.once('exit', () => {
      const i = this.#slots.indexOf(slot);
      if (i !== -1) this.#slots.splice(i, 1);
      slot.online = false;
      for (const done of slot.pending.values()) done(null);
      slot.pending.clear();
    });
    this.#slots.push(slot);
  }

  /** True when some online worker has fewer than `depth` jobs waiting. */
  hasRoom(depth: number): boolean {
    return this.#slots.some((s) => s.online && s.pending.size < depth);
  }

  /** Sends a job to the least busy online worker; null when none is online. */
  run(job: PoolJob): Promise<FileVerdict[] | null> {
    let best: Slot | undefined;
    for (const s of this.#slots) {
      if (s.online && (!best || s.pending.size < best.pending.size)) best = s;
    }
    if (!best) return Promise.resolve(null);
    const slot = best;
    const id = this.#nextId++;
    return new Promise((resolve) => {
      if (slot.pending.size === 0) slot.worker.ref();
      slot.pending.set(id, resolve);
      slot.worker.postMessage({ id, ...job });
    });
  }

  #touch(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#slots.every((s) => s.pending.size === 0)) void this.close();
      else this.#touch();
    }, IDLE_MS);
    this.#idleTimer.unref();
  }

  /**
   * Stops every worker once it has answered the jobs it was given (each job is a bounded
   * batch), and resolves when all have exited; a worker still busy after 10 s is terminated
   * (its unanswered jobs fall back to their searches). The pool starts again on its next use.
   */
  async close(): Promise<void> {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const slots = this.#slots.splice(0);
    await Promise.all(
      slots.map(async (s) => {
        s.online = false;
        const exited = new Promise<void>((resolve) => s.worker.once('exit', () => resolve()));
        s.worker.ref();
        s.worker.postMessage({ stop: true });
        const timer = setTimeout(() => void s.worker.terminate(), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}

/** The process's search pool. */
export const searchPool = new SearchPool();

/**
 * Stops the worker threads of `search_text` (they start again with the next large search).
 * Servers call it when they shut down; idle workers also stop by themselves after 30 s.
 */
export function closeSearchWorkers(): Promise<void> {
  return searchPool.close();
}
