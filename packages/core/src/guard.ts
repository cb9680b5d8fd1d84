import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { type FileHandle, lstat, mkdir, open, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './errors.js';

/** Options fixed when a root is created. */
export interface RootOptions {
  /**
   * Allow symbolic links whose target stays inside the root (default false: every link is
   * refused, as the final component or any intermediate one).
   */
  allowInRootSymlinks?: boolean;
  /** Largest file, in bytes, that {@link openInRoot} accepts by default. */
  maxFileBytes?: number;
}

/** A directory that requests are confined to. Create it with {@link createRoot}. */
export interface Root {
  /** The root's real path (symlinks resolved once, at creation). */
  readonly path: string;
  /** The path as it was configured, before realpath; absolute paths under it are accepted too. */
  readonly configuredPath: string;
  readonly allowInRootSymlinks: boolean;
  readonly maxFileBytes: number;
}

/** Default size cap for {@link openInRoot}: 16 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;

function rootFrom(configured: string, real: string, st: Stats, options: RootOptions): Root {
  if (!st.isDirectory()) {
    throw new ToolError('ROOT_NOT_DIRECTORY', `root ${configured} is not a directory.`);
  }
  return Object.freeze({
    path: real,
    configuredPath: resolve(configured),
    allowInRootSymlinks: options.allowInRootSymlinks ?? false,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  });
}

function checkRootInput(dir: string): void {
  if (typeof dir !== 'string' || dir.trim() === '') {
    throw new ToolError('ROOT_EMPTY', 'a root path is required; got an empty string.');
  }
  if (dir.includes('\0')) throw new ToolError('ROOT_INVALID', 'a root path cannot contain NUL.');
}

function rootMissing(dir: string, cause: unknown): ToolError {
  return new ToolError('ROOT_MISSING', `root ${dir} does not exist or cannot be read.`, { cause });
}

/**
 * Resolves `dir` with realpath once and returns a frozen {@link Root}. Throws `ROOT_EMPTY`
 * for an empty path, `ROOT_MISSING` when it does not exist and `ROOT_NOT_DIRECTORY` for a file.
 */
export async function createRoot(dir: string, options: RootOptions = {}): Promise<Root> {
  checkRootInput(dir);
  let real: string;
  try {
    real = await realpath(dir);
  } catch (cause) {
    throw rootMissing(dir, cause);
  }
  return rootFrom(dir, real, await lstat(real), options);
}

/** Synchronous {@link createRoot}, for start-up code. */
export function createRootSync(dir: string, options: RootOptions = {}): Root {
  checkRootInput(dir);
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (cause) {
    throw rootMissing(dir, cause);
  }
  return rootFrom(dir, real, statSync(real), options);
}

/** A request path checked lexically against a root. */
export interface ResolvedPath {
  /** Normalised path relative to the root, `/`-separated; `''` is the root itself. */
  relative: string;
  /** Absolute path under the root's real path. */
  absolute: string;
  /** The normalised segments of `relative`. */
  segments: string[];
}

function within(base: string, target: string): string | null {
  const rel = relative(base, target);
  if (rel === '') return '';
  if (rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return null;
  return rel;
}

/**
 * Checks a request path without touching the disk. Accepts a path relative to the root, or an
 * absolute path under it. `.` segments and empty segments are dropped and `..` climbs, but may
 * never climb above the root. Names such as `..test`, `te..st` or `%2e%2e` are ordinary (no
 * URL decoding). Throws `PATH_NUL`, `PATH_ABSOLUTE_OUTSIDE_ROOT` (including prefix siblings such
 * as `root2` or `root.bak`) and `PATH_ESCAPES_ROOT`.
 */
export function resolveInRoot(root: Root, requestPath: string): ResolvedPath {
  if (typeof requestPath !== 'string') {
    throw new ToolError('PATH_INVALID', 'a path must be a string.');
  }
  if (requestPath.includes('\0')) {
    throw new ToolError(
      'PATH_NUL',
      `path ${JSON.stringify(requestPath)} contains a NUL byte, which no file name may contain.`,
    );
  }
  let rel = requestPath;
  if (isAbsolute(requestPath)) {
    const inside = within(root.path, requestPath) ?? within(root.configuredPath, requestPath);
    if (inside === null) {
      throw new ToolError(
        'PATH_ABSOLUTE_OUTSIDE_ROOT',
        `absolute path ${requestPath} is outside the root; give a path relative to the root instead.`,
      );
    }
    rel = inside.split(sep).join('/');
  }
  const segments: string[] = [];
  for (const part of rel.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (segments.length === 0) {
        throw new ToolError(
          'PATH_ESCAPES_ROOT',
          `path ${requestPath} climbs out of the root with '..'; paths must stay inside the root.`,
        );
      }
      segments.pop();
      continue;
    }
    segments.push(part);
  }
  return { relative: segments.join('/'), absolute: join(root.path, ...segments), segments };
}

/** A file-system question the walk asks; answered by a sync or an async runner. */
type FsAsk =
  | { op: 'lstat'; path: string }
  | { op: 'lstatOrNull'; path: string }
  | { op: 'realpath'; path: string };
type FsAnswer = Stats | null | string;

function missing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

async function askAsync(q: FsAsk): Promise<FsAnswer> {
  if (q.op === 'realpath') return realpath(q.path);
  try {
    return await lstat(q.path);
  } catch (e) {
    if (q.op === 'lstatOrNull' && missing(e)) return null;
    throw e;
  }
}

function askSync(q: FsAsk): FsAnswer {
  if (q.op === 'realpath') return realpathSync(q.path);
  try {
    return lstatSync(q.path);
  } catch (e) {
    if (q.op === 'lstatOrNull' && missing(e)) return null;
    throw e;
  }
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  return (await askAsync({ op: 'lstatOrNull', path: p })) as Stats | null;
}

function symlinkError(requestPath: string, component: string, dangling: boolean): ToolError {
  return new ToolError(
    'PATH_SYMLINK',
    `path ${requestPath} ${dangling ? 'is or passes through a dangling symbolic link' : 'is or passes through a symbolic link'} (${component}); links are not followed.`,
    { details: { component } },
  );
}

/** What a checked walk found at the end of a path. */
interface Walked {
  resolved: ResolvedPath;
  /** Real absolute path of the final component (links inside the root resolved when allowed). */
  real: string;
  stat: Stats | null;
}

/**
 * Walks every component of a resolved path with lstat, refusing links (or, when the root
 * allows in-root links, links that leave the root). Stops at the first missing component.
 * Written once as a generator of file-system questions, so the sync and async guards share
 * every rule.
 */
function* walkSteps(root: Root, requestPath: string): Generator<FsAsk, Walked, FsAnswer> {
  const resolved = resolveInRoot(root, requestPath);
  let current = root.path;
  // The root was checked at creation; it is only stat'ed when the request names the root.
  let st: Stats | null =
    resolved.segments.length === 0 ? ((yield { op: 'lstat', path: current }) as Stats) : null;
  for (let i = 0; i < resolved.segments.length; i++) {
    const name = resolved.segments[i]!;
    const next = join(current, name);
    st = (yield { op: 'lstatOrNull', path: next }) as Stats | null;
    if (st === null)
      return { resolved, real: join(next, ...resolved.segments.slice(i + 1)), stat: null };
    if (st.isSymbolicLink()) {
      const component = resolved.segments.slice(0, i + 1).join('/');
      let target: string;
      try {
        target = (yield { op: 'realpath', path: next }) as string;
      } catch {
        throw symlinkError(requestPath, component, true);
      }
      if (!root.allowInRootSymlinks) throw symlinkError(requestPath, component, false);
      if (within(root.path, target) === null) {
        throw new ToolError(
          'PATH_SYMLINK_OUTSIDE_ROOT',
          `path ${requestPath} passes through a symbolic link (${component}) that points outside the root.`,
          { details: { component } },
        );
      }
      current = target;
      st = (yield { op: 'lstat', path: target }) as Stats;
      continue;
    }
    if (i < resolved.segments.length - 1 && !st.isDirectory()) {
      throw new ToolError(
        'PATH_NOT_FOUND',
        `path ${requestPath} does not exist: ${resolved.segments.slice(0, i + 1).join('/')} is a file, not a folder.`,
      );
    }
    current = next;
  }
  return { resolved, real: current, stat: st };
}

async function walk(root: Root, requestPath: string): Promise<Walked> {
  const steps = walkSteps(root, requestPath);
  let step = steps.next();
  while (!step.done) {
    let answer: FsAnswer;
    try {
      answer = await askAsync(step.value);
    } catch (e) {
      step = steps.throw(e);
      continue;
    }
    step = steps.next(answer);
  }
  return step.value;
}

function walkSync(root: Root, requestPath: string): Walked {
  const steps = walkSteps(root, requestPath);
  let step = steps.next();
  while (!step.done) {
    let answer: FsAnswer;
    try {
      answer = askSync(step.value);
    } catch (e) {
      step = steps.throw(e);
      continue;
    }
    step = steps.next(answer);
  }
  return step.value;
}

/** Describes a non-regular file for error messages. */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** A regular file opened inside a root. Close `handle` when done. */
export interface OpenedFile {
  handle: FileHandle;
  /** fstat of the open descriptor (the file actually opened). */
  stat: Stats;
  /** Real absolute path of the file. */
  absolutePath: string;
  /** Normalised path relative to the root, `/`-separated. */
  relativePath: string;
}

/** Options of {@link openInRoot}. */
export interface OpenOptions {
  /** Size cap in bytes, checked before reading; defaults to the root's `maxFileBytes`. */
  maxBytes?: number;
}

/**
 * Opens a regular file inside a root for reading. Every component is checked with lstat
 * (links refused unless the root allows in-root links), non-regular files are refused without
 * opening them (a FIFO never blocks), the size cap is checked before any read, and the file is
 * opened with O_NOFOLLOW | O_NONBLOCK and its descriptor's dev/inode compared with what was
 * checked, so a swap between check and use fails with `PATH_CHANGED`.
 *
 * Error codes: `PATH_NUL`, `PATH_ABSOLUTE_OUTSIDE_ROOT`, `PATH_ESCAPES_ROOT`, `PATH_SYMLINK`,
 * `PATH_SYMLINK_OUTSIDE_ROOT`, `PATH_NOT_FOUND`, `PATH_IS_DIRECTORY`, `PATH_NOT_REGULAR`,
 * `FILE_TOO_LARGE`, `PATH_CHANGED`.
 */
export async function openInRoot(
  root: Root,
  requestPath: string,
  options: OpenOptions = {},
): Promise<OpenedFile> {
  const walked = await walk(root, requestPath);
  const cap = checkOpenable(root, requestPath, walked, options);
  let handle: FileHandle;
  try {
    handle = await open(walked.real, OPEN_FLAGS);
  } catch (e) {
    throw openFailure(requestPath, e);
  }
  try {
    const fst = await handle.stat();
    checkOpened(requestPath, walked.stat!, fst, cap);
    return { handle, stat: fst, absolutePath: walked.real, relativePath: walked.resolved.relative };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The checks made before opening: exists, regular, under the cap. Returns the cap. */
function checkOpenable(
  root: Root,
  requestPath: string,
  walked: Walked,
  options: OpenOptions,
): number {
  const stat = walked.stat;
  if (stat === null) {
    throw new ToolError('PATH_NOT_FOUND', `file ${requestPath} does not exist in the root.`);
  }
  if (stat.isDirectory()) {
    throw new ToolError(
      'PATH_IS_DIRECTORY',
      `path ${requestPath} is a directory; a file is needed here.`,
    );
  }
  if (!stat.isFile()) {
    throw new ToolError(
      'PATH_NOT_REGULAR',
      `path ${requestPath} is ${fileKind(stat)}; only regular files can be read.`,
    );
  }
  const cap = options.maxBytes ?? root.maxFileBytes;
  if (stat.size > cap) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `file ${requestPath} is ${stat.size} bytes, over the ${cap}-byte limit.`,
      { details: { size: stat.size, max_bytes: cap } },
    );
  }
  return cap;
}

function openFailure(requestPath: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'ENOENT' || code === 'ENOTDIR') {
    return new ToolError(
      'PATH_CHANGED',
      `file ${requestPath} changed while it was being opened; try again.`,
    );
  }
  return e;
}

