import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { isToolError, type OpenedDir, openDirInRootSync } from '@lectern/core';
import {
  isFolderAt,
  type ListedFolder,
  listFolder,
  lstatOrUndefined,
  type ResolvedSource,
  statInFolder,
  type WalkedFile,
  type WalkStats,
  walkedFile,
  walkSourceAsync,
} from './walk.js';

/**
 * Most change events taken between two reindexes before the watcher's view is given up for a
 * full walk. Kept under half the kernel's event queue (see {@link eventLimit}): the kernel drops
 * events once its queue is full, and libuv drops its overflow notice, so a count past half the
 * queue is the only sign of a loss we get.
 */
export const MAX_WATCH_EVENTS = 8192;

/** After the watchers could not be set up, this many reindexes walk before trying again. */
const ARM_BACKOFF_WALKS = 8;

/** Most event-loop turns a drain takes while events keep coming. */
const MAX_DRAIN_TURNS = 16;

/** The event bound: {@link MAX_WATCH_EVENTS}, or half the kernel's queue if that is smaller. */
function eventLimit(): number {
  try {
    const queued = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    if (Number.isFinite(queued) && queued > 0) return Math.min(MAX_WATCH_EVENTS, queued >> 1);
  } catch {
    // not Linux, or no /proc: the default bound
  }
  return MAX_WATCH_EVENTS;
}

/** How the last walk of a {@link SourceWatcher} went (for tests and the bench). */
export type WatchWalkKind = 'watched' | 'full';

/** Options of a {@link SourceWatcher}. */
export interface SourceWatcherOptions {
  /** Event bound (default {@link MAX_WATCH_EVENTS}, or half the kernel's queue). */
  maxEvents?: number;
  /** `fs.watch`, or a stand-in that fails (tests of a watcher that cannot start). */
  startWatch?: typeof watch;
}

/** One watched folder: its listing, its files' stats and what events named since. */
interface WatchedFolder {
  rel: string;
  dev: number;
  ino: number;
  listed: ListedFolder;
  /** Index of each listed file's name in `listed.files`. */
  fileAt: Map<string, number>;
  /** Names of the listed sub-folders. */
  folderNames: Set<string>;
  /** Stats of `listed.files`, same order; undefined when the entry is not a regular file now. */
  stats: Array<WalkedFile | undefined>;
  watcher: FSWatcher | undefined;
  /** Listed files an event named: stat again. */
  restat: Set<string>;
  /** Listed sub-folders an event named: walk their subtree again. */
  rewalk: Set<string>;
  /** An entry was added, removed or renamed (or an event could not be placed): list again. */
  relist: boolean;
  closed: boolean;
}

/**
 * Keeps `fs.watch` watchers over one source's folders (one per folder, never recursive) so a
 * reindex can stat only what changed instead of every file. The first walk, a `full` one, and
 * any walk after something the watcher cannot vouch for (an error, an event without a name,
 * more than {@link MAX_WATCH_EVENTS} events, the root replaced or gone, a watcher that could
 * not start) list and stat everything, like {@link walkSourceAsync}, and set the watchers up
 * again. Either way the files, their order and their stats are what a full walk gives, by the
 * same rules: hidden entries, links and special files skipped, include and exclude globs,
 * folders opened through the root guard.
 *
 * What it trusts: every change to a watched folder's entries, or to a file's contents or
 * attributes made through that folder, produces an inotify event. That holds for local file
 * systems; changes made by another machine on a network mount, or through a hard link from a
 * folder outside the source, produce none.
 */
export class SourceWatcher {
  readonly source: ResolvedSource;
  private readonly folders = new Map<string, WatchedFolder>();
  private readonly maxEvents: number;
  private armed = false;
  /** Events taken since the last walk. */
  private events = 0;
  /** Why the watched view cannot be trusted until the next full walk. */
  private broken: string | undefined;
  /** Walks left before setting the watchers up again after they failed to start. */
  private backoff = 0;
  private closed = false;
  /** How the last walk went. */
  lastWalk: WatchWalkKind | undefined;
  /** Why the last full walk happened (first walk, `full`, or what broke the watched view). */
  lastReason: string | undefined;
  /** Number of watchers open now. */
  get watching(): number {
    let n = 0;
    for (const f of this.folders.values()) if (f.watcher) n++;
    return n;
  }

