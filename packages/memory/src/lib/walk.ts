import { type Dirent, lstatSync, type Stats } from 'node:fs';
import {
  isToolError,
  type OpenedDir,
  openDirInRootSync,
  type Root,
  unnamedEntries,
} from '@lectern/core';
import picomatch from 'picomatch';
import type { StatWorker } from './stat-worker.js';

/** A configured source, resolved: its root guard and compiled globs. */
export interface ResolvedSource {
  /** Source id, the first segment of every path the tools return. */
  id: string;
  /** Root guard over the source folder. */
  root: Root;
  /** Include globs, relative to the source folder. */
  include: string[];
  /** Exclude globs, relative to the source folder. */
  exclude: string[];
  /** True when a relative file path is included and not excluded. */
  matches: (relativePath: string) => boolean;
  /** True when a relative folder path is excluded (its whole subtree is skipped). */
  excludesFolder: (relativePath: string) => boolean;
  /** Folder listings kept between walks, if any. */
  walkCache?: WalkCache;
}

/** Default include globs: Markdown and plain text. */
export const DEFAULT_INCLUDE: readonly string[] = ['**/*.md', '**/*.markdown', '**/*.txt'];
/** Default exclude globs. */
export const DEFAULT_EXCLUDE: readonly string[] = ['**/node_modules/**'];

/** Compiles a source's include/exclude globs. */
export function compileGlobs(
  include: readonly string[],
  exclude: readonly string[],
): Pick<ResolvedSource, 'matches' | 'excludesFolder'> {
  const inc = picomatch([...include], { dot: false });
  const exc = exclude.length > 0 ? picomatch([...exclude], { dot: true }) : () => false;
  return {
    matches: (p) => inc(p) && !exc(p),
    // A folder is pruned when a path inside it would be excluded by a `dir/**` style glob.
    excludesFolder: (p) => exc(p) || exc(`${p}/`) || exc(`${p}/\u0000probe`),
  };
}

/** A file found by a walk. */
export interface WalkedFile {
  /** Path relative to the source folder, `/`-separated. */
  path: string;
  /** `<source id>/<path>`. */
  key: string;
  size: number;
  /** Modification time in milliseconds (fractional). */
  mtime: number;
  /** Inode number. */
  ino: number;
}

/** Counts of entries a walk passed over. */
export interface WalkStats {
  /** Symbolic links seen and not followed. */
  links: number;
  /** Entries that are neither a regular file nor a folder. */
  special: number;
  /** Folders that could not be read. */
  unreadable: number;
  /**
   * Entries passed over because their names are not valid UTF-8 (no request can name them):
   * their paths in the source, each invalid byte shown as `\xHH`, a folder's with a trailing
   * `/` (never entered). Only entries the walk would otherwise take: not hidden, files the
   * include globs match, folders not excluded.
   */
  unnamed: string[];
}

/** What one folder held when it was last listed. */
export interface ListedFolder {
  mtime: number;
  ino: number;
  /** False when the folder changed so soon before it was listed that its mtime cannot be trusted. */
  trusted: boolean;
  /** Included files: path in the source, `<source>/<path>`, and the name in the folder. */
  files: Array<{ path: string; key: string; name: string }>;
  /** Sub-folders to walk (not excluded). */
  folders: string[];
  links: number;
  special: number;
  /** Entries whose names are not valid UTF-8, as {@link WalkStats.unnamed} shows them. */
  unnamed: string[];
}

/**
 * Folder listings of one source kept between walks. A folder's entries change only when its
 * own modification time does (an entry added, removed or renamed), so a folder whose mtime and
 * inode are unchanged is not read again; its files are still stat'ed one by one, since editing
 * a file in place leaves the folder's mtime alone.
 */
export class WalkCache {
  readonly folders = new Map<string, ListedFolder>();
  /** The paths last given to the stat worker, and the listings they came from. */
  workerPaths: { listings: ReadonlyArray<ListedFolder['files']>; paths: string[] } | undefined;
}

/** A folder modified this close to its listing is listed again next time (racy mtime). */
const RACY_FOLDER_MS = 2000;

function direntKind(entry: Dirent): 'file' | 'dir' | 'link' | 'special' | 'unknown' {
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice())
    return 'special';
  return 'unknown';
}

