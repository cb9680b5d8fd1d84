import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorOf } from '@lectern/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The built `lectern` binary. */
export const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
/** The repository's bundled examples. */
export const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));

/** A scratch folder (realpath'd) and a copy of the examples inside it. */
export function scratch(): { dir: string; examples: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'lectern-e2e-')));
  const examples = join(dir, 'examples');
  cpSync(EXAMPLES, examples, { recursive: true, filter: (s) => !s.includes('/.lectern') });
  return { dir, examples, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `lectern serve <args>` as a child process and connects an SDK client over stdio. */
export async function connectStdio(
  args: string[],
  cwd: string,
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--log-level', 'warn', ...args],
    cwd,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d) => {
    err += String(d);
  });
  const client = new Client({ name: 'lectern-e2e', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** Loosely typed result data for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: tests read nested fields freely
export type Loose = any;

/** Calls a tool; returns the structured result, or the error payload with `isError`. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; data: Loose; text: string }> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as Array<{ type: string; text?: string }>)[0]?.text ?? '';
  if (r.isError) return { isError: true, data: errorOf(r), text };
  return { isError: false, data: r.structuredContent, text };
}

/** Runs `lectern <args>` to completion. */
export function run(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv } = { cwd: process.cwd() },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `lectern serve --http --port 0 <args>` and resolves with its URL once it listens. */
export function startHttpServer(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0', ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 60_000);
    child.stderr.on('data', (d) => {
      stderr += String(d);
      const m = /at (http:\/\/[^\s]+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child, stderr: () => stderr });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${stderr}`));
    });
  });
}

/**
 * Waits until `text()` (a child's stderr so far) matches `pattern`, and returns it. Log lines
 * travel through a pipe and may arrive after the answer that caused them; asserting on them at
 * once would depend on timing. Fails, showing the text, after `timeoutMs`.
 */
export async function eventually(
  text: () => string,
  pattern: string | RegExp,
  timeoutMs = 30_000,
): Promise<string> {
  const matches = () =>
    typeof pattern === 'string' ? text().includes(pattern) : pattern.test(text());
  const end = Date.now() + timeoutMs;
  while (!matches() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  if (!matches()) throw new Error(`expected the log to show ${String(pattern)}; it is:\n${text()}`);
  return text();
}
