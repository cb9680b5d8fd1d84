import { findWorkerScript, WorkerHost } from '@lectern/markdown';
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

/** What the worker answers (failures are turned into rejections by the host). */
type Reply = { id: number; parsed: ParsedFile } | { id: number; notText: ArrayBuffer };

const host = new WorkerHost<ParseRequest, Reply>({
  // the compiled worker script: beside this module in dist, or dist's when run from src
  script: () =>
    findWorkerScript(import.meta.url, ['./parse-worker.js', '../../dist/lib/parse-worker.js']),
  name: 'parse worker',
  errorPrefix: 'the parse worker thread failed: ',
  recycleAfter: RECYCLE_BYTES,
  resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
  // after the caller has taken the answer in (and dropped what it replaces)
  onIdle: (bytes) => {
    if (bytes >= COLLECT_AFTER_BYTES) setImmediate(collectIfIdle);
  },
});

/** A full collection on this thread, unless another parse has been sent meanwhile. */
function collectIfIdle(): void {
  if (host.idle()) fullCollection();
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

/** True when the worker script is there (it is missing only when running from unbuilt sources). */
export function parseWorkerAvailable(): boolean {
  return host.available();
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
  // A buffer that holds only these bytes is handed over; one shared with other data (Node's
  // small-Buffer pool) never is: the bytes are copied out of it.
  const alone =
    bytes.byteOffset === 0 &&
    bytes.buffer instanceof ArrayBuffer &&
    (options.wholeBuffer === true || bytes.buffer.byteLength <= bytes.length + 16);
  // (`new Uint8Array` copies; a Buffer's `slice` would not)
  const buffer = alone ? (bytes.buffer as ArrayBuffer) : new Uint8Array(bytes).buffer;
  const length = bytes.length;
  return host
    .request((id) => ({ id, buffer, length }), length, [buffer])
    .then((r) =>
      'notText' in r ? new Uint8Array(r.notText, 0, length) : restoreHeadingPaths(r.parsed),
    );
}
