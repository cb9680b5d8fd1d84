import {
  close as closeCb,
  closeSync,
  constants,
  type Dirent,
  fchmod as fchmodCb,
  fchmodSync,
  fchown as fchownCb,
  fchownSync,
  fstat as fstatCb,
  fstatSync,
  fsync as fsyncCb,
  fsyncSync,
  lstatSync,
  mkdirSync,
  open as openCb,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  write as writeCb,
  writeSync,
} from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  realpath,
  rename,
  unlink,
} from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { tempNameFor } from './atomic.js';
import { ToolError } from './errors.js';
import {
  anchoredByProc,
  at,
  fdPath,
  forgetFolder,
  rememberChild,
  rememberFolder,
} from './lib/anchor.js';

/** Options fixed when a root is created. */
export interface RootOptions {
  /**
   * Allow symbolic links whose target stays inside the root (default false: every link is
   * refused, as the final component or any intermediate one).
   */
  allowInRootSymlinks?: boolean;
  /** Largest file, in bytes, that {@link openInRoot} accepts by default. */
  maxFileBytes?: number;
  /**
   * Read regular files that have more than one hard link (default false: they are refused
   * with `PATH_HARD_LINK`, because another name of the same file may sit outside the root and
   * a link cannot be told from the original). Turn it on for a root whose hard links are
   * trusted, e.g. a pnpm store or a backup made with `cp -al`.
   */
  allowHardLinks?: boolean;
}

/** A directory that requests are confined to. Create it with {@link createRoot}. */
export interface Root {
  /** The root's real path (symlinks resolved once, at creation). */
  readonly path: string;
  /** The path as it was configured, before realpath; absolute paths under it are accepted too. */
  readonly configuredPath: string;
  readonly allowInRootSymlinks: boolean;
  readonly maxFileBytes: number;
  /** See {@link RootOptions.allowHardLinks}. */
  readonly allowHardLinks: boolean;
}

/** Default size cap for {@link openInRoot}: 16 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Longest request path accepted, in UTF-8 bytes (Linux `PATH_MAX`). */
export const MAX_PATH_BYTES = 4096;
/** Longest single file or folder name accepted, in UTF-8 bytes (`NAME_MAX`). */
export const MAX_NAME_BYTES = 255;
/**
 * Name of the folder where Lectern keeps its own state (wiki lock and journal, memory
 * database) inside a root. No request path may name it: {@link resolveInRoot} refuses it with
 * `PATH_RESERVED`, so no tool ever reads or writes it.
 */
export const STATE_DIR_NAME = '.lectern';

/** Roots already warned about as too broad, so each is reported once per process. */
const broadWarned = new Set<string>();

/**
 * True for a root that exposes a whole machine or user: `/`, the home folder, or any folder
 * above the home folder.
 */
export function isBroadRoot(real: string): boolean {
  if (real === '/' || real === resolve('/')) return true;
  let home: string;
  try {
    home = realpathSync(homedir());
  } catch {
    home = homedir();
  }
  return home !== '' && (real === home || within(real, home) !== null);
}

function warnIfBroad(real: string): void {
  if (!isBroadRoot(real) || broadWarned.has(real)) return;
  broadWarned.add(real);
  process.emitWarning(
    `root ${real} is the file-system root, the home folder or above it: every file under it (keys, tokens, browser profiles) can be read through Lectern's tools. Serve a narrower folder.`,
    { code: 'LECTERN_BROAD_ROOT', type: 'LecternWarning' },
  );
}

