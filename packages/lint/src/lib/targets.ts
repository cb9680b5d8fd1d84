import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AnyToolDefinition, type RegisterOptions, registerTools } from '@lectern/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolInput } from './types.js';

/** The input is unusable (malformed file, server that does not start, URL that does not answer). */
export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** Where tools come from. */
export type Target =
  | { kind: 'file'; path: string }
  | { kind: 'stdio'; command: string; args: string[]; cwd?: string; env?: Record<string, string> }
  | { kind: 'url'; url: string; headers?: Record<string, string> }
  | { kind: 'module'; path: string; exportName?: string; args?: unknown[] };

/** Tools read from a target, with what is known about the server. */
export interface LoadedTools {
  tools: ToolInput[];
  serverName?: string;
  serverVersion?: string;
  /** Human-readable origin, e.g. the file path, URL or command line. */
  source: string;
  /** A file results can point at (for SARIF and annotations), when there is one. */
  file?: string;
}

/**
 * Reads a target string: `http(s)://…` is a Streamable HTTP server, `*.js|*.mjs|*.cjs` a module
 * exporting tool definitions, `-` standard input, anything else a tools/list JSON file.
 */
export function parseTarget(spec: string): Target {
  if (/^https?:\/\//i.test(spec)) return { kind: 'url', url: spec };
  if (/\.(?:m|c)?js$/i.test(spec) || /\.(?:m|c)?ts$/i.test(spec))
    return { kind: 'module', path: spec };
  return { kind: 'file', path: spec };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses a `tools/list` result: `{ "tools": [...] }`, a bare array, a JSON-RPC response whose
 * `result` holds the tools, or a Lectern snapshot. Each tool needs a string `name`; `description`
 * and `title` must be strings or null; schemas and annotations must be objects or null.
 */
export function parseToolsJson(
  text: string,
  source = 'input',
): { tools: ToolInput[]; serverName?: string; serverVersion?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TargetError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  let server: unknown;
  if (isObj(value) && isObj(value.result) && 'tools' in value.result) value = value.result;
  if (isObj(value)) {
    server = value.server;
    if (!Array.isArray(value.tools)) {
      throw new TargetError(
        `${source} has no "tools" array; expected { "tools": [...] } (a tools/list result) or a bare array of tools.`,
      );
    }
    value = value.tools;
  }
  if (!Array.isArray(value)) {
    throw new TargetError(`${source} must hold { "tools": [...] } or an array of tools.`);
  }
  const seen = new Set<string>();
  const tools = value.map((t, i) => {
    const where = `${source}: tool #${i + 1}`;
    if (!isObj(t)) throw new TargetError(`${where} is not an object.`);
    if (typeof t.name !== 'string' || t.name.trim() === '') {
      throw new TargetError(`${where} has no "name" (a non-empty string is required).`);
    }
    const named = `${source}: tool "${t.name}"`;
    if (seen.has(t.name)) throw new TargetError(`${named} appears twice.`);
    seen.add(t.name);
    for (const key of ['description', 'title'] as const) {
      if (t[key] !== undefined && t[key] !== null && typeof t[key] !== 'string') {
        throw new TargetError(`${named}: "${key}" must be a string or null.`);
      }
    }
    for (const key of ['inputSchema', 'outputSchema', 'annotations'] as const) {
      if (t[key] !== undefined && t[key] !== null && !isObj(t[key])) {
        throw new TargetError(`${named}: "${key}" must be an object or null.`);
      }
    }
    return t as ToolInput;
  });
  const name = isObj(server) && typeof server.name === 'string' ? server.name : undefined;
  const version = isObj(server) && typeof server.version === 'string' ? server.version : undefined;
  return { tools, serverName: name, serverVersion: version };
}

/** Lists every tool from a connected client, following `nextCursor` pages. */
export async function listAllTools(client: Client): Promise<ToolInput[]> {
  const tools: ToolInput[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const res = await client.listTools(cursor ? { cursor } : {});
    tools.push(...(res.tools as ToolInput[]));
    cursor = res.nextCursor;
    if (!cursor) return tools;
  }
  throw new TargetError('tools/list returned more than 1000 pages; giving up.');
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TargetError(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function listOver(
  transport: Transport,
  what: string,
  timeoutMs: number,
  describeFailure: (error: unknown) => string,
  timeoutHint = '',
): Promise<Omit<LoadedTools, 'source'>> {
  const hint = timeoutHint ? ` (${timeoutHint})` : '';
  const client = new Client({ name: 'lectern-lint', version: '0.1.0' });
  try {
    await withTimeout(
      client.connect(transport),
      timeoutMs,
      `${what} did not complete the MCP handshake within ${timeoutMs} ms${hint}.`,
    );
    const tools = await withTimeout(
      listAllTools(client),
      timeoutMs,
      `${what} did not answer tools/list within ${timeoutMs} ms${hint}.`,
    );
    const info = client.getServerVersion();
    return { tools, serverName: info?.name, serverVersion: info?.version };
  } catch (error) {
    throw new TargetError(describeFailure(error));
  } finally {
    await client.close().catch(() => {});
  }
}

/** Options for {@link loadTarget}. */
export interface LoadOptions {
  /** Connect and list timeout for live servers, ms. Default 60000. */
  timeoutMs?: number;
  /** Appended to a timeout message, e.g. how to raise the limit ("raise it with --timeout MS"). */
  timeoutHint?: string;
  /** Reads standard input for the `-` file target. */
  readStdin?: () => Promise<string>;
}

/**
 * Loads the tools of a target: parses a file, imports a module (converting zod schemas exactly as
 * the SDK's `tools/list` does, by registering the definitions on an in-memory server), or starts /
 * connects to a live server with the SDK client. Throws {@link TargetError} with a clear message
 * when the target is unusable.
 */
export async function loadTarget(target: Target, options: LoadOptions = {}): Promise<LoadedTools> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  switch (target.kind) {
    case 'file': {
      let text: string;
      if (target.path === '-') {
        if (!options.readStdin) throw new TargetError('no standard input to read tools from.');
        text = await options.readStdin();
      } else {
        try {
          text = await readFile(target.path, 'utf8');
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          throw new TargetError(
            code === 'ENOENT'
              ? `tools file ${target.path} does not exist.`
              : code === 'EISDIR'
                ? `${target.path} is a directory; pass a tools/list JSON file.`
                : `cannot read ${target.path}: ${(error as Error).message}`,
          );
        }
      }
      const source = target.path === '-' ? 'standard input' : target.path;
      const parsed = parseToolsJson(text, source);
      return { ...parsed, source, ...(target.path === '-' ? {} : { file: target.path }) };
    }
    case 'module':
      return { ...(await loadModule(target)), source: target.path, file: target.path };
    case 'stdio': {
      const line = [target.command, ...target.args].join(' ');
      let stderr = '';
      const transport = new StdioClientTransport({
        command: target.command,
        args: target.args,
        cwd: target.cwd,
        env: { ...getDefaultEnvironment(), ...(target.env ?? {}) },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-2000);
      });
      const loaded = await listOver(
        transport,
        `server "${line}"`,
        timeoutMs,
        (error) => {
          const tail = stderr.trim()
            ? `; its stderr ended with: ${stderr.trim().split('\n').slice(-3).join(' | ')}`
            : '';
          return `server "${line}" did not start or answer: ${(error as Error).message}${tail}`;
        },
        options.timeoutHint,
      );
      return { ...loaded, source: line };
    }
    case 'url': {
      let url: URL;
      try {
        url = new URL(target.url);
      } catch {
        throw new TargetError(`"${target.url}" is not a valid URL.`);
      }
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: target.headers ?? {} },
      });
      const loaded = await listOver(
        transport,
        url.href,
        timeoutMs,
        (error) => {
          const cause = (error as { cause?: { code?: string; message?: string } }).cause;
          const detail = cause?.code ?? cause?.message;
          return `${url.href} did not answer as an MCP Streamable HTTP server: ${(error as Error).message}${detail ? ` (${detail})` : ''}`;
        },
        options.timeoutHint,
      );
      return { ...loaded, source: url.href };
    }
  }
}

