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

function direntKind(entry: Dirent): 'file' | 'dir' | 'link' | 'special' | 'unknown' {
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice())
    return 'special';
  return 'unknown';
}

/**
 * Lists the files a source includes: a depth-first walk from the source's real root path that
 * skips every entry whose name starts with `.` (hidden files and folders, `.git`, `.lectern`),
 * never follows a symbolic link, skips FIFOs, sockets and devices, prunes excluded folders, and
 * stats each included file with lstat. Files are returned sorted by path.
 */
export function walkSource(source: ResolvedSource, stats?: WalkStats): WalkedFile[] {
  const out: WalkedFile[] = [];
  const stack: string[] = [''];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const abs = rel === '' ? source.root.path : join(source.root.path, rel);
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      if (stats) stats.unreadable++;
      continue;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name.startsWith('.')) continue;
      const childRel = rel === '' ? name : `${rel}/${name}`;
      let kind = direntKind(entry);
      if (kind === 'unknown') {
        // Some file systems do not report entry types: ask lstat (never stat).
        try {
          const st = lstatSync(join(abs, name));
          kind = st.isSymbolicLink()
            ? 'link'
            : st.isDirectory()
              ? 'dir'
              : st.isFile()
                ? 'file'
                : 'special';
        } catch {
          continue;
        }
      }
      if (kind === 'link') {
        if (stats) stats.links++;
        continue;
      }
      if (kind === 'dir') {
        if (!source.excludesFolder(childRel)) stack.push(childRel);
        continue;
      }
      if (kind !== 'file') {
        if (stats) stats.special++;
        continue;
      }
      if (!source.matches(childRel)) continue;
      let st: Stats | undefined;
      try {
        st = lstatSync(`${abs}/${name}`, { throwIfNoEntry: false });
      } catch {
        continue; // unreadable
      }
      if (!st?.isFile()) continue; // deleted or replaced since readdir
      out.push({ path: childRel, size: st.size, mtime: st.mtimeMs, ino: st.ino });
    }
  }
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}
