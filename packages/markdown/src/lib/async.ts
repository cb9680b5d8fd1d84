import { type DocModel, documentFrom, type Outline, outlineOf } from './document.js';
import type { OutlineRequest } from './worker.js';
import { findWorkerScript, WorkerHost } from './worker-host.js';

/** Texts from this many characters on are outlined in the worker thread by default. */
export const WORKER_MIN_CHARS = 64 * 1024;

/** Options of {@link buildDocumentAsync}. */
export interface AsyncDocumentOptions {
  /** Parse the whole text with remark (slow; for tests and comparisons). */
  forceRemark?: boolean;
  /**
   * Outline texts of at least this many characters in the worker thread (default
   * {@link WORKER_MIN_CHARS}); shorter ones on the calling thread, where a thread hop would
   * cost more than the parse. `Infinity` never uses the worker, 0 always does.
   */
  workerMinChars?: number;
}

type Reply = { id: number; outline: Outline };

/**
 * After outlining this many characters in all, an idle worker thread is replaced by a fresh
 * one: its heap grows with each large text and is only given back when the thread ends.
 */
const RECYCLE_CHARS = 8 * 1024 * 1024;

const host = new WorkerHost<OutlineRequest, Reply>({
  // the compiled worker script: beside this module in dist, or dist's when run from src
  script: () => findWorkerScript(import.meta.url, ['./worker.js', '../../dist/lib/worker.js']),
  name: 'Markdown worker',
  recycleAfter: RECYCLE_CHARS,
  warmSuccessor: true,
});

/**
 * The outline of `text` found in a worker thread (started on first use, one for the process,
 * not keeping it alive when idle); on the calling thread when the worker script is missing.
 * Requests are answered in order.
 */
export function outlineInWorker(
  text: string,
  options: { forceRemark?: boolean } = {},
): Promise<Outline> {
  if (!host.available()) return Promise.resolve(outlineOf(text, options));
  const forceRemark = options.forceRemark ?? false;
  return host.request((id) => ({ id, text, forceRemark }), text.length).then((r) => r.outline);
}

/**
 * {@link buildDocument} that outlines large texts in a worker thread, so the calling thread
 * (a server's event loop) keeps answering other requests meanwhile. The result is the same.
 * Rejects only if the worker thread fails (it never does on any Markdown input).
 */
export async function buildDocumentAsync(
  input: string,
  options: AsyncDocumentOptions = {},
): Promise<DocModel> {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const min = options.workerMinChars ?? WORKER_MIN_CHARS;
  const outline =
    text.length >= min ? await outlineInWorker(text, options) : outlineOf(text, options);
  return documentFrom(text, outline);
}