/** The checks made on the open descriptor: the same file as checked, still regular and small. */
function checkOpened(requestPath: string, checked: Stats, fst: Stats, cap: number): void {
  if (fst.dev !== checked.dev || fst.ino !== checked.ino || !fst.isFile()) {
    throw new ToolError(
      'PATH_CHANGED',
      `file ${requestPath} was replaced between the check and the open; refusing to read it.`,
    );
  }
  if (fst.size > cap) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `file ${requestPath} is ${fst.size} bytes, over the ${cap}-byte limit.`,
      { details: { size: fst.size, max_bytes: cap } },
    );
  }
}

/** A regular file opened synchronously inside a root. Close `fd` with `closeSync` when done. */
export interface OpenedFileSync {
  fd: number;
  stat: Stats;
  absolutePath: string;
  relativePath: string;
}

/**
 * Synchronous {@link openInRoot}: the same checks, rule for rule (they are written once), with
 * blocking calls. For hot loops over many small files (a text search), where one async call per
 * path component costs more than the reads; each call blocks the event loop briefly.
 */
export function openInRootSync(
  root: Root,
  requestPath: string,
  options: OpenOptions = {},
): OpenedFileSync {
  const walked = walkSync(root, requestPath);
  const cap = checkOpenable(root, requestPath, walked, options);
  let fd: number;
  try {
    fd = openSync(walked.real, OPEN_FLAGS);
  } catch (e) {
    throw openFailure(requestPath, e);
  }
  try {
    const fst = fstatSync(fd);
    checkOpened(requestPath, walked.stat!, fst, cap);
    return { fd, stat: fst, absolutePath: walked.real, relativePath: walked.resolved.relative };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** What {@link readFileInRoot} returns. */
export interface ReadFileResult {
  bytes: Buffer;
  stat: Stats;
  absolutePath: string;
  relativePath: string;
}

/**
 * The result of a bounded whole-file read into `buf` (fstat size + 1 bytes): refuses a file that
 * grew past the cap while it was read, and returns at most the size fstat reported.
 */
function readResult(
  requestPath: string,
  cap: number,
  opened: { stat: Stats; absolutePath: string; relativePath: string },
  buf: Buffer,
  total: number,
): ReadFileResult {
  const size = opened.stat.size;
  if (total > size && total > cap) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `file ${requestPath} grew past the ${cap}-byte limit while being read.`,
    );
  }
  return {
    bytes: buf.subarray(0, Math.min(total, size)),
    stat: opened.stat,
    absolutePath: opened.absolutePath,
    relativePath: opened.relativePath,
  };
}

