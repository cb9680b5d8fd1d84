import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isTempName, sha256 } from '@lectern/core';
import { bySize } from '@lectern/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { wikiTools } from '../index.js';
import { PACKAGE_DIR, removeDir, tempDir, writeFiles } from '../test-helpers/wiki.js';
import { recover } from './journal.js';
import { LOCK_STALE_MS } from './lock.js';
import { WikiSet } from './wiki.js';
import { WikiWriter } from './writer.js';

const CHILD = join(PACKAGE_DIR, 'src/test-helpers/writer-child.mjs');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) removeDir(d);
});

function wikiDir(files: Record<string, string>): string {
  const dir = tempDir();
  dirs.push(dir);
  writeFiles(dir, files);
  return dir;
}

/** Starts a child; resolves lines of JSON it prints. */
function start(args: string[]) {
  const child = spawn(process.execPath, [CHILD, ...args], {
    cwd: PACKAGE_DIR,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl = buf.indexOf('\n');
    while (nl !== -1) {
      lines.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
      nl = buf.indexOf('\n');
      for (const w of waiters.splice(0)) w();
    }
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const next = async (pred: (l: Record<string, unknown>) => boolean) => {
    for (;;) {
      const hit = lines.find(pred);
      if (hit) return hit;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`child ended without the expected output: ${stderr}`);
      }
      await new Promise<void>((r) => {
        waiters.push(r);
        child.once('exit', () => r());
      });
    }
  };
  return { child, lines, next, exited, stderr: () => stderr };
}

/** Every file name under a folder, hidden ones included. */
function allNames(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    out.push(e.name);
    if (e.isDirectory()) out.push(...allNames(join(dir, e.name)));
  }
  return out;
}

describe('one writer per wiki across processes', () => {
  it('lets exactly one of six racing processes win a same-version put; the rest get the winner as current version', async () => {
    const dir = wikiDir({ 'wiki/shared.md': 'original\n' });
    const version = sha256('original\n');
    // A stale lock from a dead process: all six must also race to take it over safely.
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFiles(dir, {
      '.lectern/write.lock': JSON.stringify({
        pid: dead,
        host: hostname(),
        token: 'stale',
        acquired_at: '',
      }),
    });
    const racers = Array.from({ length: 6 }, (_, i) =>
      start(['race', dir, 'wiki/shared.md', version, `written by racer ${i}\n`]),
    );
    await Promise.all(racers.map((r) => r.next((l) => l.ready === true)));
    for (const r of racers) r.child.stdin!.write('go\n');
    const results = await Promise.all(racers.map((r) => r.next((l) => 'ok' in l)));
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const final = readFileSync(join(dir, 'wiki/shared.md'), 'utf8');
    expect(final).toMatch(/^written by racer \d\n$/);
    for (const loser of results.filter((r) => !r.ok)) {
      expect(loser.code).toBe('BATCH_REJECTED');
      const failure = (loser.details as { failures: Array<Record<string, unknown>> }).failures[0]!;
      expect(failure.code).toBe('VERSION_MISMATCH');
      expect(failure.current_version).toBe(sha256(final));
    }
    expect(existsSync(join(dir, '.lectern/write.lock'))).toBe(false);
  }, 120_000);

  it('loses no update when six processes increment one counter with retries', async () => {
    const each = bySize(6, 25);
    const dir = wikiDir({ 'counter.md': '0\n' });
    const workers = Array.from({ length: 6 }, () =>
      start(['count', dir, 'counter.md', String(each)]),
    );
    const results = await Promise.all(workers.map((w) => w.next((l) => 'done' in l)));
    expect(results.map((r) => r.done)).toEqual(Array.from({ length: 6 }, () => each));
    expect(readFileSync(join(dir, 'counter.md'), 'utf8')).toBe(`${6 * each}\n`);
  }, 120_000);
});

const PAGES = 6;
const body = (gen: number, path: string) =>
  `gen ${gen} ${path}\n${`generation ${gen} `.repeat(400)}\n`;
const pagePaths = Array.from({ length: PAGES }, (_, i) => `wiki/page-${i}.md`);

function generationOf(dir: string, path: string): number {
  const text = readFileSync(join(dir, path), 'utf8');
  const gen = Number(/^gen (\d+) /.exec(text)?.[1]);
  // Wholly one generation: byte-identical to what that generation writes.
  expect(text).toBe(body(gen, path));
  return gen;
}