function rootFrom(configured: string, real: string, st: Stats, options: RootOptions): Root {
  if (!st.isDirectory()) {
    throw new ToolError('ROOT_NOT_DIRECTORY', `root ${configured} is not a directory.`);
  }
  warnIfBroad(real);
  return Object.freeze({
    path: real,
    configuredPath: resolve(configured),
    allowInRootSymlinks: options.allowInRootSymlinks ?? false,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    allowHardLinks: options.allowHardLinks ?? false,
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
 * A root that is `/`, the home folder or above it is accepted with a `LECTERN_BROAD_ROOT`
 * process warning (printed on stderr), once per folder.
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

/** A request path as error messages show it: long paths are cut, so no message grows huge. */
export function showPath(path: string): string {
  if (path.length <= 200) return path;
  return `${path.slice(0, 120)}… (${path.length} characters)`;
}

function tooLong(requestPath: string, what: string): ToolError {
  return new ToolError(
    'PATH_TOO_LONG',
    `path ${showPath(requestPath)} is too long: ${what}. Use a shorter path.`,
    { details: { max_path_bytes: MAX_PATH_BYTES, max_name_bytes: MAX_NAME_BYTES } },
  );
}

/** Checks one file or folder name: length and Lectern's reserved state folder. */
function checkName(requestPath: string, name: string, allowReserved = false): void {
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) {
    throw tooLong(
      requestPath,
      `the name ${JSON.stringify(showPath(name))} is ${Buffer.byteLength(name, 'utf8')} bytes, over the ${MAX_NAME_BYTES}-byte limit of one file or folder name`,
    );
  }
  if (!allowReserved && name.toLowerCase() === STATE_DIR_NAME) {
    throw new ToolError(
      'PATH_RESERVED',
      `path ${showPath(requestPath)} names ${STATE_DIR_NAME}/, where Lectern keeps its own state (locks, journals, indexes); it is never served.`,
    );
  }
}

/**
 * Checks a request path without touching the disk. Accepts a path relative to the root, or an
 * absolute path under it. `.` segments and empty segments are dropped and `..` climbs, but may
 * never climb above the root. Names such as `..test`, `te..st` or `%2e%2e` are ordinary (no
 * URL decoding). Throws `PATH_NUL`, `PATH_TOO_LONG` (over {@link MAX_PATH_BYTES} bytes, or a
 * name over {@link MAX_NAME_BYTES}), `PATH_ABSOLUTE_OUTSIDE_ROOT` (including prefix siblings
 * such as `root2` or `root.bak`), `PATH_ESCAPES_ROOT` and `PATH_RESERVED` (a `.lectern` folder).
 */
export function resolveInRoot(root: Root, requestPath: string): ResolvedPath {
  return resolveLexically(root, requestPath, false);
}

function resolveLexically(root: Root, requestPath: string, allowReserved: boolean): ResolvedPath {
  if (typeof requestPath !== 'string') {
    throw new ToolError('PATH_INVALID', 'a path must be a string.');
  }
  if (requestPath.length > MAX_PATH_BYTES || Buffer.byteLength(requestPath) > MAX_PATH_BYTES) {
    throw tooLong(
      requestPath,
      `it is ${Buffer.byteLength(requestPath)} bytes, over the ${MAX_PATH_BYTES}-byte limit`,
    );
  }
  if (requestPath.includes('\0')) {
    throw new ToolError(
      'PATH_NUL',
      `path ${JSON.stringify(showPath(requestPath))} contains a NUL byte, which no file name may contain.`,
    );
  }
  let rel = requestPath;
  if (isAbsolute(requestPath)) {
    const inside = within(root.path, requestPath) ?? within(root.configuredPath, requestPath);
    if (inside === null) {
      throw new ToolError(
        'PATH_ABSOLUTE_OUTSIDE_ROOT',
        `absolute path ${showPath(requestPath)} is outside the root; give a path relative to the root instead.`,
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
          `path ${showPath(requestPath)} climbs out of the root with '..'; paths must stay inside the root.`,
        );
      }
      segments.pop();
      continue;
    }
    segments.push(part);
  }
  for (const s of segments) checkName(requestPath, s, allowReserved);
  return { relative: segments.join('/'), absolute: join(root.path, ...segments), segments };
}

// ---------------------------------------------------------------------------------------------
// The anchored walk: one generator of file-system questions, answered by a sync or an async
// runner, so both guards share every rule.

/** Flags of every folder the walk opens: never through a link, never anything but a folder. */
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Flags of a file opened for reading: no link, and a FIFO never blocks the open. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Flags of a temporary file a write creates. */
const CREATE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A file-system question; every name is looked up inside an open folder descriptor. */
type FsAsk =
  | { op: 'openRoot'; path: string }
  | { op: 'openDir'; dir: number; name: string }
  | { op: 'lstatAt'; dir: number; name: string }
  | { op: 'readlinkAt'; dir: number; name: string }
  | { op: 'fstat'; fd: number }
  | { op: 'mkdirAt'; dir: number; name: string }
  | { op: 'createAt'; dir: number; name: string; mode: number }
  | { op: 'writeAll'; fd: number; data: Uint8Array }
  | { op: 'keepMode'; fd: number; mode: number; uid: number; gid: number }
  | { op: 'renameAt'; dir: number; from: string; to: string }
  | { op: 'unlinkAt'; dir: number; name: string }
  | { op: 'fsync'; fd: number }
  | { op: 'close'; fd: number }
  | { op: 'lstatPath'; path: string }
  | { op: 'openPath'; path: string; flags: number }
  | { op: 'readlinkFd'; fd: number }
  | { op: 'openFile'; path: string }
  | { op: 'closeFile'; file: OpenedAny };
/** A file opened for reading: a raw descriptor (sync runner) or a FileHandle (async runner). */
interface OpenedAny {
  fd: number;
  handle?: FileHandle;
}
/** What a runner answers. */
type FsAnswer = number | Stats | string | null | undefined | OpenedAny;
/** A walk (or any guarded operation) written as questions. */
type FsSteps<T> = Generator<FsAsk, T, FsAnswer>;

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

const openAsync = promisify(openCb) as (p: string, flags: number, mode?: number) => Promise<number>;
const fstatAsync = promisify(fstatCb);
const closeAsync = promisify(closeCb);
const fsyncAsync = promisify(fsyncCb);
const fchmodAsync = promisify(fchmodCb);
const fchownAsync = promisify(fchownCb);

/** Whether an owner change may be tried: only a process that can give files away (root). */
function mayChown(uid: number, gid: number): boolean {
  const own = process.getuid?.();
  return own === 0 && (uid !== own || gid !== process.getgid?.());
}
const writeAsync = promisify(writeCb) as unknown as (
  fd: number,
  buf: Uint8Array,
  off: number,
  len: number,
) => Promise<{ bytesWritten: number }>;

function missingToNull(e: unknown): null {
  const code = errno(e);
  if (code === 'ENOENT' || code === 'ENOTDIR') return null;
  throw e;
}

async function askAsync(q: FsAsk): Promise<FsAnswer> {
  switch (q.op) {
    case 'openRoot': {
      const fd = await openAsync(q.path, DIR_FLAGS);
      rememberFolder(fd, q.path);
      return fd;
    }
    case 'openDir': {
      const fd = await openAsync(at(q.dir, q.name), DIR_FLAGS);
      rememberChild(fd, q.dir, q.name);
      return fd;
    }
    case 'lstatAt':
      return lstat(at(q.dir, q.name)).catch(missingToNull);
    case 'readlinkAt':
      return readlink(at(q.dir, q.name));
    case 'fstat':
      return fstatAsync(q.fd);
    case 'mkdirAt':
      await mkdir(at(q.dir, q.name)).catch((e) => {
        if (errno(e) !== 'EEXIST') throw e;
      });
      return undefined;
    case 'createAt':
      return openAsync(at(q.dir, q.name), CREATE_FLAGS, q.mode);
    case 'writeAll': {
      let off = 0;
      while (off < q.data.length) {
        off += (await writeAsync(q.fd, q.data, off, q.data.length - off)).bytesWritten;
      }
      return undefined;
    }
    case 'keepMode':
      await fchmodAsync(q.fd, q.mode);
      if (mayChown(q.uid, q.gid)) await fchownAsync(q.fd, q.uid, q.gid).catch(() => {});
      return undefined;
    case 'renameAt':
      await rename(at(q.dir, q.from), at(q.dir, q.to));
      return undefined;
    case 'unlinkAt':
      await unlink(at(q.dir, q.name));
      return undefined;
    case 'fsync':
      await fsyncAsync(q.fd);
      return undefined;
    case 'close':
      forgetFolder(q.fd);
      await closeAsync(q.fd);
      return undefined;
    case 'lstatPath':
      return lstat(q.path).catch(missingToNull);
    case 'openPath':
      return openAsync(q.path, q.flags);
    case 'readlinkFd':
      return readlink(`/proc/self/fd/${q.fd}`);
    case 'openFile': {
      const handle = await open(q.path, OPEN_FLAGS);
      return { fd: handle.fd, handle };
    }
    case 'closeFile':
      if (q.file.handle) await q.file.handle.close();
      else await closeAsync(q.file.fd);
      return undefined;
  }
}

function askSync(q: FsAsk): FsAnswer {
  switch (q.op) {
    case 'openRoot': {
      const fd = openSync(q.path, DIR_FLAGS);
      rememberFolder(fd, q.path);
      return fd;
    }
    case 'openDir': {
      const fd = openSync(at(q.dir, q.name), DIR_FLAGS);
      rememberChild(fd, q.dir, q.name);
      return fd;
    }
    case 'lstatAt':
      try {
        return lstatSync(at(q.dir, q.name));
      } catch (e) {
        return missingToNull(e);
      }
    case 'readlinkAt':
      return readlinkSync(at(q.dir, q.name));
    case 'fstat':
      return fstatSync(q.fd);
    case 'mkdirAt':
      try {
        mkdirSync(at(q.dir, q.name));
      } catch (e) {
        if (errno(e) !== 'EEXIST') throw e;
      }
      return undefined;
    case 'createAt':
      return openSync(at(q.dir, q.name), CREATE_FLAGS, q.mode);
    case 'writeAll': {
      let off = 0;
      while (off < q.data.length) off += writeSync(q.fd, q.data, off, q.data.length - off);
      return undefined;
    }
    case 'keepMode':
      fchmodSync(q.fd, q.mode);
      if (mayChown(q.uid, q.gid)) {
        try {
          fchownSync(q.fd, q.uid, q.gid);
        } catch {
          /* the owner stays this process's where the file system refuses */
        }
      }
      return undefined;
    case 'renameAt':
      renameSync(at(q.dir, q.from), at(q.dir, q.to));
      return undefined;
    case 'unlinkAt':
      unlinkSync(at(q.dir, q.name));
      return undefined;
    case 'fsync':
      fsyncSync(q.fd);
      return undefined;
    case 'close':
      forgetFolder(q.fd);
      closeSync(q.fd);
      return undefined;
    case 'lstatPath':
      try {
        return lstatSync(q.path);
      } catch (e) {
        return missingToNull(e);
      }
    case 'openPath':
      return openSync(q.path, q.flags);
    case 'readlinkFd':
      return readlinkSync(`/proc/self/fd/${q.fd}`);
    case 'openFile':
      return { fd: openSync(q.path, OPEN_FLAGS) };
    case 'closeFile':
      closeSync(q.file.fd);
      return undefined;
  }
}

/** Drives guarded steps with asynchronous file-system calls. */
async function runSteps<T>(steps: FsSteps<T>): Promise<T> {
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

/** Drives guarded steps with blocking file-system calls. */
function runStepsSync<T>(steps: FsSteps<T>): T {
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

function symlinkError(requestPath: string, component: string, dangling = false): ToolError {
  return new ToolError(
    'PATH_SYMLINK',
    `path ${showPath(requestPath)} ${dangling ? 'is or passes through a dangling symbolic link' : 'is or passes through a symbolic link'} (${showPath(component)}); links are not followed.`,
    { details: { component } },
  );
}

function linkOutside(requestPath: string, component: string): ToolError {
  return new ToolError(
    'PATH_SYMLINK_OUTSIDE_ROOT',
    `path ${showPath(requestPath)} passes through a symbolic link (${showPath(component)}) that points outside the root.`,
    { details: { component } },
  );
}

function changedError(requestPath: string, what = 'changed while it was being opened'): ToolError {
  return new ToolError(
    'PATH_CHANGED',
    `path ${showPath(requestPath)} ${what}; nothing was read or written through it. Try again.`,
  );
}

/** Turns an unexpected errno of a guarded call into a coded error where one fits. */
function fsFailure(requestPath: string, e: unknown): unknown {
  switch (errno(e)) {
    case 'ENAMETOOLONG':
      return tooLong(requestPath, 'the file system refused a name in it as too long');
    case 'EACCES':
    case 'EPERM':
      return new ToolError(
        'PATH_NOT_ACCESSIBLE',
        `path ${showPath(requestPath)} cannot be accessed: permission denied.`,
      );
    case 'ELOOP':
    case 'ENOENT':
    case 'ENOTDIR':
      return changedError(requestPath);
    default:
      return e;
  }
}

/** How the final component of a walk is treated. */
interface WalkMode {
  /**
   * `stat`: lstat it; `file`: lstat it and keep its folder open for the caller to open it;
   * `dir`: open it as a folder; `parent`: keep its folder open (writes).
   */
  final: 'stat' | 'file' | 'dir' | 'parent';
  /** Create missing folders on the way (each opened again without following links). */
  createParents?: boolean;
  /** Follow no link, even when the root allows in-root links (writes). */
  noLinks?: boolean;
  /** A folder on the way that is a file is `PATH_NOT_DIRECTORY` (writes) instead of `PATH_NOT_FOUND`. */
  notDirectoryCode?: string;
  /** Let the path name the state folder (Lectern's own bookkeeping, never a request). */
  allowReserved?: boolean;
}

/** What a walk found. Descriptors it returns (>= 0) belong to the caller, who closes them. */
interface Walked {
  resolved: ResolvedPath;
  /** Segments of the real path relative to the root (in-root links resolved). */
  real: string[];
  /** The folder holding the final component (`file` and `parent` modes), or -1. */
  parent: number;
  /** The final component's name (`''` for the root itself). */
  name: string;
  /** lstat of the final component (fstat of the folder in `dir` mode); null when missing. */
  stat: Stats | null;
  /** The opened folder in `dir` mode, or -1. */
  dir: number;
}

const MAX_LINK_HOPS = 40;

/**
 * Walks a request path from the root's descriptor one component at a time: each folder is
 * opened inside the previous one with O_NOFOLLOW | O_DIRECTORY, so a folder swapped for a link
 * at any moment makes the open fail instead of leaving the root. In-root links (when the root
 * allows them) are read and their target walked again from the root, with the same rules.
 */
function* walkSteps(root: Root, requestPath: string, mode: WalkMode): FsSteps<Walked> {
  const resolved = resolveLexically(root, requestPath, mode.allowReserved ?? false);
  let pending = [...resolved.segments];
  let real: string[] = [];
  let hops = 0;
  let viaLink = false;
  let mkdirs = 0;
  let dir = -1;
  try {
    dir = (yield { op: 'openRoot', path: root.path }) as number;
    if (pending.length === 0) {
      if (mode.final === 'file' || mode.final === 'parent') {
        throw new ToolError(
          'PATH_IS_DIRECTORY',
          `path ${showPath(requestPath)} names the root folder; a file path is needed.`,
        );
      }
      const st = (yield { op: 'fstat', fd: dir }) as Stats;
      const held = mode.final === 'dir' ? dir : -1;
      if (held < 0) yield { op: 'close', fd: dir };
      dir = -1;
      return { resolved, real, parent: -1, name: '', stat: st, dir: held };
    }
    for (;;) {
      const name = pending[0]!;
      const last = pending.length === 1;
      const component = [...real, name].join('/');
      /** Replaces the link `name` by its target and restarts the walk from the root. */
      const follow = function* (): FsSteps<void> {
        if (mode.noLinks || !root.allowInRootSymlinks) throw symlinkError(requestPath, component);
        if (++hops > MAX_LINK_HOPS) {
          throw new ToolError(
            'PATH_SYMLINK',
            `path ${showPath(requestPath)} passes through more than ${MAX_LINK_HOPS} symbolic links.`,
          );
        }
        const target = (yield { op: 'readlinkAt', dir, name }) as string;
        let parts: string[];
        let base: string[];
        if (isAbsolute(target)) {
          const inside = within(root.path, target) ?? within(root.configuredPath, target);
          if (inside === null) throw linkOutside(requestPath, component);
          base = [];
          parts = inside === '' ? [] : inside.split(sep);
        } else {
          base = [...real];
          parts = target.split('/');
        }
        for (const p of parts) {
          if (p === '' || p === '.') continue;
          if (p === '..') {
            if (base.length === 0) throw linkOutside(requestPath, component);
            base.pop();
          } else {
            checkName(requestPath, p);
            base.push(p);
          }
        }
        pending = [...base, ...pending.slice(1)];
        viaLink = true;
        const old = dir;
        dir = -1;
        yield { op: 'close', fd: old };
        dir = (yield { op: 'openRoot', path: root.path }) as number;
        real = [];
      };
      if (pending.length === 0) {
        // a link that resolved to the root folder itself
        const st = (yield { op: 'fstat', fd: dir }) as Stats;
        if (mode.final === 'dir') {
          const held = dir;
          dir = -1;
          return { resolved, real, parent: -1, name: '', stat: st, dir: held };
        }
        throw new ToolError(
          'PATH_IS_DIRECTORY',
          `path ${showPath(requestPath)} leads to the root folder; a file path is needed.`,
        );
      }
      if (last && mode.final !== 'dir') {
        const st = (yield { op: 'lstatAt', dir, name }) as Stats | null;
        if (st?.isSymbolicLink()) {
          yield* follow();
          continue;
        }
        if (st === null && viaLink) throw symlinkError(requestPath, component, true);
        const parent = dir;
        dir = -1;
        return { resolved, real: [...real, name], parent, name, stat: st, dir: -1 };
      }
      let child: number;
      try {
        child = (yield { op: 'openDir', dir, name }) as number;
      } catch (e) {
        const code = errno(e);
        if (code === 'ENOENT') {
          if (viaLink) throw symlinkError(requestPath, component, true);
          if (mode.createParents && !last) {
            if (++mkdirs > 3 * resolved.segments.length + 3) throw changedError(requestPath);
            yield { op: 'mkdirAt', dir, name };
            yield { op: 'fsync', fd: dir };
            continue;
          }
          const old = dir;
          dir = -1;
          yield { op: 'close', fd: old };
          return {
            resolved,
            real: [...real, ...pending],
            parent: -1,
            name: pending.at(-1)!,
            stat: null,
            dir: -1,
          };
        }
        if (code !== 'ENOTDIR' && code !== 'ELOOP') throw fsFailure(requestPath, e);
        // Not a folder: a link, a file or a special file. lstat says which (inside `dir`).
        const st = (yield { op: 'lstatAt', dir, name }) as Stats | null;
        if (st?.isSymbolicLink()) {
          yield* follow();
          continue;
        }
        if (st === null || st.isDirectory()) throw changedError(requestPath);
        if (last) {
          const old = dir;
          dir = -1;
          yield { op: 'close', fd: old };
          return { resolved, real: [...real, name], parent: -1, name, stat: st, dir: -1 };
        }
        throw new ToolError(
          mode.notDirectoryCode ?? 'PATH_NOT_FOUND',
          mode.notDirectoryCode === 'PATH_NOT_DIRECTORY'
            ? `path ${showPath(requestPath)} cannot be created: ${showPath(component)} is a file, not a folder.`
            : `path ${showPath(requestPath)} does not exist: ${showPath(component)} is a file, not a folder.`,
        );
      }
      const old = dir;
      dir = child;
      yield { op: 'close', fd: old };
      real.push(name);
      pending.shift();
      if (last) {
        const st = (yield { op: 'fstat', fd: dir }) as Stats;
        const held = dir;
        dir = -1;
        return { resolved, real, parent: -1, name, stat: st, dir: held };
      }
    }
  } catch (e) {
    if (dir >= 0) {
      const old = dir;
      dir = -1;
      yield { op: 'close', fd: old };
    }
    throw e;
  }
}

/**
 * Confirms that the folder open as `fd` still sits at `rel` inside the root: walks to `rel`
 * again from the root without following any link and compares device and inode. Throws
 * `PATH_CHANGED` when the folder was moved, replaced or removed.
 */
function* confirmSteps(
  root: Root,
  requestPath: string,
  rel: readonly string[],
  fd: number,
): FsSteps<void> {
  const held = (yield { op: 'fstat', fd }) as Stats;
  let again: Walked;
  try {
    again = yield* walkSteps(root, rel.join('/'), {
      final: 'dir',
      noLinks: true,
      allowReserved: true,
    });
  } catch (e) {
    if (e instanceof ToolError) throw changedError(requestPath, 'was moved while it was written');
    throw e;
  }
  if (again.dir >= 0) yield { op: 'close', fd: again.dir };
  const st = again.stat;
  if (again.dir < 0 || st === null || st.dev !== held.dev || st.ino !== held.ino) {
    throw changedError(requestPath, 'was moved while it was written');
  }
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

function hardLinkError(requestPath: string, links: number): ToolError {
  return new ToolError(
    'PATH_HARD_LINK',
    `file ${showPath(requestPath)} has ${links} hard links; another of its names may be outside the root, so it is not read. Serve the root with hard links allowed if they are trusted.`,
    { details: { links } },
  );
}

/** The checks made before opening: exists, regular, one link, under the cap. Returns the cap. */
function checkOpenable(
  root: Root,
  requestPath: string,
  stat: Stats | null,
  options: OpenOptions,
): number {
  if (stat === null) {
    throw new ToolError(
      'PATH_NOT_FOUND',
      `file ${showPath(requestPath)} does not exist in the root.`,
    );
  }
  if (stat.isDirectory()) {
    throw new ToolError(
      'PATH_IS_DIRECTORY',
      `path ${showPath(requestPath)} is a directory; a file is needed here.`,
    );
  }
  if (!stat.isFile()) {
    throw new ToolError(
      'PATH_NOT_REGULAR',
      `path ${showPath(requestPath)} is ${fileKind(stat)}; only regular files can be read.`,
    );
  }
  if (stat.nlink > 1 && !root.allowHardLinks) throw hardLinkError(requestPath, stat.nlink);
  const cap = options.maxBytes ?? root.maxFileBytes;
  if (stat.size > cap) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `file ${showPath(requestPath)} is ${stat.size} bytes, over the ${cap}-byte limit.`,
      { details: { size: stat.size, max_bytes: cap } },
    );
  }
  return cap;
}

/** The checks made on the open descriptor: the same file as checked, still regular and small. */
function checkOpened(
  root: Root,
  requestPath: string,
  checked: Stats,
  fst: Stats,
  cap: number,
): void {
  if (fst.dev !== checked.dev || fst.ino !== checked.ino || !fst.isFile()) {
    throw new ToolError(
      'PATH_CHANGED',
      `file ${showPath(requestPath)} was replaced between the check and the open; refusing to read it.`,
    );
  }
  if (fst.nlink > 1 && !root.allowHardLinks) throw hardLinkError(requestPath, fst.nlink);
  if (fst.size > cap) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `file ${showPath(requestPath)} is ${fst.size} bytes, over the ${cap}-byte limit.`,
      { details: { size: fst.size, max_bytes: cap } },
    );
  }
}

