import type { Dirent, Stats } from 'node:fs';
import {
  isToolError,
  type OpenedDir,
  openDirInRootSync,
  type Root,
  readFileInRoot,
  STATE_DIR_NAME,
  ToolError,
  type UnnamedEntries,
  unnamedEntries,
} from '@lectern/core';
import ignore, { type Ignore } from 'ignore';
import type { PathMatcher } from './glob.js';

/**
 * A place in walk order: everything up to `path` is done; with `descend`, the folder at
 * `path` still has its contents to walk; with `inclusive`, `path` itself is walked again.
 */
export interface WalkPosition {
  path: string;
  descend: boolean;
  inclusive?: boolean;
}

/** Options of {@link walkTree}. */
export interface WalkOptions {
  root: Root;
  /** Folder to walk, relative to the root (`''` for the root); already checked by the caller. */
  folder: string;
  include?: PathMatcher | undefined;
  exclude?: PathMatcher | undefined;
  /** Honour `.gitignore` files (the root's, the folder's ancestors' and every nested one). */
  gitignore: boolean;
  /** Deepest level walked; 1 = the folder's direct children. */
  maxDepth: number;
  /** Report folders as accepted entries (they are always walked into). */
  directories: boolean;
  /** Resume after this position. */
  after?: WalkPosition | undefined;
  signal?: AbortSignal;
  /** lstat each accepted entry inside its (held) folder and report it as `stat`. */
  stats?: boolean;
}

/** One entry the walk examined, in walk order. */
export interface WalkEvent {
  /** Workspace-relative path, `/`-separated. */
  path: string;
  type: 'file' | 'directory' | 'other';
  /** 1 for the folder's direct children. */
  depth: number;
  /** True when the entry passes every filter and should be reported. */
  accepted: boolean;
  /** True when the walk will go into this folder next. */
  descend: boolean;
  /** lstat of an accepted entry, taken inside its folder (with `stats`); null if it vanished. */
  stat?: Stats | null;
  /**
   * True for an entry whose name is not valid UTF-8: it cannot be named in a request, so it is
   * never accepted or entered; `path` shows it with each invalid byte escaped as `\xHH`.
   */
  unnamed?: boolean;
}

export { escapeInvalidUtf8 } from '@lectern/core';

/** The usual listing: every name valid UTF-8. */
const NO_UNNAMED: UnnamedEntries = { lossy: new Set(), shown: [] };

const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * Orders workspace paths the way the walk visits them: segment by segment, by UTF-16 code
 * unit, a folder before its contents.
 */