/** Lists one held folder: included files, folders to descend into, links and special entries. */
export function listFolder(
  source: ResolvedSource,
  dir: OpenedDir,
  listedAt: number,
): ListedFolder | undefined {
  const rel = dir.relativePath;
  let entries: Dirent[];
  try {
    entries = dir.list();
  } catch {
    return undefined;
  }
  const listed: ListedFolder = {
    mtime: dir.stat.mtimeMs,
    ino: dir.stat.ino,
    trusted: listedAt - dir.stat.mtimeMs >= RACY_FOLDER_MS,
    files: [],
    folders: [],
    links: 0,
    special: 0,
    unnamed: [],
  };
  const lossy = recordUnnamed(source, dir, entries, listed);
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith('.')) continue;
    if (lossy?.has(name)) continue;
    const childRel = rel === '' ? name : `${rel}/${name}`;
    let kind = direntKind(entry);
    if (kind === 'unknown') {
      // Some file systems do not report entry types: ask lstat (never stat), inside the folder.
      const est = dir.lstat(name);
      if (!est) continue;
      kind = est.isSymbolicLink()
        ? 'link'
        : est.isDirectory()
          ? 'dir'
          : est.isFile()
            ? 'file'
            : 'special';
    }
    if (kind === 'link') listed.links++;
    else if (kind === 'dir') {
      if (!source.excludesFolder(childRel)) listed.folders.push(childRel);
    } else if (kind !== 'file') listed.special++;
    else if (source.matches(childRel)) {
      listed.files.push({ path: childRel, key: `${source.id}/${childRel}`, name });
    }
  }
  return listed;
}

/**
 * Finds the entries of a listing whose names are not valid UTF-8 (readdir decodes them with
 * U+FFFD, and that name finds no file), records those the walk would take in
 * `listed.unnamed`, and returns their decoded names, to leave out of the listing. Undefined
 * when every name is valid (the common case costs one scan for U+FFFD).
 */
function recordUnnamed(
  source: ResolvedSource,
  dir: OpenedDir,
  entries: readonly Dirent[],
  listed: ListedFolder,
): Set<string> | undefined {
  const found = unnamedEntries(dir, entries, { keepLinks: true });
  if (!found) return undefined;
  const rel = dir.relativePath;
  for (const { name: shown, entry } of found.shown) {
    if (shown.startsWith('.')) continue; // hidden, as any name starting with a dot
    const childRel = rel === '' ? shown : `${rel}/${shown}`;
    const kind = entry ? direntKind(entry) : 'unknown';
    if (kind === 'link') listed.links++;
    else if (kind === 'special') listed.special++;
    else if (kind === 'dir') {
      if (!source.excludesFolder(childRel)) listed.unnamed.push(`${childRel}/`);
    } else if (source.matches(childRel)) listed.unnamed.push(childRel);
  }
  listed.unnamed.sort();
  return found.lossy;
}

/** A listed folder whose files are to be stat'ed, with the identity of the folder held. */
interface Pending {
  rel: string;
  /** Absolute path of the folder (the root's real path and the folder's place in it). */
  base: string;
  dev: number;
  ino: number;
  files: ListedFolder['files'];
}

/** Share of the files the stat worker takes. */
const WORKER_SHARE = 0.6;

/** Below this many files a walk stats everything on the calling thread. */
export const WORKER_MIN_FILES = 2048;

/** Options of {@link walkSourceAsync}. */
export interface WalkOptions {
  /** Counts of entries passed over. */
  stats?: WalkStats;
  /** A helper thread to stat part of the files on. */
  worker?: StatWorker;
  /** Use the worker from this many files on (default {@link WORKER_MIN_FILES}). */
  workerMinFiles?: number;
  /**
   * False to ask the worker every time. By default a walk goes without it for a while after
   * one where it did not pay (see {@link StatWorker.judge}).
   */
  adaptive?: boolean;
}

/**
 * Lists the files a source includes: a depth-first walk from the source's root that skips every
 * entry whose name starts with `.` (hidden files and folders, `.git`, `.lectern`), never follows
 * a symbolic link, skips FIFOs, sockets and devices, prunes excluded folders, and stats each
 * included file with lstat. Every folder is opened inside its parent's descriptor without
 * following links and listed through it (core's `OpenedDir`), so a folder swapped for a link
 * mid-walk is never entered. With a {@link WalkCache}, a folder whose mtime and inode are
 * unchanged since the last walk is not listed again. Files come in the walk's order (a folder's
 * files, then its sub-folders, depth first).
 *
 * Files are stat'ed by absolute path, which costs about half of a lookup through the held
 * descriptor (`/proc/self/fd/N/name`); afterwards the folder at that path must still be the one
 * that was listed (a directory with the same device and inode). When it is not (the folder or a
 * parent was swapped or moved during the walk), its files are stat'ed again inside the folder
 * opened anew through the root guard. A swap and swap back between those lstats could only
 * show the walk another file's size and mtime, which decides nothing but whether the file is
 * read again: contents are always read through the guard's anchored open, which refuses links.
 */
