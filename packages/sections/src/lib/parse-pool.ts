import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type ParsedFile, restoreHeadingPaths } from './parse.js';
import type { ParseRequest } from './parse-worker.js';

/*
 * One parse worker thread for the process (started on first use, not keeping the process
 * alive when idle). A file's bytes are transferred to it and its stored model transferred
 * back, so a large document's text only ever lives on the worker's heap.
 */

/** Files from this many bytes on are parsed in the worker thread. */
export const PARSE_WORKER_MIN_BYTES = 64 * 1024;

/**
 * After parsing this many bytes in all, an idle worker is replaced by a fresh one: a large
 * parse grows its heap, and a thread's heap is only given back when the thread ends.
 */
const RECYCLE_BYTES = 8 * 1024 * 1024;

/**
 * The worker's young generation, in MiB (V8's default lets it grow to 48): a parse allocates
 * many short-lived objects, and a small nursery collects them more often instead of holding
 * them. Measured on a 10 MB document: the process peak is about 10 MB lower when parsing,
 * for no measurable CPU.
 */
const WORKER_YOUNG_MB = 4;

/**
 * After an answer for this many bytes of input, once the worker is idle, this thread runs a
 * full garbage collection: the stored model just received replaces the previous version's,
 * and V8 would otherwise keep both (and the copies' garbage) until its old generation fills,
 * so each re-parse of a large file stacked a few MB on the next one's peak. Measured on a
 * 10 MB document changed 8 times: process peak about 40 MB lower, for a collection of a few
 * tens of milliseconds after a parse of several hundred.
 */
const COLLECT_AFTER_BYTES = 1024 * 1024;

let collections = 0;

/** How many full collections ran after large answers so far (for tests). */
export function collectionsRun(): number {
  return collections;
}

/**
 * Runs the host's full collection, when the host exposes one as `globalThis.gc` (`node
 * --expose-gc`; the `lectern` command does it at start-up). A library does not switch V8 flags
 * of the process it runs in: without `gc` the memory is still given back, when V8 decides.
 */
function fullCollection(): void {
  const gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') return;
  (gc as () => void)();
  collections++;
}

/** What the worker answers. */
type Reply =
  | { id: number; parsed: ParsedFile }
  | { id: number; notText: ArrayBuffer }
  | { id: number; error: string };

interface Job {
  resolve: (r: ParsedFile | Uint8Array) => void;
  reject: (e: Error) => void;
  length: number;
}

let worker: Worker | null = null;
let workerBytes = 0;
const retired = new WeakSet<Worker>();
let nextId = 0;
const waiting = new Map<number, Job>();

/** The compiled worker script: beside this module in dist, or dist's when run from src. */
let found: URL | null | undefined;

function workerFile(): URL | null {
  if (found !== undefined) return found;
  found = null;
  for (const rel of ['./parse-worker.js', '../../dist/lib/parse-worker.js']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(fileURLToPath(url))) {
      found = url;
      break;
    }
  }
  return found;
}

function failAll(error: Error): void {
  for (const job of waiting.values()) job.reject(error);
  waiting.clear();
}

function theWorker(): Worker | null {
  if (worker) return worker;
  const file = workerFile();
  if (!file) return null;
  const w = new Worker(file, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
  w.on('message', (reply: Reply) => {
    const job = waiting.get(reply.id);
    if (!job) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) {
      w.unref();
      if (worker === w && workerBytes >= RECYCLE_BYTES) recycle(w);
      // after the caller has taken the answer in (and dropped what it replaces)
      if (job.length >= COLLECT_AFTER_BYTES) setImmediate(collectIfIdle);
    }
    if ('error' in reply) job.reject(new Error(`the parse worker thread failed: ${reply.error}`));
    else if ('notText' in reply) job.resolve(new Uint8Array(reply.notText, 0, job.length));
    else job.resolve(restoreHeadingPaths(reply.parsed));
  });
  w.on('error', (e) => {
    if (retired.has(w)) return;
    if (worker === w) worker = null;
    failAll(e instanceof Error ? e : new Error(String(e)));
  });
  w.on('exit', (code) => {
    if (retired.has(w)) return;
    if (worker === w) worker = null;
    failAll(new Error(`the parse worker thread exited with code ${code}`));
  });
  w.unref();
  worker = w;
  workerBytes = 0;
  return w;
}

/** A full collection on this thread, unless another parse has been sent meanwhile. */
function collectIfIdle(): void {
  if (waiting.size === 0) fullCollection();
}

/**
 * Bytes of documents indexed on this thread after which the same full collection runs: their
 * texts and the copies made of them are garbage afterwards, and a text of more than ~128 KiB
 * lives in V8's large-object space, which only a full collection frees. Searching a 50 MB tree
 * for the first time kept ~100 MB of such garbage without it; a collection every 4 MiB costs
 * about a dozen of them (tens of ms each) for that tree.
 */
const COLLECT_AFTER_WORK_BYTES = 4 * 1024 * 1024;

let workBytes = 0;

/**
 * Counts work on this thread over `bytes` bytes of a document (a large document's search data
 * is built here); once {@link COLLECT_AFTER_WORK_BYTES} have been counted, the same full
 * collection as after a large parse answer, on the next turn.
 */
export function collectSoon(bytes: number): void {
  workBytes += bytes;
  if (workBytes < COLLECT_AFTER_WORK_BYTES) return;
  workBytes = 0;
  setImmediate(collectIfIdle);
}

/**
 * Ends the idle worker `w`, giving its heap back; the next parse starts a fresh one (an idle
 * successor would hold its own heap until then).
 */
function recycle(w: Worker): void {
  retired.add(w);
  worker = null;
  void w.terminate();
}

/** True when the worker script is there (it is missing only when running from unbuilt sources). */
export function parseWorkerAvailable(): boolean {
  return workerFile() !== null;
}

/**
 * Parses a file's bytes in the worker thread. The bytes are handed over: afterwards `bytes`
 * is empty on this thread (a copy is sent when they share a buffer with other data). With
 * `wholeBuffer`, the caller says the buffer the bytes start belongs to them alone, however long
 * it is, and it is handed over as it is. Resolves to the parsed file, or, when the bytes are not
 * text (a NUL byte or malformed UTF-8), to the bytes themselves so the caller can report the
 * exact decoding error.
 */
export function parseInWorker(
  bytes: Uint8Array,
  options: { wholeBuffer?: boolean } = {},
): Promise<ParsedFile | Uint8Array> {
  const w = theWorker();
  if (!w) return Promise.reject(new Error('the parse worker script is missing'));
  // A buffer that holds only these bytes is handed over; one shared with other data (Node's
  // small-Buffer pool) never is: the bytes are copied out of it.
  const alone =
    bytes.byteOffset === 0 &&
    bytes.buffer instanceof ArrayBuffer &&
    (options.wholeBuffer === true || bytes.buffer.byteLength <= bytes.length + 16);
  // (`new Uint8Array` copies; a Buffer's `slice` would not)
  const buffer = alone ? (bytes.buffer as ArrayBuffer) : new Uint8Array(bytes).buffer;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject, length: bytes.length });
    w.ref();
    workerBytes += bytes.length;
    const req: ParseRequest = { id, buffer, length: bytes.length };
    w.postMessage(req, [buffer]);
  });
}
