import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '@lectern/core';

/** A lock older than this (no heartbeat) is stale even when its process looks alive. */
export const LOCK_STALE_MS = 30_000;
/** How often a holder refreshes its lock's modification time. */
export const LOCK_HEARTBEAT_MS = 5_000;
/** An empty or unreadable lock (its writer died between create and write) is stale after this. */
const EMPTY_LOCK_GRACE_MS = 2_000;
/** Default wait for the lock before write_batch gives up with `WIKI_BUSY`. */
export const LOCK_WAIT_MS = 20_000;

/** What a lock file says about its holder. */
export interface LockInfo {
  pid: number;
  host: string;
  token: string;
  acquired_at: string;
  /**
   * Identity of the holder's machine and process beyond the host name (Linux): the kernel's
   * boot id, the pid namespace and the process start time (clock ticks since boot). With them a
   * lock on this machine is judged by whether its very process still runs, never by age.
   */
  boot_id?: string;
  pid_ns?: string;
  start?: string;
}

const LOCK_TEMP_RE = /^write\.lock\.(\d+)\.[0-9a-f]+\.tmp$/;

/**
 * Removes lock temporary files left by processes that died between writing and linking
 * them (only those whose pid is gone; a live process's file is about to be linked).
 */
export function removeDeadLockTemps(stateDir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = LOCK_TEMP_RE.exec(name);
    if (!m || pidAlive(Number(m[1]))) continue;
    try {
      unlinkSync(join(stateDir, name));
      removed++;
    } catch {
      /* raced with another cleaner */
    }
  }
  return removed;
}

/** A held lock. */
export interface HeldLock {
  readonly token: string;
  /** True while the lock file on disk is still this holder's. */
  stillHeld(): boolean;
  /** Removes the lock (only if it is still ours) and stops the heartbeat. */
  release(): void;
}

const HOST = hostname();

function readOr(read: () => string): string | undefined {
  try {
    const v = read().trim();
    return v === '' ? undefined : v;
  } catch {
    return undefined;
  }
}

/** The kernel's boot id (Linux), so a lock left before a reboot is never mistaken for live. */
const BOOT_ID = readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
/** This process's pid namespace: pids are only comparable inside one. */
const PID_NS = readOr(() => readlinkSync('/proc/self/ns/pid'));

/** Start time of a process (field 22 of /proc/PID/stat), so a reused pid is told apart. */
export function processStart(pid: number): string | undefined {
  return readOr(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces: count after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? '';
  });
}

const OWN_START = processStart(process.pid);

/**
 * Whether the process holding a lock is known to be alive on this very machine: same host,
 * same boot, same pid namespace, the pid runs and (where recorded) started at the same time.
 * Null when that cannot be known (another host, a lock from an older version without a boot
 * id, another pid namespace): then only the heartbeat's age can tell.
 */