export function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  const as = a === '' ? [] : a.split('/');
  const bs = b === '' ? [] : b.split('/');
  const n = Math.min(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const x = as[i]!;
    const y = bs[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

interface IgnoreLevel {
  /** Folder the rules belong to, workspace-relative (`''` for the root). */
  dir: string;
  rules: Ignore;
}

async function loadGitignore(root: Root, dir: string): Promise<IgnoreLevel | undefined> {
  const rel = dir === '' ? '.gitignore' : `${dir}/.gitignore`;
  try {
    const { bytes } = await readFileInRoot(root, rel, { maxBytes: MAX_GITIGNORE_BYTES });
    return { dir, rules: ignore().add(bytes.toString('utf8')) };
  } catch (error) {
    // A missing, linked, special or oversized .gitignore contributes no rules.
    if (isToolError(error)) return undefined;
    throw error;
  }
}

function ignoredBy(levels: readonly IgnoreLevel[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    const sub = level.dir === '' ? path : path.slice(level.dir.length + 1);
    if (sub === '') continue;
    const result = level.rules.test(isDir ? `${sub}/` : sub);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/** Never listed, never entered: git's store and Lectern's own state folder. */
function neverWalked(name: string): boolean {
  return name === '.git' || name.toLowerCase() === STATE_DIR_NAME;
}

/** Opens a child folder inside its held parent; a folder swapped for a link is skipped. */
function openChild(parent: OpenedDir, name: string): OpenedDir | undefined {
  try {
    return parent.openDir(name);
  } catch (error) {
    if (isToolError(error)) return undefined;
    throw error;
  }
}

/**
 * Walks a folder depth-first in {@link comparePaths} order, yielding every entry it examines
 * (accepted or not). Every folder is opened inside its parent's descriptor without following
 * links (core's `OpenedDir`), and listed through that descriptor, so a folder swapped for a link
 * mid-walk is skipped, never followed. Symbolic links and special files are never followed or
 * accepted; `.git` and `.lectern` are never entered or accepted; ignored and excluded folders
 * are not entered. Resumes after `options.after` without re-reporting what came before it.
 */
export async function* walkTree(options: WalkOptions): AsyncGenerator<WalkEvent> {
  const { root, folder } = options;
  const levels: IgnoreLevel[] = [];
  if (options.gitignore) {
    // The folder's own .gitignore is loaded by walkFolder, from its listing.
    const parts = folder === '' ? [] : folder.split('/');
    for (let i = 0; i < parts.length; i++) {
      const level = await loadGitignore(root, parts.slice(0, i).join('/'));
      if (level) levels.push(level);
    }
  }
  let start: OpenedDir;
  try {
    start = openDirInRootSync(root, folder);
  } catch (error) {
    if (isToolError(error)) return; // vanished or swapped since it was checked
    throw error;
  }
  try {
    yield* walkFolder(options, start, folder, 1, levels);
  } finally {
    start.close();
  }
}

async function* walkFolder(
  options: WalkOptions,
  held: OpenedDir,
  dir: string,
  depth: number,
  inherited: IgnoreLevel[],
): AsyncGenerator<WalkEvent> {
  let levels = inherited;
  let entries: Dirent[];
  try {
    entries = held.list();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM') return;
    throw error;
  }
  entries.sort(byName);
  const unnamed = unnamedEntries(held, entries, { keepLinks: true }) ?? NO_UNNAMED;
  // Entries whose names are not valid UTF-8 take their place in walk order by escaped name.
  const items: Array<{ name: string; entry?: Dirent; isDir?: boolean }> = [];
  if (unnamed.lossy.size > 0) entries = entries.filter((e) => !unnamed.lossy.has(e.name));
  for (const entry of entries) items.push({ name: entry.name, entry });
  if (unnamed.shown.length > 0) {
    // (without their Dirent: an item with none is one that cannot be named)
    for (const { name, isDir } of unnamed.shown) items.push({ name, isDir });
    items.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }
  if (options.gitignore && entries.some((e) => e.name === '.gitignore' && e.isFile())) {
    const level = await loadGitignore(options.root, dir);
    if (level) levels = [...levels, level];
  }
  const after = options.after;
  for (const item of items) {
    if (options.signal?.aborted) throw new ToolError('CANCELLED', 'the request was cancelled.');
    const entry = item.entry;
    if (entry === undefined) {
      const path = dir === '' ? item.name : `${dir}/${item.name}`;
      if (after && comparePaths(path, after.path) <= 0) continue;
      const type = item.isDir ? 'directory' : 'file';
      yield { path, type, depth, accepted: false, descend: false, unnamed: true };
      continue;
    }
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    const isDir = entry.isDirectory();
    let emit = true;
    let forceDescend = false;
    if (after) {
      const cmp = comparePaths(path, after.path);
      if (cmp === 0) {
        if (!after.inclusive) {
          emit = false;
          forceDescend = after.descend;
          if (!forceDescend) continue;
        }
      } else if (after.path.startsWith(`${path}/`)) {
        emit = false;
        forceDescend = true;
      } else if (cmp < 0) {
        continue;
      }
    }
    const type: WalkEvent['type'] = isDir ? 'directory' : entry.isFile() ? 'file' : 'other';
    let accepted = false;
    let descend = false;
    if (neverWalked(entry.name) || type === 'other') {
      // never listed, never entered (links and special files are 'other')
    } else if (options.gitignore && ignoredBy(levels, path, isDir)) {
      // ignored
    } else if (options.exclude?.(path)) {
      // excluded
    } else if (isDir) {
      accepted = options.directories;
      descend = depth < options.maxDepth;
    } else {
      accepted = options.include ? options.include(path) : true;
    }
    if (forceDescend && isDir && depth < options.maxDepth) descend = true;
    if (emit) {
      const event: WalkEvent = { path, type, depth, accepted, descend };
      if (options.stats && accepted) event.stat = held.lstat(entry.name);
      yield event;
    }
    if (descend) {
      const child = openChild(held, entry.name);
      if (!child) continue;
      try {
        yield* walkFolder(options, child, path, depth + 1, levels);
      } finally {
        child.close();
      }
    }
  }
}