  private readonly startWatch: typeof watch;

  constructor(source: ResolvedSource, options: SourceWatcherOptions = {}) {
    this.source = source;
    this.maxEvents = options.maxEvents ?? eventLimit();
    this.startWatch = options.startWatch ?? watch;
  }

  /** For tests: makes the next walk a full one, as a watcher error would. */
  breakForTest(reason: string): void {
    this.broken = reason;
  }

  /**
   * The source's files, as {@link walkSourceAsync} lists them. Watched when it can be, else a
   * full walk that sets the watchers up again. `stats.unnamed` gets the entries whose names are
   * not UTF-8 (from the listings this walk holds; the `walk` fallback fills it itself).
   */
  async walk(
    options: { full?: boolean; walk?: () => Promise<WalkedFile[]>; stats?: WalkStats } = {},
  ): Promise<WalkedFile[]> {
    const files = await this.walkFiles(options);
    if (options.stats && this.lastWalk === 'watched') this.addUnnamed(options.stats);
    return files;
  }

  /** Adds every watched folder's entries whose names are not UTF-8 to `stats`. */
  private addUnnamed(stats: WalkStats): void {
    for (const f of this.folders.values()) for (const n of f.listed.unnamed) stats.unnamed.push(n);
  }

  private async walkFiles(options: {
    full?: boolean;
    walk?: () => Promise<WalkedFile[]>;
    stats?: WalkStats;
  }): Promise<WalkedFile[]> {
    if (this.armed) await this.drain();
    let reason: string | undefined;
    if (this.closed) reason = 'the store is closed';
    else if (!this.armed) reason = this.broken ?? 'not watching yet';
    else if (options.full) reason = 'a full reindex';
    else if (this.broken) reason = this.broken;
    else if (this.events > this.maxEvents)
      reason = `${this.events} change events, over ${this.maxEvents}`;
    if (reason === undefined) {
      const files = this.watchedWalk();
      if (files) {
        this.lastWalk = 'watched';
        return files;
      }
      reason = this.broken ?? 'the source folder was replaced or is gone';
    }
    this.lastWalk = 'full';
    this.lastReason = reason;
    this.disarm();
    if (this.closed || this.backoff > 0) {
      if (this.backoff > 0) this.backoff--;
      return options.walk ? options.walk() : walkSourceAsync(this.source, { stats: options.stats });
    }
    return this.armWalk(options.stats);
  }

  /** Closes every watcher; later walks are plain full walks. */
  close(): void {
    this.closed = true;
    this.disarm();
  }

  /**
   * Lets the events already queued reach their callbacks. The kernel queues an inotify event
   * inside the system call that made the change, so a change that returned before this
   * reindex was asked for is already in the queue; libuv reads the whole queue in the poll
   * phase of each event-loop turn, and an immediate runs after that phase. Two turns cover a
   * watcher descriptor added to the poll set in this very turn; more run while events keep
   * coming (a burst still being delivered), up to a bound, since what changes after the
   * request arrived need not be in this reindex.
   */
  private async drain(): Promise<void> {
    for (let turn = 0; turn < MAX_DRAIN_TURNS; turn++) {
      const before = this.events;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (turn >= 1 && this.events === before) return;
    }
  }

  private disarm(): void {
    for (const f of this.folders.values()) this.closeFolder(f);
    this.folders.clear();
    this.armed = false;
    this.events = 0;
    this.broken = undefined;
  }

  private closeFolder(f: WatchedFolder): void {
    f.closed = true;
    if (f.watcher) {
      try {
        f.watcher.close();
      } catch {
        // already closed
      }
      f.watcher = undefined;
    }
  }

  /** Forgets a folder and every folder under it. */
  private dropSubtree(rel: string): void {
    const prefix = rel === '' ? '' : `${rel}/`;
    for (const [k, f] of this.folders) {
      if (k === rel || k.startsWith(prefix)) {
        this.closeFolder(f);
        this.folders.delete(k);
      }
    }
  }

