/*
 * The worker thread of {@link buildDocumentAsync}: finds outlines off the main thread, one
 * message at a time, so a large or adversarial document never stalls the caller's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { outlineOf } from './document.js';

/** A request: the text to outline and how. */
export interface OutlineRequest {
  id: number;
  text: string;
  forceRemark: boolean;
}

parentPort?.on('message', (req: OutlineRequest) => {
  try {
    parentPort!.postMessage({
      id: req.id,
      outline: outlineOf(req.text, { forceRemark: req.forceRemark }),
    });
  } catch (e) {
    parentPort!.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
  }
});
