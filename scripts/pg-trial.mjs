// `pnpm trial:postgres`: a team setup on one machine, to try before deploying one. Starts a
// private PostgreSQL cluster (see pg-cluster.mjs), two stateless `lectern` replicas serving
// the bundled examples with the memory index in that PostgreSQL, and a round-robin balancer in
// front of them; prints the URL to give an MCP client. Ctrl-C stops everything and removes the
// cluster. Options: --port N (the balancer's, default 3000), --notes DIR (default
// examples/notes). Build first (the package script does).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startCluster } from './pg-cluster.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'apps', 'server', 'dist', 'bin.js');
const { values } = parseArgs({
  options: { port: { type: 'string', default: '3000' }, notes: { type: 'string' } },
});
const notes = resolve(values.notes ?? join(root, 'examples', 'notes'));
const port = Number(values.port);
if (!existsSync(bin)) {
  console.error(`${bin} is missing: build first (pnpm build).`);
  process.exit(2);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, got ${values.port}`);
  process.exit(2);
}

const cluster = await startCluster();
const db = `${cluster.url}?schema=trial`;
const replicas = [];

/** Starts one replica on a free port; resolves to its /mcp URL once it serves. */
function replica() {
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--http', '--stateless', '--port', '0', '--notes', `notes=${notes}`, '--db', db],
    { stdio: ['ignore', 'inherit', 'pipe'] },
  );
  replicas.push(child);
  return new Promise((resolveUrl, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /serving \d+ tools at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) resolveUrl(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`a replica exited (${code}):\n${err}`)));
  });
}

let stopping = false;
function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of replicas) c.kill('SIGTERM');
  cluster.stop();
  process.exit(code);
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
  const backends = await Promise.all([replica(), replica()]);
  let next = 0;
  const balancer = createServer((req, res) => {
    const target = new URL(backends[next++ % backends.length]);
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  await new Promise((ok) => balancer.listen(port, '127.0.0.1', ok));
  const at = `http://127.0.0.1:${balancer.address().port}/mcp`;
  process.stdout.write(
    [
      '',
      `PostgreSQL (private, removed on exit): ${cluster.url}  schema "trial"`,
      `replicas (stateless): ${backends.join('  ')}`,
      `load balancer (round robin): ${at}`,
      '',
      `Point an MCP client at ${at}, e.g. claude mcp add --transport http lectern-team ${at}`,
      'Ctrl-C stops the replicas and the database.',
      '',
    ].join('\n'),
  );
} catch (e) {
  console.error(String(e?.message ?? e));
  stopAll(1);
}