export function walkSource(source: ResolvedSource, stats?: WalkStats): WalkedFile[] {
  const folders = listFolders(source, stats);
  const results = folders.map((f) => statHere(f));
  return verified(source, folders, results);
}

/**
 * {@link walkSource}, with part of the lstats on a helper thread when the source is large: the
 * main thread stats the first folders while the worker stats the last ones. Same files, same
 * order; if the worker fails, its folders are stat'ed here.
 */
export async function walkSourceAsync(
  source: ResolvedSource,
  options: WalkOptions = {},
): Promise<WalkedFile[]> {
  const folders = listFolders(source, options.stats);
  let total = 0;
  for (const f of folders) total += f.files.length;
  const worker = options.worker;
  if (
    !worker ||
    total < (options.workerMinFiles ?? WORKER_MIN_FILES) ||
    folders.length < 2 ||
    (options.adaptive !== false && !worker.worthAsking())
  ) {
    return verified(
      source,
      folders,
      folders.map((f) => statHere(f)),
    );
  }
  // The worker takes the last folders, about 60 % of the files: it only stats, while this
  // thread also builds a `Stats` and a result object per file.
  let split = folders.length;
  for (let n = 0; split > 1 && n < total * WORKER_SHARE; ) n += folders[--split]!.files.length;
  const theirs = folders.slice(split);
  const paths = workerPaths(source.walkCache, theirs);
  const t0 = performance.now();
  const asked = worker.stat(paths);
  asked.catch(() => {}); // handled below, after this thread's share
  const results: WalkedFile[][] = [];
  for (let i = 0; i < split; i++) results.push(statHere(folders[i]!));
  const mine = performance.now() - t0;
  let answer: Float64Array | undefined;
  try {
    answer = await asked;
  } catch {
    answer = undefined;
  }
  if (options.adaptive !== false) {
    let own = 0;
    for (let i = 0; i < split; i++) own += folders[i]!.files.length;
    // About what stat'ing every file here would have taken.
    worker.judge((mine * total) / Math.max(1, own), performance.now() - t0);
  }
  let at = 0;
  for (const f of theirs) {
    if (!answer) {
      results.push(statHere(f));
      continue;
    }
    const out: WalkedFile[] = [];
    for (const file of f.files) {
      const i = at++ * 4;
      if (answer[i] === 1) {
        out.push({
          path: file.path,
          key: file.key,
          size: answer[i + 1]!,
          mtime: answer[i + 2]!,
          ino: answer[i + 3]!,
        });
      }
    }
    results.push(out);
  }
  return verified(source, folders, results);
}

/**
 * The absolute paths of the worker's folders: the same array as last time while the folders and
 * their listings are the same ones (the worker then keeps the copy it has).
 */
function workerPaths(cache: WalkCache | undefined, folders: readonly Pending[]): string[] {
  const last = cache?.workerPaths;
  if (
    last &&
    last.listings.length === folders.length &&
    folders.every((f, i) => f.files === last.listings[i])
  ) {
    return last.paths;
  }
  const paths: string[] = [];
  for (const f of folders) for (const file of f.files) paths.push(`${f.base}/${file.name}`);
  if (cache) cache.workerPaths = { listings: folders.map((f) => f.files), paths };
  return paths;
}

/** Walks the folders (listing those the cache cannot vouch for); stats no file. */
function listFolders(source: ResolvedSource, stats?: WalkStats): Pending[] {
  const out: Pending[] = [];
  let top: OpenedDir;
  try {
    top = openDirInRootSync(source.root, '');
  } catch (error) {
    if (!isToolError(error)) throw error;
    if (stats) stats.unreadable++;
    return out;
  }
  const seen = source.walkCache ? new Set<string>() : undefined;
  try {
    walkOne(source, top, out, stats, seen, Date.now());
  } finally {
    top.close();
  }
  // Folders that no longer exist under the source: forget their listings.
  const cache = source.walkCache;
  if (cache && seen)
    for (const rel of cache.folders.keys()) if (!seen.has(rel)) cache.folders.delete(rel);
  return out;
}