function absoluteOf(root: Root, real: readonly string[]): string {
  return real.length === 0 ? root.path : join(root.path, ...real);
}

/**
 * Opens a regular file inside a root for reading. The path is walked from the root's
 * descriptor one component at a time, every folder opened inside the previous one without
 * following links (links refused unless the root allows in-root links), so swapping any folder
 * for a link at any moment cannot lead outside. Non-regular files are refused without opening
 * them (a FIFO never blocks), files with several hard links are refused unless the root allows
 * them, the size cap is checked before any read, and the file is opened inside its folder with
 * O_NOFOLLOW | O_NONBLOCK and its descriptor's dev/inode compared with what was checked, so a
 * swap between check and use fails with `PATH_CHANGED`.
 *
 * Error codes: `PATH_NUL`, `PATH_TOO_LONG`, `PATH_RESERVED`, `PATH_ABSOLUTE_OUTSIDE_ROOT`,
 * `PATH_ESCAPES_ROOT`, `PATH_SYMLINK`, `PATH_SYMLINK_OUTSIDE_ROOT`, `PATH_NOT_FOUND`,
 * `PATH_IS_DIRECTORY`, `PATH_NOT_REGULAR`, `PATH_HARD_LINK`, `FILE_TOO_LARGE`, `PATH_CHANGED`,
 * `PATH_NOT_ACCESSIBLE`.
 */