describe('all-or-nothing across crashes', () => {
  it('leaves every batch wholly old or wholly new when the writer is SIGKILLed at random points', async () => {
    const dir = wikiDir(Object.fromEntries(pagePaths.map((p) => [p, body(0, p)])));
    let interrupted = 0;
    const kills = bySize(4, 40);
    for (let round = 0; round < kills; round++) {
      const w = start(['loop', dir, String(PAGES)]);
      const from = (await w.next((l) => l.ready === true)).from as number;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 120));
      w.child.kill('SIGKILL');
      await w.exited;
      const acked = Math.max(
        from,
        ...w.lines.map((l) => (typeof l.acked === 'number' ? l.acked : 0)),
      );
      if (existsSync(join(dir, '.lectern/journal.json'))) interrupted++;
      // Next start: creating the tools recovers.
      const tools = wikiTools({ wikis: [{ id: 'w', path: dir }] });
      expect(tools).toHaveLength(5);
      const gens = pagePaths.map((p) => generationOf(dir, p));
      expect(new Set(gens).size).toBe(1);
      // Acknowledged batches are never lost; at most the one in flight is added.
      expect(gens[0]! - acked).toBeGreaterThanOrEqual(0);
      expect(gens[0]! - acked).toBeLessThanOrEqual(1);
      expect(allNames(dir).filter(isTempName)).toEqual([]);
      expect(existsSync(join(dir, '.lectern/journal.json'))).toBe(false);
      expect(existsSync(join(dir, '.lectern/write.lock'))).toBe(false);
    }
    // Not asserted (random), but reported so a run shows whether mid-batch kills happened.
    console.info(
      `crash test: ${interrupted} of ${kills} kills landed after the journal was written`,
    );
  }, 120_000);

  it('finishes a batch killed after each possible number of page writes', async () => {
    for (const k of [1, 3, 6]) {
      const dir = wikiDir({
        ...Object.fromEntries(pagePaths.map((p) => [p, body(1, p)])),
        'wiki/doomed.md': 'to be deleted\n',
        'log.md': '# Log\n',
      });
      const w = start(['crash-after', dir, String(k), String(PAGES)]);
      await w.exited;
      expect(w.child.signalCode).toBe('SIGKILL');
      expect(existsSync(join(dir, '.lectern/journal.json'))).toBe(true);
      const before = pagePaths.map((p) => readFileSync(join(dir, p), 'utf8').startsWith('gen 2'));
      expect(before.some((x) => !x) || k >= PAGES).toBe(true);
      wikiTools({ wikis: [{ id: 'w', path: dir }] });
      expect(pagePaths.map((p) => generationOf(dir, p))).toEqual(pagePaths.map(() => 2));
      expect(existsSync(join(dir, 'wiki/doomed.md'))).toBe(false);
      expect(readFileSync(join(dir, 'log.md'), 'utf8')).toMatch(/crash test/);
      expect(allNames(dir).filter(isTempName)).toEqual([]);
    }
  }, 120_000);
});

describe('an I/O error while applying', () => {
  it('puts back the pages already written and reports WRITE_FAILED', async () => {
    const dir = wikiDir(Object.fromEntries(pagePaths.map((p) => [p, body(1, p)])));
    const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
    const writer = new WikiWriter(wiki);
    const operations = pagePaths.map((p) => ({
      op: 'put' as const,
      path: p,
      content: body(2, p),
      expected_version: sha256(body(1, p)),
    }));
    await expect(
      writer.run({ operations }, undefined, (_path, index) => {
        if (index === 2) throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      }),
    ).rejects.toMatchObject({ code: 'WRITE_FAILED', details: { errno: 'ENOSPC' } });
    expect(pagePaths.map((p) => generationOf(dir, p))).toEqual(pagePaths.map(() => 1));
    expect(existsSync(join(dir, '.lectern/journal.json'))).toBe(false);
    expect(existsSync(join(dir, '.lectern/write.lock'))).toBe(false);
    expect(allNames(dir).filter(isTempName)).toEqual([]);
  });
});

