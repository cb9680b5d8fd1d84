import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Node has no `openat(2)`. On Linux the same effect comes from `/proc/self/fd/<fd>/<name>`:
 * the kernel resolves `/proc/self/fd/<fd>` by jumping straight to the folder the descriptor
 * holds (it never re-reads that folder's path), then looks `<name>` up inside it. Opening that
 * path with `O_NOFOLLOW` is `openat(fd, name, O_NOFOLLOW)`: whatever happens to the folder's
 * path after it was opened, the lookup stays inside the folder that was opened. Every file
 * operation that takes a path (open, lstat, readdir, mkdir, rename, unlink) can be anchored
 * this way.
 *
 * Where `/proc` is missing (not Linux, or a sandbox without it) the guard falls back to full
 * paths remembered per descriptor: the same rules are checked, but a concurrent swap of a
 * parent folder is no longer excluded. {@link anchorMode} tells which is in force.
 */

const PROC_FD = '/proc/self/fd';

let viaProc: boolean | undefined;
/** Full paths of open folder descriptors, used only when `/proc` anchoring is unavailable. */
const fallbackPaths = new Map<number, string>();

function probe(): boolean {
  if (process.platform !== 'linux') return false;
  let fd = -1;
  try {
    fd = openSync('/', constants.O_RDONLY | constants.O_DIRECTORY);
    const held = fstatSync(fd);
    const seen = statSync(`${PROC_FD}/${fd}/.`);
    return held.dev === seen.dev && held.ino === seen.ino;
  } catch {
    return false;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** True when folder descriptors anchor lookups through `/proc/self/fd` (checked once). */
export function anchoredByProc(): boolean {
  viaProc ??= probe();
  return viaProc;
}

/**
 * How the guard anchors lookups: `descriptor` (Linux `/proc/self/fd`, immune to concurrent
 * swaps of parent folders) or `path` (elsewhere: the same checks, without that immunity).
 */
export function anchorMode(): 'descriptor' | 'path' {
  return anchoredByProc() ? 'descriptor' : 'path';
}

/** Test hook: forces path anchoring (`false`) or re-probes (`undefined`). Returns the old mode. */
export function setProcAnchoringForTests(value: boolean | undefined): boolean {
  const previous = anchoredByProc();
  viaProc = value === undefined ? undefined : value && probe();
  return previous;
}

/** A path naming the folder open as `fd` itself. */
export function fdPath(fd: number): string {
  if (anchoredByProc()) return `${PROC_FD}/${fd}`;
  const known = fallbackPaths.get(fd);
  if (known === undefined) throw new Error(`descriptor ${fd} is not an open guarded folder`);
  return known;
}

/** A path naming `name` inside the folder open as `fd`, resolved from that folder. */
export function at(fd: number, name: string): string {
  return anchoredByProc() ? `${PROC_FD}/${fd}/${name}` : join(fdPath(fd), name);
}

/** Records the full path of a folder descriptor (needed only without `/proc`). */
export function rememberFolder(fd: number, path: string): void {
  if (!anchoredByProc()) fallbackPaths.set(fd, path);
}

/** Records a folder opened as `name` inside the folder `parent`. */
export function rememberChild(fd: number, parent: number, name: string): void {
  if (!anchoredByProc()) fallbackPaths.set(fd, join(fdPath(parent), name));
}

/** Forgets a folder descriptor that is being closed. */
export function forgetFolder(fd: number): void {
  fallbackPaths.delete(fd);
}
