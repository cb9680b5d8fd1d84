import { describe, expect, it } from 'vitest';
import { findWorkerScript, WorkerHost } from './worker-host.js';

/** A worker script as a data: URL: echoes `n`, fails on `fail`, exits on `exit`. */
const ECHO = new URL(
  `data:text/javascript,${encodeURIComponent(`
import { parentPort, threadId } from 'node:worker_threads';
parentPort.on('message', (m) => {
  if (m.exit) process.exit(3);
  if (m.fail) parentPort.postMessage({ id: m.id, error: 'no good' });
  else parentPort.postMessage({ id: m.id, n: m.n * 2, thread: threadId });
});`)}`,
);

interface Req {
  id: number;
  n?: number;
  fail?: boolean;
  exit?: boolean;
}
interface Rep {
  id: number;
  n: number;
  thread: number;
}

function echoHost(extra: { recycleAfter?: number; onIdle?: (w: number) => void } = {}) {
  return new WorkerHost<Req, Rep>({
    script: () => ECHO,
    name: 'echo worker',
    errorPrefix: 'echo failed: ',
    recycleAfter: extra.recycleAfter ?? 1e9,
    onIdle: extra.onIdle,
  });
}

describe('WorkerHost', () => {
  it('answers each request with its own reply, in order, on one thread', async () => {
    const host = echoHost();
    const replies = await Promise.all([1, 2, 3].map((n) => host.request((id) => ({ id, n }), 1)));
    expect(replies.map((r) => r.n)).toEqual([2, 4, 6]);
    expect(new Set(replies.map((r) => r.thread)).size).toBe(1);
    expect(host.idle()).toBe(true);
  });

  it("turns a worker's failure reply into a rejection with the prefix", async () => {
    const host = echoHost();
    await expect(host.request((id) => ({ id, fail: true }), 1)).rejects.toThrow(
      'echo failed: no good',
    );
    // the thread is still usable
    await expect(host.request((id) => ({ id, n: 5 }), 1)).resolves.toMatchObject({ n: 10 });
  });

  it('replaces the worker once it has done the work it may, and says when it is idle', async () => {
    const idle: number[] = [];
    const host = echoHost({ recycleAfter: 10, onIdle: (w) => idle.push(w) });
    const first = await host.request((id) => ({ id, n: 1 }), 6);
    const second = await host.request((id) => ({ id, n: 1 }), 6); // 12 ≥ 10: recycled after
    const third = await host.request((id) => ({ id, n: 1 }), 1);
    expect(second.thread).toBe(first.thread);
    expect(third.thread).not.toBe(first.thread);
    expect(idle).toEqual([6, 6, 1]);
  });

  it('rejects every waiting request when the thread dies, then starts a new one', async () => {
    const host = echoHost();
    const before = await host.request((id) => ({ id, n: 1 }), 1);
    const dying = host.request((id) => ({ id, exit: true }), 1);
    await expect(dying).rejects.toThrow('the echo worker thread exited with code 3');
    const after = await host.request((id) => ({ id, n: 1 }), 1);
    expect(after.thread).not.toBe(before.thread);
  });

  it('rejects at once, naming the script, when there is none', async () => {
    const host = new WorkerHost<Req, Rep>({ script: () => null, name: 'gone', recycleAfter: 1 });
    expect(host.available()).toBe(false);
    await expect(host.request((id) => ({ id }), 1)).rejects.toThrow('the gone script is missing');
  });

  it('finds the first candidate script that exists', () => {
    const here = import.meta.url;
    expect(findWorkerScript(here, ['./nope.js', './worker-host.test.ts'])?.href).toBe(
      new URL('./worker-host.test.ts', here).href,
    );
    expect(findWorkerScript(here, ['./nope.js'])).toBeNull();
  });
});
