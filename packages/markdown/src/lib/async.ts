import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type DocModel, documentFrom, type Outline, outlineOf } from './document.js';
import type { OutlineRequest } from './worker.js';

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

type Reply = { id: number; outline: Outline } | { id: number; error: string };

let worker: Worker | null = null;
let nextId = 0;
const waiting = new Map<number, { resolve: (o: Outline) => void; reject: (e: Error) => void }>();

/** The compiled worker script: beside this module in dist, or dist's when run from src. */
function workerFile(): URL | null {
  for (const rel of ['./worker.js', '../../dist/lib/worker.js']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return null;
}

function failAll(error: Error): void {
  for (const w of waiting.values()) w.reject(error);
  waiting.clear();
}

function theWorker(): Worker | null {
  if (worker) return worker;
  const file = workerFile();
  if (!file) return null;
  const w = new Worker(file);
  w.on('message', (reply: Reply) => {
    const job = waiting.get(reply.id);
    if (!job) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) w.unref();
    if ('error' in reply) job.reject(new Error(reply.error));
    else job.resolve(reply.outline);
  });
  w.on('error', (e) => {
    if (worker === w) worker = null;
    failAll(e instanceof Error ? e : new Error(String(e)));
  });
  w.on('exit', (code) => {
    if (worker === w) worker = null;
    failAll(new Error(`the Markdown worker thread exited with code ${code}`));
  });
  w.unref();
  worker = w;
  return w;
}

/**
 * The outline of `text` found in a worker thread (started on first use, one for the process,
 * not keeping it alive when idle); on the calling thread when the worker script is missing.
 * Requests are answered in order.
 */
export function outlineInWorker(
  text: string,
  options: { forceRemark?: boolean } = {},
): Promise<Outline> {
  const w = theWorker();
  if (!w) return Promise.resolve(outlineOf(text, options));
  const id = nextId++;
  return new Promise<Outline>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.ref();
    const req: OutlineRequest = { id, text, forceRemark: options.forceRemark ?? false };
    w.postMessage(req);
  });
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
