import { type Dirent, lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Root } from '@lectern/core';
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
  /** Included files: path in the source and `<source>/<path>`. */
  files: Array<{ path: string; key: string }>;
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

/** Lists one folder: included files, folders to descend into, links and special entries. */
function listFolder(
  source: ResolvedSource,
  rel: string,
  abs: string,
  st: Stats,
  listedAt: number,
): ListedFolder | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const listed: ListedFolder = {
    mtime: st.mtimeMs,
    ino: st.ino,
    trusted: listedAt - st.mtimeMs >= RACY_FOLDER_MS,
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
      // Some file systems do not report entry types: ask lstat (never stat).
      try {
        const est = lstatSync(join(abs, name));
        kind = est.isSymbolicLink()
          ? 'link'
          : est.isDirectory()
            ? 'dir'
            : est.isFile()
              ? 'file'
              : 'special';
      } catch {
        continue;
      }
    }
    if (kind === 'link') listed.links++;
    else if (kind === 'dir') {
      if (!source.excludesFolder(childRel)) listed.folders.push(childRel);
    } else if (kind !== 'file') listed.special++;
    else if (source.matches(childRel)) {
      listed.files.push({ path: childRel, key: `${source.id}/${childRel}` });
    }
  }
  return listed;
}

/**
 * Lists the files a source includes: a depth-first walk from the source's real root path that
 * skips every entry whose name starts with `.` (hidden files and folders, `.git`, `.lectern`),
 * never follows a symbolic link, skips FIFOs, sockets and devices, prunes excluded folders, and
 * stats each included file with lstat. With a {@link WalkCache}, folders unchanged since the
 * last walk are not listed again. Files come in no particular order.
 */
export function walkSource(source: ResolvedSource, stats?: WalkStats): WalkedFile[] {
  const cache = source.walkCache;
  const out: WalkedFile[] = [];
  const seen = cache ? new Set<string>() : undefined;
  const now = Date.now();
  const stack: string[] = [''];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const abs = rel === '' ? source.root.path : `${source.root.path}/${rel}`;
    let listed: ListedFolder | undefined;
    let st: Stats | undefined;
    try {
      st = lstatSync(abs, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (!st?.isDirectory()) {
      if (stats) stats.unreadable++;
      continue;
    }
    const cached = cache?.folders.get(rel);
    if (cached?.trusted && cached.mtime === st.mtimeMs && cached.ino === st.ino) {
      listed = cached;
    } else {
      listed = listFolder(source, rel, abs, st, now);
      if (!listed) {
        cache?.folders.delete(rel);
        if (stats) stats.unreadable++;
        continue;
      }
      cache?.folders.set(rel, listed);
    }
    seen?.add(rel);
    if (stats) {
      stats.links += listed.links;
      stats.special += listed.special;
    }
    for (const f of listed.folders) stack.push(f);
    for (const f of listed.files) {
      let fst: Stats | undefined;
      try {
        fst = lstatSync(`${abs}/${f.path.slice(f.path.lastIndexOf('/') + 1)}`, {
          throwIfNoEntry: false,
        });
      } catch {
        continue; // unreadable
      }
      if (!fst?.isFile()) continue; // deleted or replaced since the listing
      out.push({ path: f.path, key: f.key, size: fst.size, mtime: fst.mtimeMs, ino: fst.ino });
    }
  }
  // Folders that no longer exist under the source: forget their listings.
  if (cache && seen)
    for (const rel of cache.folders.keys()) if (!seen.has(rel)) cache.folders.delete(rel);
  return out;
}