  /** A full walk that watches each folder before listing it. */
  private armWalk(stats?: WalkStats): WalkedFile[] {
    const out: WalkedFile[] = [];
    let top: OpenedDir;
    try {
      top = openDirInRootSync(this.source.root, '');
    } catch (error) {
      if (!isToolError(error)) throw error;
      return out; // the source folder cannot be opened: nothing, as a walk finds
    }
    this.armed = true;
    try {
      this.walkNew(top, out);
    } finally {
      top.close();
    }
    if (stats) this.addUnnamed(stats);
    if (this.broken) {
      // A watcher could not start: this walk's files are right, but nothing watches them.
      this.lastReason = this.broken;
      this.disarm();
      this.backoff = ARM_BACKOFF_WALKS;
    }
    return out;
  }

  private onEvent(f: WatchedFolder, type: string, name: string | Buffer | null): void {
    if (f.closed) return;
    this.events++;
    if (typeof name !== 'string' || name === '') {
      this.broken = 'a change event without a file name';
      return;
    }
    if (f.rel === '' && (name === '.' || name === '..')) {
      // The source folder itself was moved, removed or changed: walk it all.
      this.broken = 'the source folder itself changed';
      return;
    }
    if (f.fileAt.has(name)) {
      f.restat.add(name);
      if (type !== 'change') f.relist = true;
    } else if (f.folderNames.has(name)) {
      f.rewalk.add(name);
      if (type !== 'change') f.relist = true;
    } else if (type !== 'change') {
      f.relist = true;
    }
    // A `change` of an entry that is neither an included file nor a listed folder (a hidden or
    // excluded file, a link, a FIFO) changes nothing a walk reports.
  }

  /** Walks a folder not watched yet and everything under it, watching each before listing. */
  private walkNew(dir: OpenedDir, out: WalkedFile[]): void {
    const rel = dir.relativePath;
    const f: WatchedFolder = {
      rel,
      dev: dir.stat.dev,
      ino: dir.stat.ino,
      listed: {
        mtime: 0,
        ino: 0,
        trusted: false,
        files: [],
        folders: [],
        links: 0,
        special: 0,
        unnamed: [],
      },
      fileAt: new Map(),
      folderNames: new Set(),
      stats: [],
      watcher: undefined,
      restat: new Set(),
      rewalk: new Set(),
      relist: false,
      closed: false,
    };
    if (!this.broken) {
      try {
        // Anchored to the held folder (its descriptor's path), so the watch is on the very
        // folder listed below, whatever its path names by now.
        const w = this.startWatch(dir.path, { persistent: false }, (type, name) =>
          this.onEvent(f, type, name),
        );
        w.on('error', (error: Error) => {
          if (!f.closed) this.broken = `a watcher failed: ${error.message}`;
        });
        f.watcher = w;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        this.broken = `a watcher could not start${code ? ` (${code})` : ''}: ${(error as Error).message}`;
      }
    }
    const listed = listFolder(this.source, dir, Date.now());
    if (!listed) {
      this.closeFolder(f); // unreadable: a walk skips it, and so do we, every time
      return;
    }
    this.setListing(f, listed);
    f.stats = statAll(dir, this.source.root.path, listed.files);
    this.folders.set(rel, f);
    for (const s of f.stats) if (s) out.push(s);
    for (const childRel of listed.folders) this.walkChild(dir, childRel, out);
  }

  /** Opens a listed sub-folder inside `dir` and walks it anew (skipped if it cannot be opened). */
  private walkChild(dir: OpenedDir, childRel: string, out: WalkedFile[]): void {
    let child: OpenedDir;
    try {
      child = dir.openDir(childRel.slice(childRel.lastIndexOf('/') + 1));
    } catch (error) {
      if (!isToolError(error)) throw error;
      return; // swapped for a link or removed since the listing: not entered, as in a walk
    }
    try {
      this.walkNew(child, out);
    } finally {
      child.close();
    }
  }

  private setListing(f: WatchedFolder, listed: ListedFolder): void {
    f.listed = listed;
    f.fileAt = new Map(listed.files.map((file, i) => [file.name, i]));
    f.folderNames = new Set(listed.folders.map((r) => r.slice(r.lastIndexOf('/') + 1)));
  }

