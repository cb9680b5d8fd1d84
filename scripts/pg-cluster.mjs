// A private, throw-away PostgreSQL cluster for tests, the bench and the local trial: initdb into
// a temporary folder, start it on a free loopback port, and remove it all again. Nothing here
// touches a server someone else runs. Set LECTERN_PG_BIN to the folder holding initdb and pg_ctl
// when they are not in /usr/lib/postgresql/<version>/bin or on PATH.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folder with initdb and pg_ctl, or undefined (with the places looked at). */
export function findPgBin() {
  const looked = [];
  const candidates = [];
  if (process.env.LECTERN_PG_BIN) candidates.push(process.env.LECTERN_PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(join(debian, v, 'bin'));
  }
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.push(dir);
  for (const dir of candidates) {
    looked.push(dir);
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) {
      return { bin: dir, looked };
    }
  }
  return { bin: undefined, looked };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function userId(name) {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * Starts a private cluster and resolves to `{ url, dir, port, stop }`. As root (initdb refuses
 * to run as root) the cluster belongs to the `postgres` user and its programs run through
 * `runuser`. `stop()` is synchronous and idempotent: it stops the server and removes the folder;
 * it is also called when this process exits. Throws an Error whose message says what is
 * missing when a cluster cannot be made.
 */
export async function startCluster(options = {}) {
  const { bin, looked } = findPgBin();
  if (!bin) {
    throw new Error(
      `PostgreSQL's initdb and pg_ctl were not found (looked in ${looked.slice(0, 6).join(', ')}${looked.length > 6 ? ', …' : ''}); install PostgreSQL (e.g. apt-get install postgresql) or set LECTERN_PG_BIN`,
    );
  }
  const root = process.getuid?.() === 0;
  let owner;
  if (root) {
    owner = userId('postgres');
    if (!owner) {
      throw new Error(
        'running as root, but there is no "postgres" user to own the cluster (initdb refuses to run as root)',
      );
    }
  }
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), 'lectern-pg-'));
  const data = join(dir, 'data');
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chmodSync(dir, 0o700);
  }
  const run = (program, args) => {
    const [cmd, argv] = root
      ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
      : [join(bin, program), args];
    const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir, timeout: 120_000 });
    if (r.status !== 0) {
      const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-8).join('\n');
      throw new Error(
        `${program} failed (${r.error?.message ?? `exit ${r.status}`}): ${out || '(no output)'}`,
      );
    }
  };
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone: removing the folder is what is left to do.
      }
    }
    rmSync(dir, { recursive: true, force: true });
    process.off('exit', stop);
  };
  process.on('exit', stop);
  try {
    run('initdb', [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
    ]);
    let port;
    let lastError;
    for (let attempt = 0; attempt < 5 && !started; attempt++) {
      port = await freePort();
      const settings = [
        `-p ${port}`,
        `-k ${dir}`,
        '-c listen_addresses=127.0.0.1',
        // Throw-away data: durability costs time and buys nothing here.
        '-c fsync=off',
        '-c synchronous_commit=off',
        '-c full_page_writes=off',
        '-c max_connections=200',
        `-c shared_buffers=${options.sharedBuffers ?? '128MB'}`,
      ].join(' ');
      try {
        run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', 'start']);
        started = true;
      } catch (e) {
        lastError = e;
      }
    }
    if (!started) throw lastError;
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dir, port, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

// `node scripts/pg-cluster.mjs`: start a cluster, print its URL, stop it on Ctrl-C.
if (import.meta.url === `file://${process.argv[1]}`) {
  const cluster = await startCluster();
  process.stdout.write(`${cluster.url}\n`);
  const quit = () => {
    cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', quit);
  process.on('SIGTERM', quit);
  setInterval(() => {}, 1 << 30);
}