function isZodSchema(v: unknown): boolean {
  return (
    isObj(v) &&
    ('_zod' in v || '_def' in v) &&
    typeof (v as { safeParse?: unknown }).safeParse === 'function'
  );
}

function isDefinitionLike(v: unknown): v is Record<string, unknown> & { name: string } {
  return (
    isObj(v) &&
    typeof v.name === 'string' &&
    'inputSchema' in v &&
    (v.description === undefined || v.description === null || typeof v.description === 'string')
  );
}

function collect(value: unknown, out: unknown[]): void {
  if (isDefinitionLike(value)) {
    if (!out.includes(value)) out.push(value);
  } else if (Array.isArray(value)) {
    if (value.length > 0 && value.every(isDefinitionLike)) for (const v of value) collect(v, out);
  } else if (isObj(value)) {
    const vals = Object.values(value);
    if (vals.length > 0 && vals.every(isDefinitionLike)) for (const v of vals) collect(v, out);
  }
}

async function loadModule(
  target: Extract<Target, { kind: 'module' }>,
): Promise<Omit<LoadedTools, 'source'>> {
  const abs = resolve(target.path);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION' || /\.(?:m|c)?ts$/i.test(abs)) {
      throw new TargetError(
        `cannot import ${target.path}: Node does not load TypeScript by itself; build it and pass the compiled .js file.`,
      );
    }
    if (code === 'ERR_MODULE_NOT_FOUND' && (error as Error).message.includes(abs)) {
      throw new TargetError(`module ${target.path} does not exist.`);
    }
    throw new TargetError(`cannot import ${target.path}: ${(error as Error).message}`);
  }
  const found: unknown[] = [];
  if (target.exportName !== undefined) {
    if (!(target.exportName in mod)) {
      throw new TargetError(
        `${target.path} has no export "${target.exportName}"; it exports: ${Object.keys(mod).join(', ') || 'nothing'}.`,
      );
    }
    let value = mod[target.exportName];
    if (typeof value === 'function') {
      try {
        value = await (value as (...a: unknown[]) => unknown)(...(target.args ?? []));
      } catch (error) {
        throw new TargetError(
          `${target.path}: calling ${target.exportName}() failed: ${(error as Error).message}`,
        );
      }
    }
    collect(value, found);
  } else {
    for (const key of Object.keys(mod)) collect(mod[key], found);
  }
  if (found.length === 0) {
    throw new TargetError(
      `${target.path} exports no tool definitions (objects with name, description and inputSchema, or arrays of them)${target.exportName ? '' : '; to call a factory, name it with --export and pass --args'}.`,
    );
  }
  const byName = new Map<string, unknown>();
  for (const def of found as { name: string }[]) {
    if (byName.has(def.name)) {
      throw new TargetError(`${target.path} exports two different tools named "${def.name}".`);
    }
    byName.set(def.name, def);
  }
  return { tools: await toolsFromDefinitions(found as AnyToolDefinition[]) };
}