export async function openInRoot(
  root: Root,
  requestPath: string,
  options: OpenOptions = {},
): Promise<OpenedFile> {
  const got = await runSteps(openFileSteps(root, requestPath, options));
  return {
    // the async runner always opens with a FileHandle
    handle: got.file.handle!,
    stat: got.stat,
    absolutePath: absoluteOf(root, got.real),
    relativePath: got.relative,
  };
}

/** What {@link openFileSteps} opened. */
interface OpenedChecked {
  file: OpenedAny;
  stat: Stats;
  real: string[];
  relative: string;
}

/**
 * Opens a regular file inside a root: first the verified fast path, then (when it cannot
 * confirm) the anchored walk. The caller owns `file`.
 */
function* openFileSteps(
  root: Root,
  requestPath: string,
  options: OpenOptions,
): FsSteps<OpenedChecked> {
  const resolved = resolveInRoot(root, requestPath);
  const fast = yield* fastFileSteps(root, requestPath, resolved, options);
  if (fast) return fast;
  const walked = yield* walkSteps(root, requestPath, { final: 'file' });
  let file: OpenedAny;
  let cap: number;
  try {
    cap = checkOpenable(root, requestPath, walked.stat, options);
    try {
      file = (yield { op: 'openFile', path: at(walked.parent, walked.name) }) as OpenedAny;
    } catch (e) {
      throw fsFailure(requestPath, e);
    }
  } finally {
    if (walked.parent >= 0) yield { op: 'close', fd: walked.parent };
  }
  try {
    const fst = (yield { op: 'fstat', fd: file.fd }) as Stats;
    checkOpened(root, requestPath, walked.stat!, fst, cap);
    return { file, stat: fst, real: walked.real, relative: walked.resolved.relative };
  } catch (e) {
    yield { op: 'closeFile', file };
    throw e;
  }
}

