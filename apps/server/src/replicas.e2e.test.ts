import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, rawRequest } from './test-helpers/http.js';
import { postgresForTests, withSchema } from './test-helpers/postgres.js';
import { call, run, scratch, startHttpServer } from './test-helpers/spawn.js';

const s = scratch();
afterAll(() => s.cleanup());

/** Stops a server started by a test and waits for it to exit. */
function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('serve --stateless', () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) await stop(c);
  });

  it('answers each POST on its own, refuses GET and DELETE, and says so on /health', async () => {
    const server = await startHttpServer(['--stateless', '--preset', 'atlas'], { cwd: s.dir });
    children.push(server.child);
    expect(server.stderr()).toMatch(/stateless: no sessions/);
    const init = await rawRequest(server.url, {
      headers: {},
      body: INITIALIZE,
    });
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    // No initialize needed on this process: any request stands alone.
    const list = await rawRequest(server.url, {
      headers: { 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    expect(list.body).toContain('atlas_read');
    for (const method of ['GET', 'DELETE']) {
      const r = await rawRequest(server.url, { method });
      expect(r.status, method).toBe(405);
      expect(r.body).toMatch(/stateless/);
    }
    const health = await rawRequest(server.url.replace(/\/mcp$/, '/health'), { method: 'GET' });
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', mode: 'stateless' });
  });

  it('refuses --stateless without --http, and with session limits', async () => {
    const noHttp = await run(['serve', '--stateless', '--preset', 'atlas'], { cwd: s.dir });
    expect(noHttp.code).toBe(2);
    expect(noHttp.stderr).toMatch(/--stateless applies to HTTP/);
    const limits = await run(
      ['serve', '--http', '--port', '0', '--stateless', '--max-sessions', '5', '--preset', 'atlas'],
      { cwd: s.dir },
    );
    expect(limits.code).toBe(2);
    expect(limits.stderr).toMatch(/keeps none/);
  });
});

/**
 * A load balancer in miniature: forwards each request to the next backend in turn, streaming
 * the answer back, and records which backend answered which tool call.
 */
async function roundRobin(backends: string[]) {
  let next = 0;
  const served: Array<{ backend: number; tool: string }> = [];
  const server: Server = createServer((req, res) => {
    const backend = next++ % backends.length;
    const target = new URL(backends[backend]!);
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const msg = JSON.parse(body.toString('utf8'));
        if (msg?.method === 'tools/call') served.push({ backend, tool: msg.params.name });
      } catch {
        // Not JSON (a GET): forwarded as it is.
      }
      const headers = { ...req.headers, host: target.host };
      const out = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: req.method,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => {
        res.writeHead(502).end();
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const url = postgresForTests('two stateless lectern replicas on one PostgreSQL');

if (url) {
  describe('two stateless replicas behind a load balancer, one PostgreSQL, one notes folder', () => {
    const schema = `replicas_${randomBytes(4).toString('hex')}`;
    const db = withSchema(url, schema);
    const notes = join(s.dir, 'team-notes');
    const children: ChildProcess[] = [];
    let balancer: Awaited<ReturnType<typeof roundRobin>>;
    let client: Client;
    const old = new Date(Date.now() - 60_000);
    const note = (rel: string, text: string) => {
      const file = join(notes, rel);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, text);
      utimesSync(file, old, old);
    };

    beforeAll(async () => {
      for (let i = 0; i < 12; i++) note(`n${i}.md`, `# Note ${i}\n\nthe shared walnut ${i}\n`);
      const args = ['--stateless', '--notes', `team=${notes}`, '--db', db, '--log-level', 'warn'];
      const [a, b] = await Promise.all([
        startHttpServer(args, { cwd: s.dir }),
        startHttpServer(args, { cwd: s.dir }),
      ]);
      children.push(a.child, b.child);
      balancer = await roundRobin([a.url, b.url]);
      client = new Client({ name: 'replicas', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(balancer.url)));
    }, 120_000);
    afterAll(async () => {
      await client?.close();
      await balancer?.close();
      for (const c of children) await stop(c);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }, 60_000);

    it('a reindex answered by one replica is seen by a search answered by the other', async () => {
      const first = await call(client, 'memory_reindex', {});
      expect(first.isError, first.text).toBe(false);
      expect(first.data).toMatchObject({ files: 12 });
      note('late.md', '# Late\n\na pistachio arrives\n');
      const reindex = await call(client, 'memory_reindex', {});
      expect(reindex.data).toMatchObject({ added: 1, files: 13 });
      const found = await call(client, 'memory_search', { query: 'pistachio' });
      expect(found.data.results.map((r: { path: string }) => r.path)).toEqual(['team/late.md']);
      expect(found.data.results[0].stale).toBe(false);
      // The reindex and the search went to different processes.
      const calls = balancer.served.slice(-2);
      expect(calls.map((c) => c.tool)).toEqual(['memory_reindex', 'memory_search']);
      expect(calls[0]!.backend).not.toBe(calls[1]!.backend);
      // Reading the cited lines works from either replica.
      for (let i = 0; i < 2; i++) {
        const fragment = await call(client, 'memory_read_fragment', { path: 'team/late.md' });
        expect(fragment.data.content).toContain('pistachio');
      }
      expect(new Set(balancer.served.map((c) => c.backend))).toEqual(new Set([0, 1]));
    });

    it('concurrent reindexes on both replicas lose nothing', async () => {
      const before = (await call(client, 'memory_list_sources', {})).data.sources[0]
        .files as number;
      let written = 0;
      for (let round = 0; round < 3; round++) {
        for (let k = 0; k < 10; k++)
          note(`burst${round}/f${k}.md`, `# Burst\n\nmarker${round}x${k} hazel\n`);
        written += 10;
        const served = balancer.served.length;
        const results = await Promise.all([
          call(client, 'memory_reindex', {}),
          call(client, 'memory_reindex', {}),
        ]);
        for (const r of results) expect(r.isError, r.text).toBe(false);
        // One reindex ran on each replica, at the same time.
        expect(new Set(balancer.served.slice(served).map((c) => c.backend)).size).toBe(2);
        expect(results.map((r) => r.data.added).sort()).toEqual([0, 10]);
      }
      const listed = (await call(client, 'memory_list_sources', {})).data.sources[0];
      expect(listed.files).toBe(before + written);
      expect(listed.pending).toEqual({ new: 0, changed: 0, deleted: 0 });
      const all = await call(client, 'memory_search', { query: 'hazel', limit: 50 });
      expect(all.data.results).toHaveLength(written);
      expect(new Set(all.data.results.map((r: { path: string }) => r.path)).size).toBe(written);
    });
  });
}
