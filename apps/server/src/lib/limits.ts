/**
 * Largest JSON-RPC message the server reads, over stdio (one line) and HTTP (one request body):
 * 64 MiB. It is chosen so that every input a served tool's schema accepts fits, however it is
 * escaped (a test computes each tool's largest possible arguments from its published schema):
 * the largest are an inline Markdown `text` of 10 Mi characters and a `write_batch` carrying its
 * whole text budget. A larger message gets a JSON-RPC error and a log line; the server keeps
 * serving.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Default `HttpOptions.maxSessions` of `startHttp`. */
export const DEFAULT_MAX_SESSIONS = 100;
/** Default `HttpOptions.sessionIdleMs` of `startHttp`: 30 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

/** Size in a short human form, e.g. `64 MiB`, `1.5 KiB`, `12 bytes`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}
