import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../test-helpers/wiki.js';
import { LOCK_STALE_MS, processStart, removeDeadLockTemps, WikiLock } from './lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) removeDir(d);
});

function stateDir(): string {
  const d = tempDir();
  dirs.push(d);
  return join(d, '.lectern');
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

function livePid(): number {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(c);
  return c.pid!;
}

function plant(dir: string, content: string, ageMs = 0): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, 'write.lock');
  writeFileSync(p, content);
  const t = new Date(Date.now() - ageMs);
  utimesSync(p, t, t);
  return p;
}

const info = (pid: number, host = hostname()) =>
  JSON.stringify({
    pid,
    host,
    token: `t${pid}${host.length}`,
    acquired_at: new Date().toISOString(),
  });

describe('WikiLock', () => {
  it('admits one holder at a time and frees the lock on release', () => {
    const lock = new WikiLock(stateDir());
    const a = lock.tryAcquire();
    expect(a).not.toBeNull();
    expect(a!.stillHeld()).toBe(true);
    expect(lock.tryAcquire()).toBeNull();
    a!.release();
    expect(existsSync(lock.path)).toBe(false);
    const b = lock.tryAcquire();
    expect(b).not.toBeNull();
    expect(a!.stillHeld()).toBe(false);
    b!.release();
  });

  it('takes over a lock whose process is gone', () => {
    const dir = stateDir();
    plant(dir, info(deadPid()));
    const held = new WikiLock(dir).tryAcquire();
    expect(held).not.toBeNull();
    expect(JSON.parse(readFileSync(join(dir, 'write.lock'), 'utf8')).pid).toBe(process.pid);
    held!.release();
  });

  it('leaves a live, fresh lock without a boot id (older versions) alone but takes it over once it is older than the bound', () => {
    const dir = stateDir();
    const pid = livePid();
    plant(dir, info(pid));
    expect(new WikiLock(dir).tryAcquire()).toBeNull();
    plant(dir, info(pid), LOCK_STALE_MS + 5_000);
    const held = new WikiLock(dir).tryAcquire();
    expect(held).not.toBeNull();
    held!.release();
  });

  it('never takes over the lock of a process alive on this machine, however old; a reboot or a reused pid frees it', () => {
    const dir = stateDir();
    const pid = livePid();
    const full = (over: Record<string, unknown>) =>
      JSON.stringify({
        pid,
        host: hostname(),
        token: `t${Math.random()}`,
        acquired_at: new Date().toISOString(),
        boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
        pid_ns: readlinkSync('/proc/self/ns/pid'),
        start: processStart(pid),
        ...over,
      });
    const lockFile = plant(dir, full({}), LOCK_STALE_MS * 10);
    expect(new WikiLock(dir).tryAcquire()).toBeNull();
    // written before a reboot: the pid that runs now is someone else
    plant(dir, full({ boot_id: '00000000-0000-0000-0000-000000000000' }), 0);
    const afterReboot = new WikiLock(dir).tryAcquire();
    expect(afterReboot).not.toBeNull();
    afterReboot!.release();
    // same pid, another start time: the holder died and its pid was reused
    plant(dir, full({ start: '1' }), 0);
    const reused = new WikiLock(dir).tryAcquire();
    expect(reused).not.toBeNull();
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).pid).toBe(process.pid);
    reused!.release();
  });

  it('writes its lock 0600 in a 0700 state folder, with the facts another process checks', () => {
    const dir = stateDir();
    const held = new WikiLock(dir).tryAcquire()!;
    const info = JSON.parse(readFileSync(join(dir, 'write.lock'), 'utf8'));
    expect(info).toMatchObject({
      pid: process.pid,
      host: hostname(),
      start: processStart(process.pid),
    });
    expect(info.boot_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(statSync(join(dir, 'write.lock')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    held.release();
  });

  it('judges a lock from another host by age only', () => {
    const dir = stateDir();
    plant(dir, info(deadPid(), 'elsewhere.example'));
    expect(new WikiLock(dir).tryAcquire()).toBeNull();
    plant(dir, info(deadPid(), 'elsewhere.example'), LOCK_STALE_MS + 5_000);
    const held = new WikiLock(dir).tryAcquire();
    expect(held).not.toBeNull();
    held!.release();
  });

  it('gives an empty lock (writer died before writing) a short grace, then takes it over', () => {
    const dir = stateDir();
    plant(dir, '');
    expect(new WikiLock(dir).tryAcquire()).toBeNull();
    plant(dir, '', 10_000);
    const held = new WikiLock(dir).tryAcquire();
    expect(held).not.toBeNull();
    held!.release();
  });

  it('waits for a holder to release, and gives up with WIKI_BUSY naming the holder', async () => {
    const lock = new WikiLock(stateDir());
    const first = lock.tryAcquire()!;
    setTimeout(() => first.release(), 100);
    const second = await lock.acquire(5_000);
    expect(second.stillHeld()).toBe(true);
    await expect(lock.acquire(150)).rejects.toMatchObject({
      code: 'WIKI_BUSY',
      details: { holder_pid: process.pid },
    });
    second.release();
  });

  it('refuses a state folder that is a symbolic link', () => {
    const dir = stateDir();
    const elsewhere = tempDir();
    dirs.push(elsewhere);
    symlinkSync(elsewhere, dir);
    expect(() => new WikiLock(dir).tryAcquire()).toThrow(
      expect.objectContaining({ code: 'STATE_DIR_INVALID' }),
    );
  });

  it('removes lock temporary files of dead processes only', () => {
    const dir = stateDir();
    mkdirSync(dir, { recursive: true });
    const dead = `write.lock.${deadPid()}.ab12.tmp`;
    const live = `write.lock.${livePid()}.cd34.tmp`;
    writeFileSync(join(dir, dead), '{}');
    writeFileSync(join(dir, live), '{}');
    expect(removeDeadLockTemps(dir)).toBe(1);
    expect(readdirSync(dir)).toEqual([live]);
  });

  it('never leaves its own temporary file behind', () => {
    const dir = stateDir();
    const lock = new WikiLock(dir);
    const held = lock.tryAcquire()!;
    expect(lock.tryAcquire()).toBeNull();
    expect(readdirSync(dir)).toEqual(['write.lock']);
    held.release();
    expect(readdirSync(dir)).toEqual([]);
  });
});
