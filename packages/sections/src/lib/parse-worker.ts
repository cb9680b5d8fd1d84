/*
 * The parse worker thread of the docs index: receives a file's bytes (transferred, not
 * copied), decodes and parses them here and sends back only the stored model (typed arrays
 * transferred, section records copied), so the caller's thread never holds the file's text.
 */
import { parentPort } from 'node:worker_threads';
import { dropHeadingPaths, parseFileBytes, transferablesOf } from './parse.js';

/** A request: the bytes of one file to parse. */
export interface ParseRequest {
  id: number;
  buffer: ArrayBuffer;
  length: number;
}

/**
 * Frees a buffer's memory now rather than at a later collection: its contents move to a new
 * buffer that nothing keeps (the young generation is small here, so it goes at the next
 * scavenge), and `buffer` is left empty.
 */
function detach(buffer: ArrayBuffer): void {
  structuredClone(buffer, { transfer: [buffer] });
}

parentPort?.on('message', (req: ParseRequest) => {
  try {
    const bytes = new Uint8Array(req.buffer, 0, req.length);
    const release = () => detach(req.buffer);
    const parsed = parseFileBytes(bytes, release);
    if (parsed === null) {
      // Not text: the bytes go back so the caller reports the exact decoding error.
      parentPort!.postMessage({ id: req.id, notText: req.buffer }, [req.buffer]);
      return;
    }
    parentPort!.postMessage(
      { id: req.id, parsed: dropHeadingPaths(parsed) },
      transferablesOf(parsed.stored),
    );
  } catch (e) {
    parentPort!.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
  }
});