/**
 * Reads a whole regular file inside a root (see {@link openInRoot} for the checks). Reads at
 * most the size seen by fstat plus one byte, so growth past the cap during the read is refused.
 */
export async function readFileInRoot(
  root: Root,
  requestPath: string,
  options: OpenOptions = {},
): Promise<ReadFileResult> {
  const opened = await openInRoot(root, requestPath, options);
  try {
    const cap = options.maxBytes ?? root.maxFileBytes;
    const size = opened.stat.size;
    const buf = Buffer.allocUnsafe(size + 1);
    let total = 0;
    for (;;) {
      const { bytesRead } = await opened.handle.read(buf, total, buf.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total === buf.length) break;
    }
    return readResult(requestPath, cap, opened, buf, total);
  } finally {
    await opened.handle.close();
  }
}

/** Synchronous {@link readFileInRoot}, with the same checks (see {@link openInRootSync}). */
export function readFileInRootSync(
  root: Root,
  requestPath: string,
  options: OpenOptions = {},
): ReadFileResult {
  const opened = openInRootSync(root, requestPath, options);
  try {
    const cap = options.maxBytes ?? root.maxFileBytes;
    const size = opened.stat.size;
    const buf = Buffer.allocUnsafe(size + 1);
    let total = 0;
    for (;;) {
      const bytesRead = readSync(opened.fd, buf, total, buf.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total === buf.length) break;
    }
    return readResult(requestPath, cap, opened, buf, total);
  } finally {
    closeSync(opened.fd);
  }
}