  /** The walk from the watched view; undefined when it cannot be trusted. */
  private watchedWalk(): WalkedFile[] | undefined {
    const rootFolder = this.folders.get('');
    let top: OpenedDir;
    try {
      top = openDirInRootSync(this.source.root, '');
    } catch (error) {
      if (!isToolError(error)) throw error;
      return undefined;
    }
    try {
      if (!rootFolder || top.stat.ino !== rootFolder.ino || top.stat.dev !== rootFolder.dev) {
        return undefined;
      }
      this.events = 0;
      const out: WalkedFile[] = [];
      this.visit(rootFolder, top, out);
      // A watcher that failed to start for a new folder leaves it unwatched: the files are
      // right this time, and the next reindex walks in full (`broken` is set).
      return out;
    } finally {
      top.close();
    }
  }

  /** Brings one watched folder up to date (if events named it), then its sub-folders. */
  private visit(f: WatchedFolder, held: OpenedDir | undefined, out: WalkedFile[]): void {
    if (f.relist || f.restat.size > 0 || f.rewalk.size > 0) {
      let dir: OpenedDir;
      if (held) dir = held;
      else {
        try {
          dir = openDirInRootSync(this.source.root, f.rel);
        } catch (error) {
          if (!isToolError(error)) throw error;
          // Gone or swapped for a link: its parent's listing decides next time.
          this.dropSubtree(f.rel);
          return;
        }
      }
      try {
        if (dir.stat.ino !== f.ino || dir.stat.dev !== f.dev) {
          // Another folder at this path: walk it as a new one.
          this.dropSubtree(f.rel);
          this.walkNew(dir, out);
          return;
        }
        const relist = f.relist;
        const restat = f.restat;
        const rewalk = f.rewalk;
        // Taken before any stat: an event from now on is kept for the next reindex.
        f.relist = false;
        f.restat = new Set();
        f.rewalk = new Set();
        if (relist) {
          const listed = listFolder(this.source, dir, Date.now());
          if (!listed) {
            this.dropSubtree(f.rel); // unreadable now: skipped, as a walk does
            return;
          }
          const old = new Map<string, WalkedFile | undefined>();
          f.listed.files.forEach((file, i) => {
            old.set(file.name, f.stats[i]);
          });
          const kept = new Set(listed.folders);
          for (const r of f.listed.folders) if (!kept.has(r)) this.dropSubtree(r);
          this.setListing(f, listed);
          f.stats = listed.files.map((file) =>
            restat.has(file.name) || !old.has(file.name)
              ? statInFolder(dir, file)
              : old.get(file.name),
          );
        } else {
          for (const name of restat) {
            const i = f.fileAt.get(name);
            if (i !== undefined) f.stats[i] = statInFolder(dir, f.listed.files[i]!);
          }
        }
        for (const name of rewalk) this.dropSubtree(f.rel === '' ? name : `${f.rel}/${name}`);
        for (const s of f.stats) if (s) out.push(s);
        for (const childRel of f.listed.folders) {
          const child = this.folders.get(childRel);
          if (child) this.visit(child, undefined, out);
          else this.walkChild(dir, childRel, out);
        }
      } finally {
        if (dir !== held) dir.close();
      }
      return;
    }
    for (const s of f.stats) if (s) out.push(s);
    for (const childRel of f.listed.folders) {
      const child = this.folders.get(childRel);
      if (child) {
        this.visit(child, undefined, out);
        continue;
      }
      // Listed but not watched: new since, or it could not be opened last time. Open it
      // through the guard, as a walk would from its parent.
      let dir: OpenedDir;
      try {
        dir = openDirInRootSync(this.source.root, childRel);
      } catch (error) {
        if (!isToolError(error)) throw error;
        continue;
      }
      try {
        this.walkNew(dir, out);
      } finally {
        dir.close();
      }
    }
  }
}

/**
 * lstat of a new folder's files by absolute path (about half the cost of the anchored lookup),
 * kept only if the folder at that path is still the one held afterwards; else stat'ed again
 * inside the held folder. As in the walk, such stats decide only whether a note is read, and
 * notes are always read through the root guard.
 */
function statAll(
  dir: OpenedDir,
  rootPath: string,
  files: ListedFolder['files'],
): Array<WalkedFile | undefined> {
  const base = dir.relativePath === '' ? rootPath : `${rootPath}/${dir.relativePath}`;
  const out = files.map((file) => walkedFile(file, lstatOrUndefined(`${base}/${file.name}`)));
  return isFolderAt(base, dir.stat) ? out : files.map((file) => statInFolder(dir, file));
}