/**
 * The fast path of a file open, for roots that follow no links, where `/proc` anchoring works:
 * lstat and open the full path (O_NOFOLLOW | O_NONBLOCK), then accept the descriptor only when
 * the kernel's own record of where it lives (`readlink /proc/self/fd/N`) is exactly the
 * expected path inside the root and its dev/inode match the lstat. A path that passed through
 * a link, or a folder moved or swapped at any moment before the check, shows another location
 * and falls back to the anchored walk, which gives the exact refusal. Nothing is read and no
 * fact about the file is reported before the check passes. Returns null to fall back.
 */
function* fastFileSteps(
  root: Root,
  requestPath: string,
  resolved: ResolvedPath,
  options: OpenOptions,
): FsSteps<OpenedChecked | null> {
  if (root.allowInRootSymlinks || !anchoredByProc() || resolved.segments.length === 0) {
    return null;
  }
  const expected = resolved.absolute;
  const st = (yield { op: 'lstatPath', path: expected }) as Stats | null;
  if (st === null || !st.isFile()) return null;
  let file: OpenedAny;
  try {
    file = (yield { op: 'openFile', path: expected }) as OpenedAny;
  } catch {
    return null;
  }
  let ok = false;
  try {
    const fst = (yield { op: 'fstat', fd: file.fd }) as Stats;
    const where = (yield { op: 'readlinkFd', fd: file.fd }) as string;
    if (where !== expected || fst.dev !== st.dev || fst.ino !== st.ino || !fst.isFile()) {
      return null;
    }
    const cap = checkOpenable(root, requestPath, fst, options);
    checkOpened(root, requestPath, fst, fst, cap);
    ok = true;
    return { file, stat: fst, real: resolved.segments, relative: resolved.relative };
  } finally {
    if (!ok) yield { op: 'closeFile', file };
  }
}

/** `O_PATH` (Linux): a descriptor that names a file without opening it (no FIFO, no device). */
const O_PATH = 0o10000000;
const O_PATH_ARCHES = new Set([
  'x64',
  'arm64',
  'arm',
  'ia32',
  'riscv64',
  's390x',
  'ppc64',
  'loong64',
]);

/**
 * The fast path of a stat (or, with `dir`, of a folder open): the full path is opened without
 * following a final link (`O_PATH`, which opens nothing, or `O_DIRECTORY` for a folder) and
 * accepted only when `readlink /proc/self/fd/N` is exactly the expected path. Returns the
 * descriptor and its fstat, or null to fall back to the anchored walk.
 */
function* fastNodeSteps(
  root: Root,
  resolved: ResolvedPath,
  dir: boolean,
): FsSteps<{ fd: number; stat: Stats } | null> {
  if (root.allowInRootSymlinks || !anchoredByProc()) return null;
  if (!dir && !(process.platform === 'linux' && O_PATH_ARCHES.has(process.arch))) return null;
  const expected = resolved.absolute;
  let fd: number;
  try {
    fd = (yield {
      op: 'openPath',
      path: expected,
      flags: dir ? DIR_FLAGS : O_PATH | constants.O_NOFOLLOW,
    }) as number;
  } catch {
    return null;
  }
  let ok = false;
  try {
    const where = (yield { op: 'readlinkFd', fd }) as string;
    if (where !== expected) return null;
    const st = (yield { op: 'fstat', fd }) as Stats;
    // a final link is the anchored walk's to refuse (or follow, in-root, where allowed)
    if (st.isSymbolicLink()) return null;
    ok = true;
    return { fd, stat: st };
  } finally {
    if (!ok) yield { op: 'close', fd };
  }
}