/** What {@link statInRoot} found. */
export interface StatResult {
  stat: Stats;
  absolutePath: string;
  relativePath: string;
}

/**
 * Checks a path inside a root (same link and traversal rules as {@link openInRoot}) and
 * returns its lstat without opening it. Throws `PATH_NOT_FOUND` when it does not exist; the
 * root itself is `''` or `.`.
 */
export async function statInRoot(root: Root, requestPath: string): Promise<StatResult> {
  const { resolved, real, stat } = await walk(root, requestPath);
  if (stat === null)
    throw new ToolError('PATH_NOT_FOUND', `path ${requestPath} does not exist in the root.`);
  return { stat, absolutePath: real, relativePath: resolved.relative };
}

/** What {@link resolveForWrite} found. */
export interface WriteTarget {
  /** Absolute path the file will be written at. */
  absolutePath: string;
  /** Normalised path relative to the root. */
  relativePath: string;
  /** lstat of an existing regular file at the path, or null when it does not exist yet. */
  existing: Stats | null;
}

/**
 * Write-side guard. Checks the path lexically, then walks from the root to the nearest existing
 * ancestor refusing any symbolic link on the way (even an in-root one: nothing is created
 * through a link). An existing target must be a regular file. With `createParents`, missing
 * folders are created one by one, each re-checked, so none is created through a link.
 */