export function holderAlive(info: LockInfo): boolean | null {
  if (info.host !== HOST) return null;
  if (!pidAlive(info.pid)) {
    // A pid that is gone on this host is gone in any namespace of this host that shares our
    // view of it; without a boot id (older lock) this was always the rule.
    if (info.pid_ns === undefined || info.pid_ns === PID_NS) return false;
    return null;
  }
  if (info.boot_id === undefined || BOOT_ID === undefined) return null;
  if (info.boot_id !== BOOT_ID) return false;
  if (info.pid_ns !== PID_NS) return null;
  if (info.start !== undefined) {
    const start = processStart(info.pid);
    if (start !== undefined && start !== info.start) return false;
  }
  return true;
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads a lock file without following links; null when it does not exist. */
function readLock(path: string): { info: LockInfo | null; key: string; mtimeMs: number } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    const buf = Buffer.alloc(Math.min(st.size, 4096));
    const n = buf.length > 0 ? readSync(fd, buf, 0, buf.length, 0) : 0;
    let info: LockInfo | null = null;
    try {
      const parsed = JSON.parse(buf.subarray(0, n).toString('utf8')) as Partial<LockInfo>;
      if (
        typeof parsed.pid === 'number' &&
        typeof parsed.token === 'string' &&
        typeof parsed.host === 'string'
      ) {
        info = parsed as LockInfo;
      }
    } catch {
      info = null;
    }
    return { info, key: info ? info.token : `raw-${st.ino}-${st.mtimeMs}`, mtimeMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function isStale(lock: { info: LockInfo | null; mtimeMs: number }, now: number): boolean {
  const age = now - lock.mtimeMs;
  if (!lock.info) return age > EMPTY_LOCK_GRACE_MS;
  const alive = holderAlive(lock.info);
  // A holder alive on this machine keeps its lock however long it has been stopped (SIGSTOP,
  // a blocked event loop): taking it over would let its old plan land over newer edits.
  if (alive !== null) return !alive;
  return age > LOCK_STALE_MS;
}

/**
 * A cross-process lock on one wiki: a file created exclusively under the wiki's state folder,
 * holding the owner's pid, host, boot id, pid namespace, process start time and a random token.
 * A lock whose process is known alive on this machine is never taken over, however old (a
 * stopped writer resumes and finds its lock still its own); one whose process is gone is stale
 * at once; one whose holder cannot be checked (another host, an older lock without a boot id)
 * is stale when it has not been refreshed for {@link LOCK_STALE_MS}, and is taken over. A
 * takeover is itself serialised: the taker first creates a marker named after the stale
 * lock's token (O_EXCL), then removes the lock only if it still carries that token, so two
 * takers can never both remove a lock, nor remove a fresh one.
 */
export class WikiLock {
  readonly path: string;

  constructor(private readonly stateDir: string) {
    this.path = join(stateDir, 'write.lock');
  }

  /** Creates the state folder when missing; refuses a link or a file in its place. */
  ensureDir(): void {
    try {
      const st = lstatSync(this.stateDir);
      if (!st.isDirectory() || st.isSymbolicLink()) {
        throw new ToolError(
          'STATE_DIR_INVALID',
          `${this.stateDir} must be a folder (it is a link or a file); remove it so Lectern can keep its lock and journal there.`,
        );
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      try {
        mkdirSync(this.stateDir, { mode: 0o700 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      this.ensureDir();
    }
  }

  /**
   * One attempt: the lock, or null when a live holder has it. Takes over a stale lock. The
   * lock appears fully written: its content goes to a temporary file created with O_EXCL
   * (named after this process, see {@link removeDeadLockTemps}) which is then hard-linked to
   * the lock name; link(2) fails when the name exists, so creation stays exclusive.
   */
  tryAcquire(): HeldLock | null {
    this.ensureDir();
    for (let attempt = 0; attempt < 2; attempt++) {
      const token = randomBytes(12).toString('hex');
      const info: LockInfo = {
        pid: process.pid,
        host: HOST,
        token,
        acquired_at: new Date().toISOString(),
        ...(BOOT_ID ? { boot_id: BOOT_ID } : {}),
        ...(PID_NS ? { pid_ns: PID_NS } : {}),
        ...(OWN_START ? { start: OWN_START } : {}),
      };
      const tmp = join(this.stateDir, `write.lock.${process.pid}.${token}.tmp`);
      const fd = openSync(
        tmp,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      try {
        writeSync(fd, JSON.stringify(info));
      } catch (e) {
        // a full disk: leave no empty temporary file behind for every retry
        closeSync(fd);
        try {
          unlinkSync(tmp);
        } catch {
          /* removed already */
        }
        throw e;
      }
      closeSync(fd);
      try {
        linkSync(tmp, this.path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const current = readLock(this.path);
        if (current === null) continue;
        if (!isStale(current, Date.now())) return null;
        this.takeOver(current.key);
        continue;
      } finally {
        try {
          unlinkSync(tmp);
        } catch {
          /* removed already */
        }
      }
      return this.held(token);
    }
    return null;
  }

  /** Waits for the lock (polling with jitter) up to `timeoutMs`, else throws `WIKI_BUSY`. */
  async acquire(timeoutMs = LOCK_WAIT_MS, signal?: AbortSignal): Promise<HeldLock> {
    const deadline = Date.now() + timeoutMs;
    let delay = 2;
    for (;;) {
      const held = this.tryAcquire();
      if (held) return held;
      if (signal?.aborted) {
        throw new ToolError(
          'CANCELLED',
          'the request was cancelled while waiting for the wiki lock.',
        );
      }
      if (Date.now() >= deadline) {
        const holder = readLock(this.path)?.info;
        throw new ToolError(
          'WIKI_BUSY',
          `another writer has held this wiki's lock for over ${Math.round(timeoutMs / 1000)} s${holder ? ` (pid ${holder.pid} on ${holder.host})` : ''}; try again later. Nothing was written.`,
          { details: holder ? { holder_pid: holder.pid, holder_host: holder.host } : {} },
        );
      }
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 50);
    }
  }

  private takeOver(staleKey: string): void {
    const marker = `${this.path}.takeover-${staleKey.replace(/[^A-Za-z0-9.-]/g, '_')}`;
    let fd: number;
    try {
      fd = openSync(
        marker,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Another process is taking over; its marker is removed when it is done. A marker left
      // by a taker that died is cleared once it is old.
      try {
        if (Date.now() - lstatSync(marker).mtimeMs > LOCK_STALE_MS) unlinkSync(marker);
      } catch {
        /* gone already */
      }
      return;
    }
    closeSync(fd);
    try {
      const again = readLock(this.path);
      if (again && again.key === staleKey) unlinkSync(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    } finally {
      try {
        unlinkSync(marker);
      } catch {
        /* already removed */
      }
    }
  }

  private held(token: string): HeldLock {
    const path = this.path;
    let released = false;
    const timer = setInterval(() => {
      try {
        if (readLock(path)?.key === token) {
          const now = new Date();
          utimesSync(path, now, now);
        }
      } catch {
        /* a failed heartbeat only makes the lock look older */
      }
    }, LOCK_HEARTBEAT_MS);
    timer.unref();
    return {
      token,
      stillHeld: () => !released && readLock(path)?.key === token,
      release: () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        try {
          if (readLock(path)?.key === token) unlinkSync(path);
        } catch {
          /* nothing to release */
        }
      },
    };
  }
}
