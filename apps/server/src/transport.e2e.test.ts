import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { WRITE_BATCH_MAX_TEXT_CHARS } from '@lectern/wiki';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from './lib/limits.js';
import { INITIALIZE, openSession, ping, rawRequest } from './test-helpers/http.js';
import {
  BIN,
  call,
  connectStdio,
  eventually,
  run,
  scratch,
  startHttpServer,
} from './test-helpers/spawn.js';

const s = scratch();
afterAll(() => s.cleanup());

/** A write_batch as large as its schema allows, in the costliest escaping (\u0001 is 6 bytes). */
function largestBatch(wiki: string) {
  const per = WRITE_BATCH_MAX_TEXT_CHARS / 4;
  return {
    wiki,
    dry_run: true,
    operations: [0, 1, 2, 3].map((i) => ({
      op: 'put',
      path: `wiki/big-${i}.md`,
      content: '\u0001'.repeat(per),
    })),
  };
}

/** A tools/call whose arguments alone make the message one byte over the limit. */
function oversizedArguments(): Record<string, unknown> {
  return {
    wiki: 'garden',
    operations: [{ op: 'put', path: 'x.md', content: 'x'.repeat(MAX_MESSAGE_BYTES) }],
  };
}

describe('stdio: message size', () => {
  let client: Client;
  let stderr: () => string;
  beforeAll(async () => {
    ({ client, stderr } = await connectStdio(
      ['--preset', 'wiki', '--wiki', `garden=${s.examples}/wiki`],
      s.dir,
    ));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  it('delivers the largest write_batch its schema accepts to the tool', async () => {
    const bytes = JSON.stringify(largestBatch('garden')).length;
    expect(bytes).toBeGreaterThan(6 * WRITE_BATCH_MAX_TEXT_CHARS);
    const r = await call(client, 'write_batch', largestBatch('garden'));
    // The tool judged it (control characters are not page text); the transport did not drop it.
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('BATCH_REJECTED');
  }, 180_000);

  it('answers a message over the limit with a JSON-RPC error and a log line, and keeps serving', async () => {
    const refused = client.callTool({ name: 'write_batch', arguments: oversizedArguments() });
    await expect(refused).rejects.toThrow(/Request too large: \d+ bytes, over the 67108864-byte/);
    await eventually(stderr, /refused a tools\/call message \(id \d+\) of 64\.0 MiB/);
    const again = await call(client, 'list_wikis');
    expect(again.isError).toBe(false);
  }, 180_000);

  it('answers a line that is not JSON with a parse error and keeps serving', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--preset', 'atlas'], {
      cwd: s.dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    const lines = async (n: number) => {
      for (let i = 0; i < 600 && out.split('\n').filter(Boolean).length < n; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      return out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    };
    child.stdin.write('{"jsonrpc": "2.0", "id": 5, "method": "initialize", oops}\n');
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })}\n`,
    );
    const [first, second] = await lines(2);
    expect(first).toMatchObject({ id: 5, error: { code: -32700 } });
    expect(second).toMatchObject({ id: 6, result: { serverInfo: { name: 'lectern-atlas' } } });
    child.kill('SIGTERM');
  }, 120_000);
});

describe('HTTP: message size', () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  let client: Client;
  beforeAll(async () => {
    server = await startHttpServer(['--preset', 'wiki', '--wiki', `garden=${s.examples}/wiki`], {
      cwd: s.dir,
    });
    client = new SdkClient({ name: 'http-size', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    server?.child.kill('SIGTERM');
  });

  it('delivers the largest write_batch its schema accepts to the tool', async () => {
    const r = await call(client, 'write_batch', largestBatch('garden'));
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('BATCH_REJECTED');
  }, 180_000);

  it('answers a body over the limit with 413 and a JSON-RPC error, logs it, and keeps the session', async () => {
    const post = (headers: Record<string, string>, bytes: number) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const u = new URL(server.url);
        const req = request(
          {
            // Its own connection: the declared-length request below sends less than it declares.
            agent: false,
            host: u.hostname,
            port: u.port,
            path: u.pathname,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            },
          },
          (res) => {
            let body = '';
            res.on('data', (d) => {
              body += String(d);
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        const piece = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const more = () => {
          while (sent < bytes) {
            sent += piece.length;
            if (!req.write(piece)) return void req.once('drain', more);
          }
          req.end();
        };
        req.write('{');
        more();
      });
    // Declared too large: refused before anything is read.
    const declared = await post({ 'content-length': String(MAX_MESSAGE_BYTES + 1) }, 0);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32600, message: expect.stringContaining('Request too large') },
    });
    // Streamed without a length: refused once the limit is crossed.
    const streamed = await post({ 'transfer-encoding': 'chunked' }, MAX_MESSAGE_BYTES + 1);
    expect(streamed.status).toBe(413);
    // Through the SDK client: the call never reaches the tool, and the client gets the server's
    // explanation. The server answers as soon as the declared length is over the limit, while
    // fetch is still uploading 64 MB; on a loaded machine fetch may then report the connection
    // ("fetch failed") instead of the answer, so a few tries are allowed, each of which must fail
    // and one of which must carry the explanation.
    const failures: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const message = await client
        .callTool({ name: 'write_batch', arguments: oversizedArguments() })
        .then(
          () => 'accepted',
          (e: unknown) => String((e as Error)?.message ?? e),
        );
      expect(message).not.toBe('accepted');
      failures.push(message);
      if (/Request too large/.test(message)) break;
    }
    expect(
      failures.some((m) => /Request too large/.test(m)),
      failures.join(' | '),
    ).toBe(true);
    await eventually(server.stderr, /refused a request body: Request too large/);
    const again = await call(client, 'list_wikis');
    expect(again.isError).toBe(false);
  }, 180_000);
});

describe('HTTP: sessions', () => {
  const servers: Array<Awaited<ReturnType<typeof startHttpServer>>> = [];
  afterAll(() => {
    for (const sv of servers) sv.child.kill('SIGTERM');
  });
  const start = async (args: string[], env: Record<string, string> = {}) => {
    const sv = await startHttpServer(['--preset', 'atlas', ...args], { cwd: s.dir, env });
    servers.push(sv);
    return sv;
  };

  it('refuses a session over --max-sessions with 503 and Retry-After, until one is deleted', async () => {
    const sv = await start(['--max-sessions', '2', '--session-idle', '3600']);
    const a = await openSession(sv.url);
    const b = await openSession(sv.url);
    expect([a.response.status, b.response.status]).toEqual([200, 200]);
    const c = await openSession(sv.url);
    expect(c.response.status).toBe(503);
    const retry = Number(c.response.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(3600);
    expect(JSON.parse(c.response.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { message: expect.stringContaining('too many sessions') },
    });
    await eventually(sv.stderr, 'refused a new session');
    const del = await rawRequest(sv.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': a.id!, 'mcp-protocol-version': '2025-06-18' },
    });
    expect(del.status).toBe(200);
    expect((await openSession(sv.url)).response.status).toBe(200);
    expect((await ping(sv.url, b.id!)).status).toBe(200);
  }, 120_000);

  it('closes a session idle for --session-idle seconds, freeing its slot; requests keep one alive, an open stream does not', async () => {
    // Issue 30 #8: sessions holding a GET (SSE) stream were never idle, so N of them kept
    // --max-sessions N full and every new client got 503 for good.
    const sv = await start(['--max-sessions', '2', '--session-idle', '1']);
    const streamed = await openSession(sv.url);
    const busy = await openSession(sv.url);
    // A GET stream open on `streamed`, and nothing else.
    const stream = request(sv.url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': streamed.id!,
        'mcp-protocol-version': '2025-06-18',
      },
    });
    const streamEnded = new Promise<void>((resolve) => stream.on('close', () => resolve()));
    stream.on('error', () => {});
    const streamOpen = new Promise<number>((resolve) =>
      stream.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }),
    );
    stream.end();
    expect(await streamOpen).toBe(200);
    // Both slots are taken.
    expect((await openSession(sv.url)).response.status).toBe(503);
    // `busy` sends a request every 300 ms for 2.5 s (over twice the idle time): kept alive.
    for (let i = 0; i < 8; i++) {
      expect((await ping(sv.url, busy.id!)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
    }
    // The streamed session had no request for 2.5 s: closed despite its open stream, whose
    // response the server ended.
    expect((await ping(sv.url, streamed.id!)).status).toBe(404);
    await streamEnded;
    expect((await ping(sv.url, busy.id!)).status).toBe(200);
    // The expired session's slot is free again.
    expect((await openSession(sv.url)).response.status).toBe(200);
    stream.destroy();
  }, 120_000);

  it('never lets idle streams keep --max-sessions full (every session streaming, none sending)', async () => {
    const sv = await start(['--max-sessions', '3', '--session-idle', '1']);
    const streams = [];
    for (let i = 0; i < 3; i++) {
      const opened = await openSession(sv.url);
      const stream = request(sv.url, {
        method: 'GET',
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': opened.id!,
          'mcp-protocol-version': '2025-06-18',
        },
      });
      const opened200 = new Promise<number>((resolve) =>
        stream.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }),
      );
      stream.on('error', () => {});
      stream.end();
      expect(await opened200).toBe(200);
      streams.push(stream);
    }
    expect((await openSession(sv.url)).response.status).toBe(503);
    // Within a generous bound (the sweep runs every quarter of the idle time), a slot frees up.
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await openSession(sv.url)).response.status;
    }
    expect(status).toBe(200);
    for (const stream of streams) stream.destroy();
  }, 120_000);

  it('lets only the token that opened a session use or delete it', async () => {
    const sv = await start([], { LECTERN_TOKEN: 'alpha-token,beta-token' });
    const alpha = { authorization: 'Bearer alpha-token' };
    const beta = { authorization: 'Bearer beta-token' };
    const opened = await openSession(sv.url, alpha);
    expect(opened.response.status).toBe(200);
    const id = opened.id!;
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    const stolen = await rawRequest(sv.url, { method: 'DELETE', headers: { ...headers, ...beta } });
    expect(stolen.status).toBe(404);
    expect((await ping(sv.url, id, beta)).status).toBe(404);
    expect((await ping(sv.url, id, alpha)).status).toBe(200);
    const own = await rawRequest(sv.url, { method: 'DELETE', headers: { ...headers, ...alpha } });
    expect(own.status).toBe(200);
    expect((await ping(sv.url, id, alpha)).status).toBe(404);
    // beta opens its own sessions as usual
    expect((await openSession(sv.url, beta)).response.status).toBe(200);
  }, 120_000);

  it('tells /health callers without the token only that it is up', async () => {
    const sv = await start([], { LECTERN_TOKEN: 'health-token' });
    const health = sv.url.replace(/\/mcp$/, '/health');
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Array<
      Record<string, string>
    >) {
      const r = await rawRequest(health, { method: 'GET', headers });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toEqual({ status: 'ok' });
    }
    const full = await rawRequest(health, {
      method: 'GET',
      headers: { authorization: 'Bearer health-token' },
    });
    expect(JSON.parse(full.body)).toMatchObject({ status: 'ok', tools: 4, sessions: 0 });
  }, 120_000);
});

describe('HTTP: where it listens', () => {
  const start2 = (args: string[], env: Record<string, string> = {}) =>
    startHttpServer(args, { cwd: s.dir, env });
  it('refuses a non-loopback address without a token, naming the way out', async () => {
    const r = await run(
      ['serve', '--http', '--host', '0.0.0.0', '--port', '0', '--preset', 'atlas'],
      {
        cwd: s.dir,
        env: { LECTERN_TOKEN: '' },
      },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('refusing to serve on 0.0.0.0 without a bearer token');
    expect(r.stderr).toContain('--allow-unauthenticated');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints the address it really binds, with a token or with --allow-unauthenticated', async () => {
    const withToken = await startHttpServer(['--host', '0.0.0.0', '--preset', 'atlas'], {
      cwd: s.dir,
      env: { LECTERN_TOKEN: 'bind-token' },
    });
    const open = await startHttpServer(
      ['--host', '0.0.0.0', '--allow-unauthenticated', '--preset', 'atlas'],
      { cwd: s.dir, env: { LECTERN_TOKEN: '' } },
    );
    try {
      expect(withToken.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
      expect(open.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
      await eventually(open.stderr, 'no bearer token');
      const port = new URL(open.url).port;
      const r = await rawRequest(`http://127.0.0.1:${port}/health`, { method: 'GET' });
      expect(r.status).toBe(200);
    } finally {
      withToken.child.kill('SIGTERM');
      open.child.kill('SIGTERM');
    }
  }, 120_000);

  it('answers at the URL it prints for another loopback address (--host 127.0.0.2)', async () => {
    // Issue 30: the Host allowlist held 127.0.0.1, localhost and [::1] only, so the printed
    // http://127.0.0.2:PORT/mcp answered 403.
    const sv = await startHttpServer(['--host', '127.0.0.2', '--preset', 'atlas'], {
      cwd: s.dir,
    });
    try {
      expect(sv.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/mcp$/);
      const client = new SdkClient({ name: 'loopback-2', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(sv.url)));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      // Another Host is still refused.
      const port = new URL(sv.url).port;
      const evil = await rawRequest(sv.url, {
        headers: { host: `evil.example:${port}` },
        body: '{}',
      });
      expect(evil.status).toBe(403);
    } finally {
      sv.child.kill('SIGTERM');
    }
  }, 120_000);

  it('refuses a request with two Host headers, and takes the bearer scheme in any case', async () => {
    const sv = await start2(['--preset', 'atlas'], { LECTERN_TOKEN: 'case-token' });
    try {
      const u = new URL(sv.url);
      // Two Host headers (the first allowed): Node keeps only the first in req.headers.
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(u.port), u.hostname, () => {
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${u.port}\r\nHost: evil.example\r\n` +
              'authorization: Bearer case-token\r\ncontent-type: application/json\r\n' +
              `accept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(INITIALIZE)}\r\nconnection: close\r\n\r\n${INITIALIZE}`,
          );
        });
        let out = '';
        socket.on('data', (d) => {
          out += String(d);
        });
        socket.on('end', () => resolve(out));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 400 /);
      for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
        const r = await openSession(sv.url, { authorization: `${scheme} case-token` });
        expect(r.response.status, scheme).toBe(200);
      }
      expect((await openSession(sv.url, { authorization: 'bearer wrong' })).response.status).toBe(
        401,
      );
      expect(
        (await openSession(sv.url, { authorization: 'Basic case-token' })).response.status,
      ).toBe(401);
    } finally {
      sv.child.kill('SIGTERM');
    }
  }, 120_000);

  it('says which port is taken and how to pick another, without a stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await run(['serve', '--http', '--port', String(port), '--preset', 'atlas'], {
        cwd: s.dir,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`port ${port} is already in use`);
      expect(r.stderr).toContain('--port 0');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });
});