/** Walks one held folder, depth first: never more open descriptors than the tree is deep. */
function walkOne(
  source: ResolvedSource,
  dir: OpenedDir,
  out: Pending[],
  stats: WalkStats | undefined,
  seen: Set<string> | undefined,
  now: number,
): void {
  const rel = dir.relativePath;
  const cache = source.walkCache;
  const cached = cache?.folders.get(rel);
  let listed: ListedFolder | undefined;
  if (cached?.trusted && cached.mtime === dir.stat.mtimeMs && cached.ino === dir.stat.ino) {
    listed = cached;
  } else {
    listed = listFolder(source, dir, now);
    if (!listed) {
      cache?.folders.delete(rel);
      if (stats) stats.unreadable++;
      return;
    }
    cache?.folders.set(rel, listed);
  }
  seen?.add(rel);
  if (stats) {
    stats.links += listed.links;
    stats.special += listed.special;
    for (const name of listed.unnamed) stats.unnamed.push(name);
  }
  if (listed.files.length > 0) {
    out.push({
      rel,
      base: rel === '' ? source.root.path : `${source.root.path}/${rel}`,
      dev: dir.stat.dev,
      ino: dir.stat.ino,
      files: listed.files,
    });
  }
  for (const folder of listed.folders) {
    let child: OpenedDir;
    try {
      child = dir.openDir(folder.slice(folder.lastIndexOf('/') + 1));
    } catch (error) {
      if (!isToolError(error)) throw error;
      // swapped for a link or removed since the listing: not entered
      if (stats && (error.code === 'PATH_SYMLINK' || error.code === 'PATH_CHANGED')) stats.links++;
      continue;
    }
    try {
      walkOne(source, child, out, stats, seen, now);
    } finally {
      child.close();
    }
  }
}

/**
 * The time a file last changed as the index compares it: the later of its mtime and its ctime.
 * An edit in place that keeps the size and restores the mtime (`cp -p`, `rsync --inplace -t`,
 * `touch -r`, `tar -x`) still moves the ctime, which no user call can set back; a ctime moved
 * by a rename or chmod alone costs one read, whose unchanged hash keeps the chunks.
 */
export function changeTime(st: { mtimeMs: number; ctimeMs: number }): number {
  return Math.max(st.mtimeMs, st.ctimeMs);
}

/** The walk entry of a listed file from its lstat; undefined unless it is a regular file. */
export function walkedFile(
  file: ListedFolder['files'][number],
  st: Stats | null | undefined,
): WalkedFile | undefined {
  return st?.isFile()
    ? { path: file.path, key: file.key, size: st.size, mtime: changeTime(st), ino: st.ino }
    : undefined;
}

/** lstat of an absolute path, no link followed; undefined when missing or unreadable. */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * True when the folder at absolute path `base` is still the one of this device and inode: its
 * files' stats taken by absolute path are then the held folder's.
 */
export function isFolderAt(base: string, id: { dev: number; ino: number }): boolean {
  const now = lstatOrUndefined(base);
  return now?.isDirectory() === true && now.ino === id.ino && now.dev === id.dev;
}

/** lstats a folder's files by absolute path. */
function statHere(folder: Pending): WalkedFile[] {
  const out: WalkedFile[] = [];
  for (const f of folder.files) {
    // undefined: deleted, replaced since the listing, or unreadable
    const entry = walkedFile(f, lstatOrUndefined(`${folder.base}/${f.name}`));
    if (entry) out.push(entry);
  }
  return out;
}

/**
 * The walk's files, in folder order, keeping a folder's stats only when the folder at its
 * absolute path is still the one listed; otherwise its files are stat'ed again inside the folder
 * as the root guard opens it now (nothing, if it cannot).
 */
function verified(
  source: ResolvedSource,
  folders: readonly Pending[],
  results: ReadonlyArray<WalkedFile[]>,
): WalkedFile[] {
  const out: WalkedFile[] = [];
  for (let i = 0; i < folders.length; i++) {
    const folder = folders[i]!;
    if (isFolderAt(folder.base, folder)) {
      for (const f of results[i]!) out.push(f);
      continue;
    }
    let dir: OpenedDir;
    try {
      dir = openDirInRootSync(source.root, folder.rel);
    } catch (error) {
      if (!isToolError(error)) throw error;
      continue; // gone or swapped for a link: its files are not seen this time
    }
    try {
      for (const f of folder.files) {
        const entry = statInFolder(dir, f);
        if (entry) out.push(entry);
      }
    } finally {
      dir.close();
    }
  }
  return out;
}

/** lstat of one listed file inside the held folder: its walk entry, or undefined if not a file. */
export function statInFolder(
  dir: OpenedDir,
  file: ListedFolder['files'][number],
): WalkedFile | undefined {
  try {
    return walkedFile(file, dir.lstat(file.name));
  } catch {
    return undefined; // unreadable
  }
}
