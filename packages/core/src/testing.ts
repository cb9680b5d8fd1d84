import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolErrorPayload } from './errors.js';
import { type AnyToolDefinition, type RegisterOptions, registerTools } from './tool.js';

/** A connected in-memory client/server pair, see {@link connectTools}. */
export interface ConnectedTools {
  client: Client;
  server: McpServer;
  /** Closes both ends. */
  close: () => Promise<void>;
}

/**
 * Registers `tools` on a fresh `McpServer` and connects an SDK `Client` to it over the SDK's
 * in-memory transport pair: the real protocol path, for tests and embedding.
 */
export async function connectTools(
  tools: readonly AnyToolDefinition[],
  options: RegisterOptions = {},
): Promise<ConnectedTools> {
  const server = new McpServer(
    { name: 'lectern-test', version: '0.0.0' },
    { capabilities: { tools: {} } },
  );
  registerTools(server, tools, options);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'lectern-test-client', version: '0.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    client,
    server,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/**
 * The `{ error, code, suggestions?, details? }` payload of an error result (parsed from its
 * text block), or undefined when the result is not an error.
 */
export function errorOf(result: object): ToolErrorPayload | undefined {
  const r = result as { isError?: unknown; content?: unknown };
  if (!r.isError) return undefined;
  const first = (r.content as Array<{ type: string; text?: string }> | undefined)?.[0];
  if (first?.type !== 'text' || first.text === undefined) return undefined;
  try {
    const parsed = JSON.parse(first.text) as ToolErrorPayload;
    return typeof parsed === 'object' && parsed !== null && 'code' in parsed
      ? parsed
      : { error: first.text, code: 'INVALID_INPUT' };
  } catch {
    // The SDK's own input validation answers with plain text.
    return { error: first.text, code: 'INVALID_INPUT' };
  }
}

/** How far property and torture tests go: `ci` (each runs in seconds) or `deep` (before releases). */
export type TestDepth = 'ci' | 'deep';

/**
 * The depth chosen by the `LECTERN_TEST_DEPTH` environment variable: `deep` for
 * `pnpm test:deep`, `ci` otherwise (the default, also for an unknown value).
 */
export function testDepth(): TestDepth {
  return process.env.LECTERN_TEST_DEPTH === 'deep' ? 'deep' : 'ci';
}

/**
 * Picks a size for the current {@link testDepth}: `bySize(300, 3000)` runs 300 cases in CI and
 * 3,000 in a deep run. Tests scale their thresholds with the value they get.
 */
export function bySize<T>(ci: T, deep: T): T {
  return testDepth() === 'deep' ? deep : ci;
}

/** A running loop that keeps exchanging two paths, see {@link startExchangeLoop}. */
export interface ExchangeLoop {
  /** The helper doing the exchanges: `python3` or a C program compiled with `gcc`. */
  readonly helper: 'python3' | 'gcc';
  /** Stops the loop, leaving both paths as they were at the start; resolves to the swap count. */
  stop: () => Promise<number>;
}

const PYTHON_EXCHANGER = `
import ctypes, os, platform, signal, sys
a = os.fsencode(sys.argv[1]); b = os.fsencode(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
try:
    fn = libc.renameat2
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    def call(): return fn(-100, a, -100, b, 2)
except AttributeError:
    nr = {'x86_64': 316, 'aarch64': 276}.get(platform.machine())
    if nr is None: sys.exit('no renameat2 on ' + platform.machine())
    def call(): return libc.syscall(nr, -100, a, -100, b, 2)
def swap():
    if call() != 0:
        e = ctypes.get_errno(); raise OSError(e, os.strerror(e))
stop = False
def on_term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
swap(); swap()
print('ready', flush=True)
n = 0
while not stop:
    swap(); n += 1
if n % 2: swap(); n += 1
print(n, flush=True)
`;

const C_EXCHANGER = `
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile sig_atomic_t stop = 0;
static void on_term(int s) { (void)s; stop = 1; }
static void swap(const char *a, const char *b) {
  if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2) != 0) { perror("renameat2"); _exit(1); }
}
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  signal(SIGTERM, on_term);
  swap(argv[1], argv[2]); swap(argv[1], argv[2]);
  printf("ready\\n"); fflush(stdout);
  long n = 0;
  while (!stop) { swap(argv[1], argv[2]); n++; }
  if (n % 2) { swap(argv[1], argv[2]); n++; }
  printf("%ld\\n", n); fflush(stdout);
  return 0;
}
`;

async function runExchanger(
  command: string,
  args: string[],
): Promise<{ child: ChildProcess; output: () => string } | string> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    err += String(d);
  });
  const ready = await new Promise<boolean>((resolve) => {
    const check = () => {
      if (out.includes('ready\n')) resolve(true);
    };
    child.stdout?.on('data', check);
    child.once('error', () => resolve(false));
    child.once('exit', () => resolve(out.includes('ready\n')));
  });
  if (!ready) {
    child.kill('SIGKILL');
    return `${command}: ${err.trim() || 'did not start'}`;
  }
  return { child, output: () => out };
}

/**
 * Starts a child process that exchanges `a` and `b` atomically (`renameat2` with
 * `RENAME_EXCHANGE`, so neither path is ever missing) in a tight loop: the folder-for-symlink
 * swap that a check-then-open guard loses to. Uses python3 (ctypes), else a C helper compiled
 * with gcc into `scratchDir`; rejects with a message naming both attempts when neither works
 * (Linux only), so a test never skips silently.
 */
export async function startExchangeLoop(
  a: string,
  b: string,
  scratchDir: string,
): Promise<ExchangeLoop> {
  const attempts: string[] = [];
  let helper: ExchangeLoop['helper'] = 'python3';
  let started = await runExchanger('python3', ['-c', PYTHON_EXCHANGER, a, b]);
  if (typeof started === 'string') {
    attempts.push(started);
    helper = 'gcc';
    const source = join(scratchDir, 'exchange.c');
    const binary = join(scratchDir, 'exchange');
    writeFileSync(source, C_EXCHANGER);
    const cc = spawnSync('gcc', ['-O2', '-o', binary, source], { encoding: 'utf8' });
    if (cc.status === 0) started = await runExchanger(binary, [a, b]);
    else started = `gcc: ${cc.error?.message ?? cc.stderr.trim()}`;
    if (typeof started === 'string') attempts.push(started);
  }
  if (typeof started === 'string') {
    throw new Error(
      `cannot run the renameat2(RENAME_EXCHANGE) swap loop; install python3 or gcc (Linux). Tried: ${attempts.join(' | ')}`,
    );
  }
  const { child, output } = started;
  return {
    helper,
    stop: async () => {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const code = await exited;
      const lines = output().trim().split('\n');
      const count = Number(lines.at(-1));
      if (code !== 0 || !Number.isInteger(count)) {
        throw new Error(`the swap loop ended badly (exit ${code}): ${output()}`);
      }
      return count;
    },
  };
}
