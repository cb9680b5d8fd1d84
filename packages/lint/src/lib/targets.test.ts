import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerTools } from '@lectern/core';
import { connectTools } from '@lectern/core/testing';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadTarget,
  parseTarget,
  parseToolsJson,
  TargetError,
  toolsFromDefinitions,
} from './targets.js';

const fixtures = fileURLToPath(new URL('../../test-fixtures/', import.meta.url));
const modulePath = join(fixtures, 'lectern-tools.mjs');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lectern-lint-targets-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('tools/list JSON', () => {
  it('accepts { tools }, a bare array, a JSON-RPC response and a snapshot', () => {
    const t = { name: 'a', description: 'x' };
    expect(parseToolsJson(JSON.stringify({ tools: [t] })).tools).toEqual([t]);
    expect(parseToolsJson(JSON.stringify([t])).tools).toEqual([t]);
    expect(
      parseToolsJson(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [t] } })).tools,
    ).toEqual([t]);
    const snap = parseToolsJson(
      JSON.stringify({ server: { name: 's', version: '2.0.0' }, tools: [t] }),
    );
    expect(snap).toMatchObject({ serverName: 's', serverVersion: '2.0.0' });
  });

  it('names what is wrong in a malformed file', () => {
    expect(() => parseToolsJson('{"tools": [', 'x.json')).toThrow(/x\.json is not valid JSON/);
    expect(() => parseToolsJson('{"items": []}', 'x.json')).toThrow(/has no "tools" array/);
    expect(() => parseToolsJson('"hello"', 'x.json')).toThrow(/must hold/);
    expect(() => parseToolsJson('[{"description":"x"}]', 'x.json')).toThrow(
      /tool #1 has no "name"/,
    );
    expect(() => parseToolsJson('[{"name":"a"},{"name":"a"}]', 'x.json')).toThrow(
      /"a" appears twice/,
    );
    expect(() => parseToolsJson('[{"name":"a","description":3}]', 'x.json')).toThrow(
      /"description" must be a string or null/,
    );
    expect(() => parseToolsJson('[{"name":"a","inputSchema":[]}]', 'x.json')).toThrow(
      /"inputSchema" must be an object/,
    );
  });

  it('reads files and reports missing ones clearly', async () => {
    const file = join(dir, 'tools.json');
    writeFileSync(file, JSON.stringify({ tools: [{ name: 'a', description: 'x' }] }));
    const loaded = await loadTarget({ kind: 'file', path: file });
    expect(loaded).toMatchObject({ source: file, file, tools: [{ name: 'a' }] });
    await expect(loadTarget({ kind: 'file', path: join(dir, 'nope.json') })).rejects.toThrow(
      /does not exist/,
    );
    await expect(loadTarget({ kind: 'file', path: dir })).rejects.toThrow(/is a directory/);
    const stdin = await loadTarget(
      { kind: 'file', path: '-' },
      { readStdin: async () => '[{"name":"s"}]' },
    );
    expect(stdin.source).toBe('standard input');
  });

  it('tells targets apart', () => {
    expect(parseTarget('https://x.test/mcp')).toEqual({ kind: 'url', url: 'https://x.test/mcp' });
    expect(parseTarget('dist/tools.js')).toEqual({ kind: 'module', path: 'dist/tools.js' });
    expect(parseTarget('tools.json')).toEqual({ kind: 'file', path: 'tools.json' });
  });
});

