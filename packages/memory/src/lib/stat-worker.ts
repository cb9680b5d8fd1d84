import { Worker } from 'node:worker_threads';

/**
 * The worker's code, given as source text (no file to resolve next to the build). It lstats a
 * list of absolute paths (or, for `null`, the list it was sent last) and answers four numbers per
 * path: 1 for a regular file (else 0), size, change time (the later of mtime and ctime, see
 * `changeTime` in walk.ts), inode.
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
let paths = [];
parentPort.on('message', (list) => {
  if (list !== null) paths = list;
  const out = new Float64Array(paths.length * 4);
  for (let i = 0; i < paths.length; i++) {
    let st;
    try {
      st = lstatSync(paths[i], { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (st !== undefined && st.isFile()) {
      out[i * 4] = 1;
      out[i * 4 + 1] = st.size;
      out[i * 4 + 2] = Math.max(st.mtimeMs, st.ctimeMs);
      out[i * 4 + 3] = st.ino;
    }
  }
  parentPort.postMessage(out, [out.buffer]);
});
`;

/**
 * One helper thread that lstats files for a store's reindex walks, so on a machine with a free
 * core the walk of a large source stats half its files there while the main thread stats the
 * other half. Started on first use and kept for the store's life; it never keeps the process
 * alive while idle. A failure of the thread rejects the pending request (the walk then stats
 * those files itself) and the next request starts a new thread.
 */
export class StatWorker {
  #worker: Worker | undefined;
  #pending: Array<{ resolve: (out: Float64Array) => void; reject: (e: unknown) => void }> = [];
  #closed = false;
  /** Walks left to go without the thread (it did not pay on a busy machine). */
  #skip = 0;
  /** Walks to go without the thread after one where it did not pay. */
  static readonly SKIP_WALKS = 8;

  /**
   * Whether a walk should share its stats with the thread now: false for a few walks after one
   * where sharing did not pay.
   */
  worthAsking(): boolean {
    if (this.#skip === 0) return true;
    this.#skip--;
    return false;
  }

  /**
   * Judges a shared walk: `aloneMs` estimates how long the calling thread would have taken to
   * stat every file itself (its own share's time, scaled to all the files), `totalMs` is how
   * long the shared walk took until the thread's answer came back too. When sharing saved
   * less than a tenth twice in a row (no free core: the machine is busy), the next
   * {@link SKIP_WALKS} walks go without the thread, then it is tried again.
   */
  judge(aloneMs: number, totalMs: number): void {
    // A thread's first answer includes its start-up: not a fair judgement.
    if (this.#startedForLast) return;
    if (totalMs < 0.9 * aloneMs) {
      this.#poor = 0;
      return;
    }
    // One slow answer can be a pause of the thread; two in a row mean no free core.
    if (++this.#poor >= 2) {
      this.#poor = 0;
      this.#skip = StatWorker.SKIP_WALKS;
    }
  }

  /** Shared walks in a row that did not pay. */
  #poor = 0;

  /** True when the last request had to start the thread. */
  #startedForLast = false;

  /** The list the thread holds: asking for the same array again sends only `null`. */
  #sent: readonly string[] | undefined;

  /**
   * lstat of each absolute path: `[isFile, size, mtimeMs, ino]` per path. Passing the same
   * array as the previous call (unchanged listings) spares copying the paths to the thread.
   */
  stat(paths: readonly string[]): Promise<Float64Array> {
    if (this.#closed) return Promise.reject(new Error('the stat worker is closed'));
    this.#startedForLast = this.#worker === undefined;
    const worker = this.#start();
    return new Promise((resolve, reject) => {
      this.#pending.push({ resolve, reject });
      worker.ref();
      worker.postMessage(paths === this.#sent ? null : paths);
      this.#sent = paths;
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(SOURCE, { eval: true });
    worker.unref();
    const fail = (error: unknown) => {
      if (this.#worker === worker) {
        this.#worker = undefined;
        this.#sent = undefined;
      }
      for (const p of this.#pending.splice(0)) p.reject(error);
    };
    worker.on('message', (out: Float64Array) => {
      const p = this.#pending.shift();
      if (this.#pending.length === 0) worker.unref();
      p?.resolve(out);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the stat worker exited (${code})`)));
    this.#worker = worker;
    return worker;
  }

  /** Stops the thread; later requests fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }
}