/**
 * The `tools/list` entries a server would publish for these definitions: zod-schema definitions
 * are registered with `@lectern/core`'s `registerTools` on an in-memory SDK server and listed by
 * an SDK client, so the JSON Schema is exactly what clients see (zod 4 `toJSONSchema`, draft-7,
 * input/output io). Plain JSON-schema definitions pass through unchanged. Order is preserved.
 */
export async function toolsFromDefinitions(
  definitions: readonly (AnyToolDefinition | ToolInput)[],
  options: RegisterOptions = {},
): Promise<ToolInput[]> {
  const zodDefs = definitions.filter((d) => isZodSchema(d.inputSchema)) as AnyToolDefinition[];
  const listed = new Map<string, ToolInput>();
  if (zodDefs.length > 0) {
    const server = new McpServer(
      { name: 'lectern-lint', version: '0.0.0' },
      { capabilities: { tools: {} } },
    );
    const names = registerTools(
      server,
      zodDefs.map((d) => ({ ...d, handler: d.handler ?? (() => ({})) })),
      options,
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'lectern-lint', version: '0.0.0' });
    try {
      await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
      const tools = await listAllTools(client);
      zodDefs.forEach((d, i) => {
        const t = tools.find((x) => x.name === names[i]);
        if (t) listed.set(d.name, t);
      });
    } finally {
      await client.close();
      await server.close();
    }
  }
  return definitions.map((d) => {
    const fromServer = listed.get(d.name);
    if (fromServer) return fromServer;
    const { handler: _h, ...rest } = d as ToolInput & { handler?: unknown };
    return rest as ToolInput;
  });
}

/** The file extension check used by the CLI to tell modules from JSON files. */
export function isModulePath(path: string): boolean {
  return ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'].includes(extname(path).toLowerCase());
}