describe('module targets', () => {
  it('converts zod definitions exactly as the SDK tools/list emits them', async () => {
    const mod = await import(modulePath);
    const { client, close } = await connectTools(mod.tools);
    const viaSdk = (await client.listTools()).tools;
    await close();
    const loaded = await loadTarget({ kind: 'module', path: modulePath });
    expect(loaded.tools).toEqual(viaSdk);
    expect(loaded.tools.map((t) => t.name)).toEqual([
      'notes_outline',
      'notes_read',
      'notes_search',
    ]);
    expect(loaded.tools[1]?.inputSchema).toMatchObject({
      properties: { max_chars: { type: 'integer', default: 4000, minimum: 100, maximum: 20000 } },
      required: ['anchor'],
    });
    expect(await toolsFromDefinitions(mod.tools, { prefix: 'x_' })).toHaveLength(3);
  });

  it('reads a named export, calls a factory with arguments, and refuses bad modules', async () => {
    const factory = join(dir, 'factory.mjs');
    writeFileSync(
      factory,
      `export function makeTools(prefix) { return [{ name: prefix + '_list', description: 'List things.', inputSchema: { type: 'object', properties: {} } }]; }\nexport const nothing = 1;\n`,
    );
    const made = await loadTarget({
      kind: 'module',
      path: factory,
      exportName: 'makeTools',
      args: ['demo'],
    });
    expect(made.tools).toEqual([
      {
        name: 'demo_list',
        description: 'List things.',
        inputSchema: { type: 'object', properties: {} },
      },
    ]);
    await expect(loadTarget({ kind: 'module', path: factory })).rejects.toThrow(
      /exports no tool definitions/,
    );
    await expect(
      loadTarget({ kind: 'module', path: factory, exportName: 'missing' }),
    ).rejects.toThrow(/has no export "missing"/);
    await expect(loadTarget({ kind: 'module', path: join(dir, 'absent.mjs') })).rejects.toThrow(
      TargetError,
    );
  });
});

describe('live servers', () => {
  it('lists the tools of a stdio server started as a child process', async () => {
    const loaded = await loadTarget({
      kind: 'stdio',
      command: process.execPath,
      args: [join(fixtures, 'stdio-server.mjs')],
    });
    expect(loaded.tools.map((t) => t.name)).toEqual([
      'notes_outline',
      'notes_read',
      'notes_search',
    ]);
    expect(loaded).toMatchObject({ serverName: 'fixture-notes', serverVersion: '1.2.3' });
  });

  it('reports a server that exits or cannot be spawned', async () => {
    await expect(
      loadTarget(
        {
          kind: 'stdio',
          command: process.execPath,
          args: ['-e', 'process.stderr.write("boom: no config\\n"); process.exit(3)'],
        },
        { timeoutMs: 30_000 },
      ),
    ).rejects.toThrow(/did not start or answer.*boom: no config/);
    await expect(
      loadTarget(
        { kind: 'stdio', command: join(dir, 'no-such-binary'), args: [] },
        { timeoutMs: 30_000 },
      ),
    ).rejects.toThrow(/did not start or answer/);
    await expect(
      loadTarget(
        { kind: 'stdio', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
        { timeoutMs: 300 },
      ),
    ).rejects.toThrow(/did not complete the MCP handshake within 300 ms/);
  });

  describe('Streamable HTTP', () => {
    let http: Server;
    let url: string;
    beforeAll(async () => {
      const mod = await import(modulePath);
      http = createServer(async (req, res) => {
        const server = new McpServer(
          { name: 'http-notes', version: '0.9.0' },
          { capabilities: { tools: {} } },
        );
        registerTools(server, mod.tools);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
      });
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    });
    afterAll(async () => {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    });

    it('lists the tools of a server reached by URL', async () => {
      const loaded = await loadTarget({ kind: 'url', url });
      expect(loaded.tools.map((t) => t.name)).toEqual([
        'notes_outline',
        'notes_read',
        'notes_search',
      ]);
      expect(loaded.serverName).toBe('http-notes');
    });

    it('reports a URL that does not answer', async () => {
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      await expect(
        loadTarget({ kind: 'url', url: `http://127.0.0.1:${port}/mcp` }, { timeoutMs: 30_000 }),
      ).rejects.toThrow(/did not answer as an MCP Streamable HTTP server/);
      await expect(loadTarget({ kind: 'url', url: 'http://[bad' })).rejects.toThrow(
        /not a valid URL/,
      );
    });
  });
});