function* closeStep(fd: number): FsSteps<void> {
  yield { op: 'close', fd };
}

/** A regular file opened synchronously inside a root. Close `fd` with `closeSync` when done. */
export interface OpenedFileSync {
  fd: number;
  stat: Stats;
  absolutePath: string;
  relativePath: string;
}

/**
 * Opens the regular file `name` inside the folder open as `parent` (already walked), with the
 * checks of {@link openInRoot}. `stat` is the lstat the walk saw.
 */
function openAtSync(
  root: Root,
  requestPath: string,
  parent: number,
  name: string,
  stat: Stats | null,
  options: OpenOptions = {},
): { fd: number; stat: Stats } {
  const cap = checkOpenable(root, requestPath, stat, options);
  let fd: number;
  try {
    fd = openSync(at(parent, name), OPEN_FLAGS);
  } catch (e) {
    throw fsFailure(requestPath, e);
  }
  try {
    const fst = fstatSync(fd);
    checkOpened(root, requestPath, stat!, fst, cap);
    return { fd, stat: fst };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
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
  const got = runStepsSync(openFileSteps(root, requestPath, options));
  return {
    fd: got.file.fd,
    stat: got.stat,
    absolutePath: absoluteOf(root, got.real),
    relativePath: got.relative,
  };
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
      `file ${showPath(requestPath)} grew past the ${cap}-byte limit while being read.`,
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

/** Reads the whole file open as `fd` (fstat `stat`), bounded as {@link readFileInRoot} is. */
function readOpenedSync(
  requestPath: string,
  cap: number,
  opened: { fd: number; stat: Stats; absolutePath: string; relativePath: string },
): ReadFileResult {
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
}

/** Synchronous {@link readFileInRoot}, with the same checks (see {@link openInRootSync}). */
export function readFileInRootSync(
  root: Root,
  requestPath: string,
  options: OpenOptions = {},
): ReadFileResult {
  const opened = openInRootSync(root, requestPath, options);
  try {
    return readOpenedSync(requestPath, options.maxBytes ?? root.maxFileBytes, opened);
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

function statResult(requestPath: string, walked: Walked, root: Root): StatResult {
  if (walked.stat === null) {
    throw new ToolError(
      'PATH_NOT_FOUND',
      `path ${showPath(requestPath)} does not exist in the root.`,
    );
  }
  return {
    stat: walked.stat,
    absolutePath: absoluteOf(root, walked.real),
    relativePath: walked.resolved.relative,
  };
}

/**
 * Checks a path inside a root (same link and traversal rules as {@link openInRoot}, walked the
 * same anchored way) and returns its lstat without opening it. Throws `PATH_NOT_FOUND` when it
 * does not exist; the root itself is `''` or `.`. The returned paths are for display: to list
 * or read what was checked, use {@link openDirInRoot} or {@link openInRoot}, which cannot be
 * redirected by a later swap.
 */
export async function statInRoot(root: Root, requestPath: string): Promise<StatResult> {
  return runSteps(statSteps(root, requestPath));
}

/** Synchronous {@link statInRoot}. */
export function statInRootSync(root: Root, requestPath: string): StatResult {
  return runStepsSync(statSteps(root, requestPath));
}

function* statSteps(root: Root, requestPath: string): FsSteps<StatResult> {
  const resolved = resolveInRoot(root, requestPath);
  const fast = yield* fastNodeSteps(root, resolved, false);
  if (fast) {
    yield { op: 'close', fd: fast.fd };
    return { stat: fast.stat, absolutePath: resolved.absolute, relativePath: resolved.relative };
  }
  const walked = yield* walkSteps(root, requestPath, { final: 'stat' });
  if (walked.parent >= 0) yield { op: 'close', fd: walked.parent };
  return statResult(requestPath, walked, root);
}

// ---------------------------------------------------------------------------------------------
// Folders opened inside a root.

/**
 * A folder opened inside a root and held by its descriptor: listing it and opening what is in
 * it always happen inside this folder, whatever is done to its path afterwards. Close it.
 */
export class OpenedDir {
  /** The folder's descriptor. */
  readonly fd: number;
  readonly root: Root;
  /** Path of the folder relative to the root (`''` for the root), in-root links resolved. */
  readonly relativePath: string;
  /** fstat of the folder. */
  readonly stat: Stats;
  #closed = false;

  /** @internal use {@link openDirInRoot}. */
  constructor(root: Root, fd: number, relativePath: string, stat: Stats) {
    this.root = root;
    this.fd = fd;
    this.relativePath = relativePath;
    this.stat = stat;
  }

  /** Where the folder was inside the root when it was opened (for display). */
  get absolutePath(): string {
    return this.relativePath === '' ? this.root.path : join(this.root.path, this.relativePath);
  }

  /**
   * A path string naming this folder itself, anchored to its descriptor: a `node:fs` call on
   * `join(dir.path, name)` looks `name` up inside this folder (valid until {@link close}).
   */
  get path(): string {
    return `${fdPath(this.fd)}/.`;
  }

  /** An anchored path naming `name` inside this folder (see {@link path}). */
  at(name: string): string {
    this.#checkChild(name);
    return at(this.fd, name);
  }

  #shown(name: string): string {
    return this.relativePath === '' ? name : `${this.relativePath}/${name}`;
  }

  #checkChild(name: string): void {
    if (this.#closed) throw new Error('the folder is closed');
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
      throw new ToolError('PATH_INVALID', `${JSON.stringify(name)} is not a single file name.`);
    }
    if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
      throw tooLong(this.#shown(name), `a name is over the ${MAX_NAME_BYTES}-byte limit`);
    }
  }

  /**
   * The folder's entries. readdir opens the anchored path itself, so this lists the folder
   * held, never a path that may have been swapped since.
   */
  list(): Dirent[] {
    if (this.#closed) throw new Error('the folder is closed');
    return readdirSync(fdPath(this.fd), { withFileTypes: true });
  }

  /**
   * The names in this folder as raw bytes: {@link list} decodes names as UTF-8, and a name that
   * is not valid UTF-8 comes out with U+FFFD in it, naming no file; this tells them apart.
   */
  listRaw(): Buffer[] {
    if (this.#closed) throw new Error('the folder is closed');
    return readdirSync(fdPath(this.fd), { encoding: 'buffer' });
  }

  /** {@link list} without blocking the event loop. */
  async listAsync(): Promise<Dirent[]> {
    if (this.#closed) throw new Error('the folder is closed');
    return readdir(fdPath(this.fd), { withFileTypes: true });
  }

  /** lstat of `name` inside this folder; null when it does not exist. */
  lstat(name: string): Stats | null {
    this.#checkChild(name);
    try {
      return lstatSync(at(this.fd, name));
    } catch (e) {
      return missingToNull(e);
    }
  }

  /**
   * Opens the folder `name` inside this one without following links. Throws `PATH_SYMLINK`
   * for a link, `PATH_NOT_FOUND` when missing, `PATH_NOT_DIRECTORY` for anything else.
   */
  openDir(name: string): OpenedDir {
    this.#checkChild(name);
    const shown = this.#shown(name);
    let fd: number;
    try {
      fd = openSync(at(this.fd, name), DIR_FLAGS);
    } catch (e) {
      const code = errno(e);
      if (code === 'ENOENT') {
        throw new ToolError('PATH_NOT_FOUND', `folder ${showPath(shown)} does not exist.`);
      }
      if (code === 'ENOTDIR' || code === 'ELOOP') {
        const st = this.lstat(name);
        if (st?.isSymbolicLink()) throw symlinkError(shown, shown);
        if (st && !st.isDirectory()) {
          throw new ToolError(
            'PATH_NOT_DIRECTORY',
            `path ${showPath(shown)} is ${fileKind(st)}, not a folder.`,
          );
        }
        throw changedError(shown);
      }
      throw fsFailure(shown, e);
    }
    rememberChild(fd, this.fd, name);
    try {
      return new OpenedDir(this.root, fd, shown, fstatSync(fd));
    } catch (e) {
      forgetFolder(fd);
      closeSync(fd);
      throw e;
    }
  }

  /**
   * Reads the regular file `name` inside this folder with the checks of {@link readFileInRoot}
   * (no link, no special file, one hard link unless allowed, size cap).
   */
  readFile(name: string, options: OpenOptions = {}): ReadFileResult {
    this.#checkChild(name);
    const shown = this.#shown(name);
    const opened = openAtSync(this.root, shown, this.fd, name, this.lstat(name), options);
    try {
      return readOpenedSync(shown, options.maxBytes ?? this.root.maxFileBytes, {
        ...opened,
        absolutePath: join(this.absolutePath, name),
        relativePath: shown,
      });
    } finally {
      closeSync(opened.fd);
    }
  }

  /** Throws `PATH_CHANGED` when the folder no longer sits at its place inside the root. */
  confirm(): void {
    runStepsSync(
      confirmSteps(
        this.root,
        this.relativePath,
        this.relativePath === '' ? [] : this.relativePath.split('/'),
        this.fd,
      ),
    );
  }

  /** Closes the descriptor (once). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    forgetFolder(this.fd);
    closeSync(this.fd);
  }
}

function dirResult(root: Root, requestPath: string, walked: Walked): OpenedDir {
  if (walked.dir < 0) {
    if (walked.stat === null) {
      throw new ToolError(
        'PATH_NOT_FOUND',
        `folder ${showPath(requestPath)} does not exist in the root.`,
      );
    }
    throw new ToolError(
      'PATH_NOT_DIRECTORY',
      `path ${showPath(requestPath)} is ${fileKind(walked.stat)}, not a folder.`,
    );
  }
  return new OpenedDir(root, walked.dir, walked.real.join('/'), walked.stat!);
}

/**
 * Opens a folder inside a root, walked like {@link openInRoot} (anchored, no links unless the
 * root allows in-root ones). Throws `PATH_NOT_FOUND` or `PATH_NOT_DIRECTORY`, plus the path
 * codes of {@link resolveInRoot}. Close the result.
 */
export async function openDirInRoot(root: Root, requestPath: string): Promise<OpenedDir> {
  return dirResult(root, requestPath, await runSteps(dirSteps(root, requestPath)));
}

/** Synchronous {@link openDirInRoot}. */
export function openDirInRootSync(root: Root, requestPath: string): OpenedDir {
  return dirResult(root, requestPath, runStepsSync(dirSteps(root, requestPath)));
}

function* dirSteps(root: Root, requestPath: string): FsSteps<Walked> {
  const resolved = resolveInRoot(root, requestPath);
  const fast = yield* fastNodeSteps(root, resolved, true);
  if (fast) {
    return {
      resolved,
      real: resolved.segments,
      parent: -1,
      name: resolved.segments.at(-1) ?? '',
      stat: fast.stat,
      dir: fast.fd,
    };
  }
  return yield* walkSteps(root, requestPath, { final: 'dir' });
}

/**
 * Opens Lectern's state folder ({@link STATE_DIR_NAME}) at the top of a root without following
 * links, creating it when `create` is set. Returns null when it does not exist and `create` is
 * not set; throws `STATE_DIR_INVALID` when a link or a file stands in its place. Request paths
 * can never reach this folder; only Lectern's own bookkeeping opens it this way.
 */
export function openStateDirSync(root: Root, options: { create?: boolean } = {}): OpenedDir | null {
  const top = runStepsSync(walkSteps(root, '', { final: 'dir', noLinks: true }));
  const rootDir = new OpenedDir(root, top.dir, '', top.stat!);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openSync(at(rootDir.fd, STATE_DIR_NAME), DIR_FLAGS);
        rememberChild(fd, rootDir.fd, STATE_DIR_NAME);
        return new OpenedDir(root, fd, STATE_DIR_NAME, fstatSync(fd));
      } catch (e) {
        const code = errno(e);
        if (code === 'ENOENT' && options.create && attempt < 3) {
          try {
            // Lectern's state (locks, journals, indexes) is for the root's owner only.
            mkdirSync(at(rootDir.fd, STATE_DIR_NAME), 0o700);
            fsyncSync(rootDir.fd);
          } catch (err) {
            if (errno(err) !== 'EEXIST') throw err;
          }
          continue;
        }
        if (code === 'ENOENT') return null;
        if (code === 'ENOTDIR' || code === 'ELOOP') {
          throw new ToolError(
            'STATE_DIR_INVALID',
            `${join(root.path, STATE_DIR_NAME)} must be a folder (it is a link or a file); remove it so Lectern can keep its state there.`,
          );
        }
        throw e;
      }
    }
  } finally {
    rootDir.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Writes.

/** What {@link resolveForWrite} found. */
export interface WriteTarget {
  /** Absolute path the file will be written at. */
  absolutePath: string;
  /** Normalised path relative to the root. */
  relativePath: string;
  /** lstat of an existing regular file at the path, or null when it does not exist yet. */
  existing: Stats | null;
}

function checkWritable(requestPath: string, st: Stats | null): void {
  if (st === null) return;
  if (st.isDirectory()) {
    throw new ToolError(
      'PATH_IS_DIRECTORY',
      `path ${showPath(requestPath)} is a directory; a file path is needed.`,
    );
  }
  if (!st.isFile()) {
    throw new ToolError(
      'PATH_NOT_REGULAR',
      `path ${showPath(requestPath)} is ${fileKind(st)}; only regular files can be written.`,
    );
  }
}

const WRITE_WALK: WalkMode = {
  final: 'parent',
  noLinks: true,
  notDirectoryCode: 'PATH_NOT_DIRECTORY',
};

/**
 * Write-side check. Walks from the root's descriptor to the target's folder refusing any
 * symbolic link on the way (even an in-root one: nothing is created through a link). An
 * existing target must be a regular file. With `createParents`, missing folders are created
 * one by one inside their (held) parent and opened again without following links. The
 * returned path is for display and for callers that write by path; {@link writeFileInRoot}
 * writes without ever leaving the checked folder.
 */
export async function resolveForWrite(
  root: Root,
  requestPath: string,
  options: { createParents?: boolean } = {},
): Promise<WriteTarget> {
  const walked = await runSteps(
    walkSteps(root, requestPath, { ...WRITE_WALK, createParents: options.createParents ?? false }),
  );
  if (walked.parent >= 0) await runSteps(closeStep(walked.parent));
  checkWritable(requestPath, walked.stat);
  return {
    absolutePath: absoluteOf(root, walked.real),
    relativePath: walked.resolved.relative,
    existing: walked.stat,
  };
}

/** Options of {@link writeFileInRoot}. */
export interface WriteFileOptions {
  /** Create missing folders (default false: `PATH_NOT_FOUND` when the folder is missing). */
  createParents?: boolean;
  /**
   * Mode of the file (default: an existing file's own mode and, for root, owner are kept; a new
   * file gets 0o644 less the umask).
   */
  mode?: number;
}

/** What {@link writeFileInRoot} did. */
export interface WriteFileResult {
  relativePath: string;
  absolutePath: string;
  /** True when no file existed at the path before. */
  created: boolean;
}

function* writeSteps(
  root: Root,
  requestPath: string,
  data: Uint8Array,
  options: WriteFileOptions,
): FsSteps<WriteFileResult> {
  const walked = yield* walkSteps(root, requestPath, {
    ...WRITE_WALK,
    createParents: options.createParents ?? false,
  });
  if (walked.parent < 0) {
    throw new ToolError(
      'PATH_NOT_FOUND',
      `cannot write ${showPath(requestPath)}: its folder does not exist.`,
    );
  }
  const parent = walked.parent;
  const folder = walked.real.slice(0, -1);
  let tmp: string | null = null;
  try {
    checkWritable(requestPath, walked.stat);
    yield* confirmSteps(root, requestPath, folder, parent);
    tmp = tempNameFor(walked.name);
    const fd = (yield {
      op: 'createAt',
      dir: parent,
      name: tmp,
      mode: options.mode ?? 0o644,
    }) as number;
    try {
      // A file replaced keeps its permission bits (exactly: the umask does not apply) and, where
      // this process may give files away, its owner, so a private page stays private.
      const old = walked.stat;
      if (old !== null && options.mode === undefined) {
        yield { op: 'keepMode', fd, mode: old.mode & 0o7777, uid: old.uid, gid: old.gid };
      }
      yield { op: 'writeAll', fd, data };
      yield { op: 'fsync', fd };
    } finally {
      yield { op: 'close', fd };
    }
    // The folder must still be the one inside the root right before and right after the rename.
    yield* confirmSteps(root, requestPath, folder, parent);
    yield { op: 'renameAt', dir: parent, from: tmp, to: walked.name };
    tmp = null;
    yield { op: 'fsync', fd: parent };
    yield* confirmSteps(root, requestPath, folder, parent);
    return {
      relativePath: walked.resolved.relative,
      absolutePath: absoluteOf(root, walked.real),
      created: walked.stat === null,
    };
  } catch (e) {
    if (tmp !== null) {
      try {
        yield { op: 'unlinkAt', dir: parent, name: tmp };
      } catch {
        /* never created */
      }
    }
    throw fsFailure(requestPath, e);
  } finally {
    yield { op: 'close', fd: parent };
  }
}

function* removeSteps(root: Root, requestPath: string): FsSteps<boolean> {
  const walked = yield* walkSteps(root, requestPath, WRITE_WALK);
  if (walked.parent < 0) return false;
  const parent = walked.parent;
  try {
    if (walked.stat === null) return false;
    checkWritable(requestPath, walked.stat);
    const folder = walked.real.slice(0, -1);
    yield* confirmSteps(root, requestPath, folder, parent);
    yield { op: 'unlinkAt', dir: parent, name: walked.name };
    yield { op: 'fsync', fd: parent };
    return true;
  } catch (e) {
    throw fsFailure(requestPath, e);
  } finally {
    yield { op: 'close', fd: parent };
  }
}

/**
 * Replaces (or creates) a regular file inside a root atomically without leaving the root: the
 * folder is reached by the anchored walk (no link on the way, missing folders created with
 * `createParents`), a temporary file is created exclusively inside that held folder, written
 * and fsynced, the folder is confirmed to still sit at its place inside the root, the file is
 * renamed over the target inside the same folder, the folder is fsynced and confirmed again.
 * Readers see the old bytes or the new bytes. Throws the path codes of {@link resolveForWrite},
 * and `PATH_CHANGED` when a folder on the way was moved or swapped meanwhile (if that happens
 * after the rename, the new file is in the moved folder, never outside the original tree).
 */
export async function writeFileInRoot(
  root: Root,
  requestPath: string,
  data: Uint8Array | string,
  options: WriteFileOptions = {},
): Promise<WriteFileResult> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return runSteps(writeSteps(root, requestPath, bytes, options));
}

/** Synchronous {@link writeFileInRoot} (start-up recovery). */
export function writeFileInRootSync(
  root: Root,
  requestPath: string,
  data: Uint8Array | string,
  options: WriteFileOptions = {},
): WriteFileResult {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return runStepsSync(writeSteps(root, requestPath, bytes, options));
}

/**
 * Removes a regular file inside a root, reached by the anchored walk (no link on the way), and
 * fsyncs its folder. Resolves to false when there was nothing to remove.
 */
export async function removeFileInRoot(root: Root, requestPath: string): Promise<boolean> {
  return runSteps(removeSteps(root, requestPath));
}

/** Synchronous {@link removeFileInRoot}. */
export function removeFileInRootSync(root: Root, requestPath: string): boolean {
  return runStepsSync(removeSteps(root, requestPath));
}

/** Synchronous lstat-based check that a path is a directory (for configuration validation). */
export function isDirectorySync(p: string): boolean {
  try {
    return lstatSync(p).isDirectory() || statSync(p).isDirectory();
  } catch {
    return false;
  }
}
