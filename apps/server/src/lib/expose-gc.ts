import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Makes V8's full collection available as `globalThis.gc` in this process, as `node
 * --expose-gc` would, without a flag on the command line: the flag is set only while one new
 * context is made (a context gets `gc` if the flag is on when it is created), then cleared.
 * `@lectern/sections` runs it after parsing a large document, so the outline that document's
 * previous version held is given back before the next parse instead of piling up. The
 * `lectern` command calls this once at start-up; a library never does. Returns whether `gc`
 * is available afterwards; does nothing when it already was.
 */
export function exposeGc(): boolean {
  const host = globalThis as { gc?: unknown };
  if (typeof host.gc === 'function') return true;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc === 'function') host.gc = gc;
  } catch {
    // no collector to be had: memory is still given back, when V8 decides
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return typeof host.gc === 'function';
}