describe('the state folder', () => {
  it('is never reached through a link: a .lectern link to an outside folder gets nothing', async () => {
    const dir = wikiDir({ 'index.md': '# Index\n' });
    const outside = tempDir();
    dirs.push(outside);
    symlinkSync(outside, join(dir, '.lectern'));
    const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
    const writer = new WikiWriter(wiki);
    expect(writer.recoverAtStart()).toBeNull();
    await expect(
      writer.run({ operations: [{ op: 'put', path: 'new.md', content: '# New\n' }] }),
    ).rejects.toMatchObject({ code: 'STATE_DIR_INVALID' });
    await writer.ensureRecovered();
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(dir, 'new.md'))).toBe(false);
  });

  it('keeps the lock and journal in the folder it opened even when the path is swapped', async () => {
    const dir = wikiDir({ 'index.md': '# Index\n' });
    const outside = tempDir();
    dirs.push(outside);
    const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
    const writer = new WikiWriter(wiki);
    let swapped = false;
    const result = await writer.run(
      {
        operations: [
          { op: 'put', path: 'a.md', content: '# A\n' },
          { op: 'put', path: 'b.md', content: '# B\n' },
        ],
      },
      undefined,
      () => {
        if (swapped) return;
        swapped = true;
        // mid-batch, the state folder's path now leads outside
        renameSync(join(dir, '.lectern'), join(dir, 'moved-state'));
        symlinkSync(outside, join(dir, '.lectern'));
      },
    );
    expect(result.applied).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(join(dir, 'moved-state'))).toEqual([]);
  });
});

describe('a writer stopped mid-batch (SIGSTOP) for longer than the stale bound', () => {
  const STALL_PAGES = 40;
  const stallPaths = Array.from({ length: STALL_PAGES }, (_, i) => `wiki/page-${i}.md`);
  const p39 = 'wiki/page-39.md';

  async function stalled() {
    const dir = wikiDir(Object.fromEntries(stallPaths.map((p) => [p, body(1, p)])));
    const a = start(['stall', dir, String(STALL_PAGES), '5']);
    await a.next((l) => 'paused' in l);
    // make sure it is stopped, not merely about to stop
    for (
      let i = 0;
      i < 200 && !/^State:\s+T/m.test(readFileSync(`/proc/${a.child.pid}/status`, 'utf8'));
      i++
    ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    // Its lock was last refreshed "over 30 s ago", as after a long stop.
    const lock = join(dir, '.lectern/write.lock');
    const old = new Date(Date.now() - LOCK_STALE_MS - 30_000);
    utimesSync(lock, old, old);
    expect(generationOf(dir, p39)).toBe(1);
    return { dir, a, lock };
  }

  it('keeps its lock: a second writer on this host waits (WIKI_BUSY) instead of taking it over', async () => {
    const { dir, a } = await stalled();
    const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
    const b = new WikiWriter(wiki);
    b.lockWaitMs = 1_500;
    await expect(
      b.run({
        operations: [
          { op: 'put', path: p39, content: 'edit by B\n', expected_version: sha256(body(1, p39)) },
        ],
      }),
    ).rejects.toMatchObject({ code: 'WIKI_BUSY' });
    a.child.kill('SIGCONT');
    expect(await a.next((l) => 'ok' in l)).toMatchObject({ ok: true, applied: true });
    // A's batch landed whole; B, told busy, had written nothing and now sees A's version.
    expect(stallPaths.map((p) => generationOf(dir, p))).toEqual(stallPaths.map(() => 2));
    await expect(
      b.run({
        operations: [
          { op: 'put', path: p39, content: 'edit by B\n', expected_version: sha256(body(1, p39)) },
        ],
      }),
    ).rejects.toMatchObject({ code: 'BATCH_REJECTED' });
  }, 120_000);

  it('stops before its next page when the lock was taken over meanwhile, and never writes over the acknowledged edit', async () => {
    const { dir, a, lock } = await stalled();
    // A writer on another machine (which cannot check A's pid) takes the aged lock over,
    // finishes A's journal as its recovery does, then edits page-39 and is told "applied".
    unlinkSync(lock);
    writeFileSync(
      lock,
      JSON.stringify({
        pid: 4242,
        host: 'elsewhere.example',
        token: 'b-token',
        acquired_at: new Date().toISOString(),
      }),
    );
    const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
    const report = recover(wiki.root, join(dir, '.lectern'), (rel) => wiki.checkPagePath(rel));
    expect(report?.pending).toEqual([]);
    writeFileSync(join(dir, p39), 'acknowledged edit by B\n');
    a.child.kill('SIGCONT');
    expect(await a.next((l) => 'ok' in l)).toMatchObject({ ok: false, code: 'LOCK_LOST' });
    expect(readFileSync(join(dir, p39), 'utf8')).toBe('acknowledged edit by B\n');
    expect(stallPaths.filter((p) => p !== p39).map((p) => generationOf(dir, p))).toEqual(
      stallPaths.slice(0, -1).map(() => 2),
    );
    // A leaves the other writer's lock alone.
    expect(JSON.parse(readFileSync(lock, 'utf8')).token).toBe('b-token');
  }, 120_000);
});
