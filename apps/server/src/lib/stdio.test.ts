import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../log.js';
import { LineTransport } from './stdio.js';

function setup(maxMessageBytes = 1024) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const received: unknown[] = [];
  const transport = new LineTransport({
    input,
    output,
    maxMessageBytes,
    log: createLogger('debug', (s) => void logs.push(s)),
  });
  transport.onmessage = (m) => void received.push(m);
  let out = '';
  output.on('data', (d) => {
    out += String(d);
  });
  const replies = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  return { input, transport, logs, received, replies };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('LineTransport', () => {
  it('delivers messages split across chunks and several per chunk', async () => {
    const t = setup();
    await t.transport.start();
    const a = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const b = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    t.input.write(a.slice(0, 5));
    t.input.write(`${a.slice(5)}\n${b}\r\n\n`);
    await tick();
    expect(t.received).toEqual([JSON.parse(a), JSON.parse(b)]);
  });

  it('answers a message over the limit with an error carrying its id, logs it, and goes on', async () => {
    const t = setup(1024);
    await t.transport.start();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'x', arguments: { text: 'y'.repeat(5000) } },
      id: 7,
    });
    for (let i = 0; i < big.length; i += 300) t.input.write(big.slice(i, i + 300));
    t.input.write('\n');
    t.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' })}\n`);
    await tick();
    expect(t.replies()).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32600,
          message: expect.stringContaining('Request too large'),
          data: { size: big.length, max_bytes: 1024 },
        },
      },
    ]);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
    expect(t.logs.join('')).toMatch(/refused a tools\/call message \(id 7\) of 5\.\d KiB/);
  });

  it('logs an oversized notification without answering it', async () => {
    const t = setup(100);
    await t.transport.start();
    t.input.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: { p: 'z'.repeat(500) } })}\n`,
    );
    await tick();
    expect(t.replies()).toEqual([]);
    expect(t.logs.join('')).toContain('refused a notifications/x message');
  });

  it('answers a line that is not JSON with a parse error, and a non-message with invalid request', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write('this is not json\n');
    t.input.write(`${JSON.stringify({ id: 3, method: 'ping' })}\n`);
    await tick();
    expect(t.replies()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: expect.any(String) } },
    ]);
    expect(t.received).toEqual([]);
  });

  it('stops reading when closed', async () => {
    const t = setup();
    let closed = false;
    t.transport.onclose = () => {
      closed = true;
    };
    await t.transport.start();
    await t.transport.close();
    t.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    await tick();
    expect(closed).toBe(true);
    expect(t.received).toEqual([]);
  });
});
