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

/**
 * Runs regular-expression scans on a worker thread with a time budget, so a pattern that
 * backtracks catastrophically cannot block the server: on overrun the worker is terminated
 * and {@link RegexScanner.scan} resolves to `'timeout'`. One scanner serves one search call;
 * its budget is the total time spent waiting for scans (starting a worker thread does not count). Idle workers are kept (at most two,
 * unreferenced so they never keep a process alive) and reused.
 */
export class RegexScanner {
  #worker: Worker | undefined;
  #remainingMs: number;
  #nextId = 0;

  constructor(
    private readonly params: ScanParams,
    budgetMs: number,
  ) {
    this.#remainingMs = budgetMs;
  }

  /** Time left in the budget, in milliseconds. */
  get remainingMs(): number {
    return this.#remainingMs;
  }

  async #acquire(): Promise<Worker> {
    if (this.#worker) return this.#worker;
    let worker = idle.pop();
    if (!worker) {
      const fresh = new Worker(WORKER_SOURCE, { eval: true });
      // The budget is for scanning, not for starting a thread (slow on a loaded machine).
      await new Promise<void>((resolve, reject) => {
        fresh.once('online', resolve);
        fresh.once('error', reject);
      });
      worker = fresh;
    }
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  /** Scans texts in order; `'timeout'` when the budget ran out (the worker is then killed). */
  async scan(texts: string[]): Promise<FileMatches[] | 'timeout'> {
    if (this.#remainingMs <= 0) return 'timeout';
    const worker = await this.#acquire();
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
    if (idle.length < MAX_IDLE) idle.push(worker);
    else void worker.terminate();
  }
}
