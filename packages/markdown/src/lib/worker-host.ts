import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ResourceLimits, type Transferable, Worker } from 'node:worker_threads';

/*
 * One worker thread for a job kind, shared by the whole process: started on first use, not
 * keeping the process alive while idle, replaced once it has done enough work (a thread's heap
 * is only given back when the thread ends). Markdown outlines (`async.ts`) and the sections
 * package's file parses both run on one of these.
 */

/** What every request and answer of a {@link WorkerHost} carries: the request's number. */
export interface WorkerMessage {
  id: number;
}

/** An answer that reports a failure inside the worker thread. */
export interface WorkerFailure extends WorkerMessage {
  error: string;
}

/** Options of a {@link WorkerHost}. */
export interface WorkerHostOptions {
  /** Finds the worker script, or `null` when it is missing (unbuilt sources). Asked once. */
  script: () => URL | null;
  /** Names the thread in errors: "the `name` thread exited with code 1". */
  name: string;
  /** Put before a failure's message from the worker (default none). */
  errorPrefix?: string;
  /** After this much work in all (in the callers' units), an idle worker is replaced. */
  recycleAfter: number;
  /** Start the successor as soon as a worker is replaced (default: on the next request). */
  warmSuccessor?: boolean;
  resourceLimits?: ResourceLimits;
  /** Called when the last waiting request is answered, with that request's work. */
  onIdle?: (work: number) => void;
}

/** The first of `candidates` (paths relative to `base`, a module's URL) that exists. */
export function findWorkerScript(base: string, candidates: readonly string[]): URL | null {
  for (const rel of candidates) {
    const url = new URL(rel, base);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return null;
}

interface Job<R> {
  resolve: (reply: R) => void;
  reject: (error: Error) => void;
  work: number;
}

/** A process-wide worker thread answering requests in order (see the file's comment). */
export class WorkerHost<Req extends WorkerMessage, Rep extends WorkerMessage> {
  readonly #options: WorkerHostOptions;
  #script: URL | null | undefined;
  #worker: Worker | null = null;
  /** Work sent to the current worker. */
  #work = 0;
  /** Workers replaced on purpose: their exit is not a failure. */
  readonly #retired = new WeakSet<Worker>();
  #nextId = 0;
  readonly #waiting = new Map<number, Job<Rep>>();

  constructor(options: WorkerHostOptions) {
    this.#options = options;
  }

  /** True when the worker script is there. */
  available(): boolean {
    if (this.#script === undefined) this.#script = this.#options.script();
    return this.#script !== null;
  }

  /** True when no request is waiting for an answer. */
  idle(): boolean {
    return this.#waiting.size === 0;
  }

  /**
   * Sends the request `make(id)` (counting `work` towards the recycling) and resolves to its
   * answer; rejects when the worker reports an error or the thread fails. `transfer` lists the
   * buffers handed over with it. Rejects at once when the script is missing.
   */
  request(make: (id: number) => Req, work: number, transfer?: Transferable[]): Promise<Rep> {
    const w = this.#theWorker();
    if (!w) return Promise.reject(new Error(`the ${this.#options.name} script is missing`));
    const id = this.#nextId++;
    return new Promise<Rep>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject, work });
      w.ref();
      this.#work += work;
      w.postMessage(make(id), transfer);
    });
  }

  #theWorker(): Worker | null {
    if (this.#worker) return this.#worker;
    if (!this.available() || !this.#script) return null;
    const { resourceLimits } = this.#options;
    const w = new Worker(this.#script, resourceLimits ? { resourceLimits } : {});
    w.on('message', (reply: Rep | WorkerFailure) => this.#answer(w, reply));
    w.on('error', (e) => this.#lost(w, e instanceof Error ? e : new Error(String(e))));
    w.on('exit', (code) =>
      this.#lost(w, new Error(`the ${this.#options.name} thread exited with code ${code}`)),
    );
    w.unref();
    this.#worker = w;
    this.#work = 0;
    return w;
  }

  #answer(w: Worker, reply: Rep | WorkerFailure): void {
    const job = this.#waiting.get(reply.id);
    if (!job) return;
    this.#waiting.delete(reply.id);
    if (this.#waiting.size === 0) {
      w.unref();
      if (this.#worker === w && this.#work >= this.#options.recycleAfter) this.#recycle(w);
      this.#options.onIdle?.(job.work);
    }
    if ('error' in reply && typeof reply.error === 'string') {
      job.reject(new Error(`${this.#options.errorPrefix ?? ''}${reply.error}`));
    } else job.resolve(reply as Rep);
  }

  #lost(w: Worker, error: Error): void {
    if (this.#retired.has(w)) return;
    if (this.#worker === w) this.#worker = null;
    for (const job of this.#waiting.values()) job.reject(error);
    this.#waiting.clear();
  }

  /** Ends the idle worker `w`, giving its heap back. */
  #recycle(w: Worker): void {
    this.#retired.add(w);
    this.#worker = null;
    void w.terminate();
    if (this.#options.warmSuccessor) this.#theWorker();
  }
}
