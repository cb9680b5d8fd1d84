// Real MCP clients over stdio: the built `lectern` binary and the official filesystem server,
// each in its own child process, plus the peak resident memory of that process.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Largest JSON-RPC message the bench clients accept (the SDK default is 10 MiB). */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** The built `lectern` bin (run `pnpm build` first). */
export const LECTERN_BIN = join(here, '../../../apps/server/dist/bin.js');

/** The filesystem server's entry point, as installed for this package. */
export function filesystemServerBin() {
  const pkg = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
  const bin = JSON.parse(readFileSync(pkg, 'utf8')).bin;
  return join(dirname(pkg), typeof bin === 'string' ? bin : Object.values(bin)[0]);
}

/** Peak resident set size (VmHWM) of a live process in MiB, or null when it cannot be read. */
export function peakRssMb(pid) {
  if (!pid) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number((Number(m[1]) / 1024).toFixed(1)) : null;
  } catch {
    return null;
  }
}

/**
 * Spawns `node <script> ...args` and connects an SDK `Client` over stdio. Returns the client,
 * the child's pid, `call(name, args)` (which throws on an error result, so a benchmark never
 * times a failure), `peakRssMb()` and `close()`. `startedAt`/`readyAt` are performance.now()
 * stamps around spawn + initialize.
 */
export async function connectNode(script, args, { cwd, name = 'bench', env = {} } = {}) {
  const startedAt = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    cwd,
    stderr: 'pipe',
    env: { ...process.env, NODE_ENV: 'production', ...env },
    // The SDK's default (10 MiB per message) refuses the filesystem server's whole-file answer
    // for the 16 MiB file (the text comes twice: text block and structuredContent).
    maxBufferSize: MAX_MESSAGE_BYTES,
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    if (stderr.length < 20_000) stderr += d;
  });
  const client = new Client({ name, version: '0.0.0' });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`could not start ${script} ${args.join(' ')}: ${e.message}\n${stderr}`);
  }
  const readyAt = performance.now();
  const pid = transport.pid;
  return {
    client,
    pid,
    startedAt,
    readyAt,
    stderr: () => stderr,
    async call(tool, toolArgs) {
      let res;
      try {
        res = await client.callTool({ name: tool, arguments: toolArgs }, undefined, {
          timeout: 600_000,
        });
      } catch (e) {
        const tail = stderr.slice(-2000);
        throw new Error(
          `${tool} on ${script}: ${e.message}${tail ? `\nserver stderr:\n${tail}` : ''}`,
        );
      }
      if (res.isError) {
        const text = res.content?.map((c) => c.text ?? '').join('') ?? '';
        const err = new Error(`${tool} failed: ${text.slice(0, 500)}`);
        err.result = res;
        throw err;
      }
      return res;
    },
    peakRssMb: () => peakRssMb(pid),
    close: () => client.close(),
  };
}

/** `lectern serve` over stdio with the given flags (quiet logs). */
export function connectLectern(flags, options) {
  return connectNode(LECTERN_BIN, ['serve', '--log-level', 'error', ...flags], options);
}

/** The official filesystem MCP server over stdio, allowed the given folders. */
export function connectFilesystem(dirs, options) {
  return connectNode(filesystemServerBin(), dirs, options);
}
