import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type FileMatches, findLineMatches } from './match.js';

/** Parameters of a scan, shared by every text of one search. */
export interface ScanParams {
  source: string;
  flags: string;
  cap: number;
  contextLines: number;
  maxChars: number;
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const findLineMatches = (${findLineMatches.toString()});
parentPort.on('message', (msg) => {
  try {
    const results = msg.texts.map((text) =>
      findLineMatches(text, msg.params.source, msg.params.flags, msg.params.cap, msg.params.contextLines, msg.params.maxChars));
    parentPort.postMessage({ id: msg.id, results });
  } catch (error) {
    parentPort.postMessage({ id: msg.id, error: String(error && error.message || error) });
  }
});
`;

const idle: Worker[] = [];
const MAX_IDLE = 2;

/** Callers waiting for a worker: each gets an idle one, or leave to start a new one. */
const waiting: Array<(handoff: Worker | 'start') => void> = [];
/** Regex worker threads alive now (busy, idle or terminating), and the most seen at once. */
let alive = 0;
let peakAlive = 0;
/** Calls whose budget ran out while they waited in line. */
let lineTimeouts = 0;

/**
 * Worker threads of regex scans in this process: alive now, the most at once, callers queued,
 * and calls whose budget ran out in line (since the last {@link resetRegexWorkerPeak}).
 */
export function regexWorkerStats(): {
  alive: number;
  peak: number;
  queued: number;
  lineTimeouts: number;
} {
  return { alive, peak: peakAlive, queued: waiting.length, lineTimeouts };
}

/** Forgets the peak and the count of timeouts in line (tests measure one burst at a time). */
export function resetRegexWorkerPeak(): void {
  peakAlive = alive;
  lineTimeouts = 0;
}

/** A worker thread has exited: its slot goes to the first caller waiting, who starts one. */
function onWorkerExit(): void {
  alive--;
  waiting.shift()?.('start');
}

/** Starts a worker thread (its slot is already counted). */
async function startWorker(): Promise<Worker> {
  const fresh = new Worker(WORKER_SOURCE, { eval: true });
  fresh.once('exit', onWorkerExit);
  fresh.unref();
  // The budget is for scanning, not for starting a thread (slow on a loaded machine).
  await new Promise<void>((resolve, reject) => {
    fresh.once('online', resolve);
    fresh.once('error', reject);
  });
  return fresh;
}

/**
 * Runs regular-expression scans on a worker thread with a time budget, so a pattern that
 * backtracks catastrophically cannot block the server: on overrun the worker is terminated
 * and {@link RegexScanner.scan} resolves to `'timeout'`. One scanner serves one search call;
 * its budget is the total time spent waiting for a worker and for scans (starting a worker
 * thread does not count). At most `maxWorkers` threads are alive in the process (busy, idle or
 * being terminated); a call past that waits in line, and its wait counts in its budget. Idle
 * workers are kept (at most two, unreferenced so they never keep a process alive) and reused.
 */
export class RegexScanner {
  #worker: Worker | undefined;
  #remainingMs: number;
  #nextId = 0;

  constructor(
    private readonly params: ScanParams,
    budgetMs: number,
    private readonly maxWorkers = Math.max(1, availableParallelism()),
  ) {
    this.#remainingMs = budgetMs;
  }

  /** Time left in the budget, in milliseconds. */
  get remainingMs(): number {
    return this.#remainingMs;
  }

  /** A worker for this call, or `'timeout'` when the budget ran out waiting in line. */
  async #acquire(): Promise<Worker | 'timeout'> {
    if (this.#worker) return this.#worker;
    let worker = idle.pop();
    if (!worker && alive >= this.maxWorkers) {
      const started = performance.now();
      const handoff = await new Promise<Worker | 'start' | 'timeout'>((resolve) => {
        const take = (h: Worker | 'start') => {
          clearTimeout(timer);
          resolve(h);
        };
        const timer = setTimeout(() => {
          const at = waiting.indexOf(take);
          if (at !== -1) waiting.splice(at, 1);
          resolve('timeout');
        }, this.#remainingMs);
        waiting.push(take);
      });
      this.#remainingMs -= performance.now() - started;
      if (handoff === 'timeout') {
        lineTimeouts++;
        return 'timeout';
      }
      if (handoff !== 'start') worker = handoff;
    }
    if (!worker) {
      alive++;
      peakAlive = Math.max(peakAlive, alive);
      worker = await startWorker();
    }
    this.#worker = worker;
    return worker;
  }

  /** Scans texts in order; `'timeout'` when the budget ran out (the worker is then killed). */
  async scan(texts: string[]): Promise<FileMatches[] | 'timeout'> {
    if (this.#remainingMs <= 0) return 'timeout';
    const worker = await this.#acquire();
    if (worker === 'timeout') return 'timeout';
    const id = this.#nextId++;
    const started = performance.now();
    const outcome = await new Promise<FileMatches[] | 'timeout' | Error>((resolve) => {
      const timer = setTimeout(() => {
        cleanup();
        resolve('timeout');
      }, this.#remainingMs);
      const onMessage = (msg: { id: number; results?: FileMatches[]; error?: string }) => {
        if (msg.id !== id) return;
        cleanup();
        resolve(msg.results ?? new Error(msg.error ?? 'regex worker failed'));
      };
      const onError = (error: Error) => {
        cleanup();
        resolve(error);
      };
      const onExit = () => {
        cleanup();
        resolve(new Error('regex worker exited'));
      };
      const cleanup = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, texts, params: this.params });
    });
    this.#remainingMs -= performance.now() - started;
    if (outcome === 'timeout' || outcome instanceof Error) {
      this.#worker = undefined;
      void worker.terminate();
      if (outcome instanceof Error) throw outcome;
      return 'timeout';
    }
    return outcome;
  }

  /** Returns the worker to the idle pool (call once, when the search is done). */
  release(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    if (!worker) return;
    const next = waiting.shift();
    if (next) next(worker);
    else if (idle.length < MAX_IDLE) idle.push(worker);
    else void worker.terminate();
  }
}
