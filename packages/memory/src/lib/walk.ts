import { type Dirent, lstatSync, type Stats } from 'node:fs';
import { isToolError, type OpenedDir, openDirInRootSync, type Root } from '@lectern/core';
import picomatch from 'picomatch';

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
}

/** What one folder held when it was last listed. */
interface ListedFolder {
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
}

/**
 * Folder listings of one source kept between walks. A folder's entries change only when its
 * own modification time does (an entry added, removed or renamed), so a folder whose mtime and
 * inode are unchanged is not read again; its files are still stat'ed one by one, since editing
 * a file in place leaves the folder's mtime alone.
 */
export class WalkCache {
  readonly folders = new Map<string, ListedFolder>();
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
function listFolder(
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
  };
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith('.')) continue;
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
 * Lists the files a source includes: a depth-first walk from the source's root that skips every
 * entry whose name starts with `.` (hidden files and folders, `.git`, `.lectern`), never follows
 * a symbolic link, skips FIFOs, sockets and devices, prunes excluded folders, and stats each
 * included file with lstat. Every folder is opened inside its parent's descriptor without
 * following links and listed through it (core's `OpenedDir`), so a folder swapped for a link
 * mid-walk is never entered. With a {@link WalkCache}, a folder whose mtime and inode are
 * unchanged since the last walk is not listed again. Files come in no particular order.
 */
export function walkSource(source: ResolvedSource, stats?: WalkStats): WalkedFile[] {
  const out: WalkedFile[] = [];
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
  out: WalkedFile[],
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
  }
  statFiles(source, dir, listed.files, out);
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
 * lstats a folder's listed files and adds the regular ones to `out`. The fast way names each
 * file by its absolute path (the root's real path and the folder's place in it), which costs
 * about half of a lookup through the held descriptor (`/proc/self/fd/N/name`). Afterwards the
 * folder at that path must still be the one held (a directory with the same device and inode);
 * if it is not (the folder or a parent was swapped or moved during the walk), the stats taken
 * are dropped and the files are stat'ed again inside the held descriptor, as before. A swap
 * and swap back between two of these lstats can only make the walk see another file's size and
 * mtime, which decides nothing but whether the file is read: contents are always read through
 * the guard's anchored open, which refuses links.
 */
function statFiles(
  source: ResolvedSource,
  dir: OpenedDir,
  files: ListedFolder['files'],
  out: WalkedFile[],
): void {
  if (files.length === 0) return;
  const rel = dir.relativePath;
  const base = rel === '' ? source.root.path : `${source.root.path}/${rel}`;
  const start = out.length;
  for (const f of files) {
    let st: Stats | undefined;
    try {
      st = lstatSync(`${base}/${f.name}`, { throwIfNoEntry: false });
    } catch {
      continue; // unreadable
    }
    if (!st?.isFile()) continue; // deleted or replaced since the listing
    out.push({ path: f.path, key: f.key, size: st.size, mtime: st.mtimeMs, ino: st.ino });
  }
  let same = false;
  try {
    const now = lstatSync(base, { throwIfNoEntry: false });
    same =
      now !== undefined &&
      now.isDirectory() &&
      now.ino === dir.stat.ino &&
      now.dev === dir.stat.dev;
  } catch {
    same = false;
  }
  if (same) return;
  out.length = start;
  for (const f of files) {
    let st: Stats | null;
    try {
      st = dir.lstat(f.name);
    } catch {
      continue; // unreadable
    }
    if (!st?.isFile()) continue;
    out.push({ path: f.path, key: f.key, size: st.size, mtime: st.mtimeMs, ino: st.ino });
  }
}