export async function resolveForWrite(
  root: Root,
  requestPath: string,
  options: { createParents?: boolean } = {},
): Promise<WriteTarget> {
  const resolved = resolveInRoot(root, requestPath);
  if (resolved.segments.length === 0) {
    throw new ToolError(
      'PATH_IS_DIRECTORY',
      `path ${requestPath} names the root folder; a file path is needed.`,
    );
  }
  let current = root.path;
  for (let i = 0; i < resolved.segments.length; i++) {
    const name = resolved.segments[i]!;
    const next = join(current, name);
    const last = i === resolved.segments.length - 1;
    const st = await lstatOrNull(next);
    const shown = resolved.segments.slice(0, i + 1).join('/');
    if (st?.isSymbolicLink()) throw symlinkError(requestPath, shown, false);
    if (last) {
      if (st?.isDirectory()) {
        throw new ToolError(
          'PATH_IS_DIRECTORY',
          `path ${requestPath} is a directory; a file path is needed.`,
        );
      }
      if (st && !st.isFile()) {
        throw new ToolError(
          'PATH_NOT_REGULAR',
          `path ${requestPath} is ${fileKind(st)}; only regular files can be written.`,
        );
      }
      return { absolutePath: next, relativePath: resolved.relative, existing: st };
    }
    if (st === null) {
      if (!options.createParents) {
        return {
          absolutePath: join(next, ...resolved.segments.slice(i + 1)),
          relativePath: resolved.relative,
          existing: null,
        };
      }
      try {
        await mkdir(next);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const again = await lstat(next);
      if (!again.isDirectory() || again.isSymbolicLink()) {
        throw new ToolError(
          'PATH_CHANGED',
          `folder ${shown} changed while it was being created; refusing to write.`,
        );
      }
    } else if (!st.isDirectory()) {
      throw new ToolError(
        'PATH_NOT_DIRECTORY',
        `path ${requestPath} cannot be created: ${shown} is a file, not a folder.`,
      );
    }
    current = next;
  }
  /* c8 ignore next */
  throw new ToolError('PATH_INVALID', `path ${requestPath} could not be resolved.`);
}

/** Synchronous lstat-based check that a path is a directory (for configuration validation). */
export function isDirectorySync(p: string): boolean {
  try {
    return lstatSync(p).isDirectory() || statSync(p).isDirectory();
  } catch {
    return false;
  }
}
