/** What to do when the reader of stdout or stderr goes away (EPIPE); replaced by `serve`. */
let onClosedPipe: () => void = () => process.exit(process.exitCode ?? 0);

/** Sets what happens when a reader closes stdout or stderr (default: exit quietly). */
export function setClosedPipeHandler(handler: () => void): void {
  onClosedPipe = handler;
}

/**
 * Turns EPIPE on stdout or stderr (`lectern tools --json | head -1`) into a quiet exit instead
 * of an unhandled error with a stack trace; other stream errors are rethrown.
 */
export function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') onClosedPipe();
      else throw error;
    });
  }
}

/** Resolves once everything written to `stream` so far has been handed to the OS. */
export function flushed(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const s = stream as NodeJS.WriteStream;
    if (s.destroyed || s.writableEnded) return resolve();
    // Writes complete in order: the callback of an empty write runs after every earlier one.
    s.write('', () => resolve());
  });
}

/**
 * Exits with `code` once stdout and stderr have drained. `process.exit` right after a large
 * write to a pipe drops whatever the pipe had not taken yet (the first 64 KiB arrive, the rest
 * is lost), so a command's output must be flushed first.
 */
export function exitAfterFlush(code: number): void {
  process.exitCode = code;
  Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(
    () => process.exit(code),
    () => process.exit(code),
  );
}
