import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from './log.js';

/** Options of {@link startHttp}. */
export interface HttpOptions {
  /** Creates one MCP server per session. */
  createServer: () => McpServer;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Port (default 3000; 0 picks a free one). */
  port?: number;
  /** When set, every /mcp request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Extra Host header values to accept (host or host:port); loopback names are always accepted. */
  allowedHosts?: string[];
  /** Origin header values to accept; a request without Origin is accepted. */
  allowedOrigins?: string[];
  /** Number of tools served, shown by /health. */
  toolCount?: number;
  log: Logger;
}

/** A running HTTP server. */
export interface HttpHandle {
  /** Base URL of the MCP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  url: string;
  port: number;
  /** Open sessions right now. */
  sessions: () => number;
  /** Stops accepting connections, lets POST responses being written finish (10 s at most), then closes every session. */
  close: () => Promise<void>;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function rpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  sendJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

async function readBody(req: IncomingMessage, limit = 4 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw Object.assign(new Error('request body too large'), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw Object.assign(new Error('request body is not valid JSON'), { status: 400 });
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Serves MCP over Streamable HTTP at `/mcp`, one isolated session (and MCP server) per client,
 * plus `GET /health`. Refuses a Host header that is not loopback or allowed (403, against DNS
 * rebinding), an Origin that is not allowed (403), and, with a token, a missing or wrong bearer
 * token (401).
 */
export async function startHttp(options: HttpOptions): Promise<HttpHandle> {
  const host = options.host ?? '127.0.0.1';
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport; server: McpServer }
  >();
  let port = options.port ?? 3000;
  const hostOk = (header: string | undefined): boolean => {
    if (!header) return false;
    const allowed = new Set(
      ['127.0.0.1', 'localhost', '[::1]', ...(options.allowedHosts ?? [])].flatMap((h) => [
        h,
        `${h}:${port}`,
      ]),
    );
    if (
      host !== '127.0.0.1' &&
      host !== '::1' &&
      host !== 'localhost' &&
      host !== '0.0.0.0' &&
      host !== '::'
    ) {
      allowed.add(host).add(`${host}:${port}`);
    }
    return allowed.has(header.toLowerCase());
  };

  // POST responses still being written; shutdown waits for them so no answer is cut off.
  let openPosts = 0;
  let drained: (() => void) | undefined;
  const http = createServer(async (req, res) => {
    if (req.method === 'POST') {
      openPosts++;
      res.once('close', () => {
        openPosts--;
        if (openPosts === 0) drained?.();
      });
    }
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (!hostOk(req.headers.host)) {
        options.log.warn(`refused request with Host ${req.headers.host ?? '(none)'}`);
        return rpcError(
          res,
          403,
          `Host "${req.headers.host ?? ''}" is not allowed; add it with --allowed-host.`,
        );
      }
      const origin = req.headers.origin;
      if (origin && !(options.allowedOrigins ?? []).includes(origin)) {
        options.log.warn(`refused request with Origin ${origin}`);
        return rpcError(
          res,
          403,
          `Origin "${origin}" is not allowed; add it with --allowed-origin.`,
        );
      }
      if (url.pathname === '/health') {
        return sendJson(res, 200, {
          status: 'ok',
          tools: options.toolCount ?? null,
          sessions: sessions.size,
        });
      }
      if (url.pathname !== '/mcp')
        return sendJson(res, 404, { error: 'not found; the MCP endpoint is /mcp' });
      if (options.token) {
        const auth = req.headers.authorization ?? '';
        const given = auth.startsWith('Bearer ') ? auth.slice(7) : '';
        if (!sameToken(given, options.token)) {
          return rpcError(res, 401, 'missing or wrong bearer token', {
            'www-authenticate': 'Bearer',
          });
        }
      }
      const sessionId = req.headers['mcp-session-id'];
      const id = Array.isArray(sessionId) ? sessionId[0] : sessionId;
      if (req.method === 'POST') {
        const body = await readBody(req);
        if (id) {
          const s = sessions.get(id);
          if (!s)
            return rpcError(res, 404, `unknown session ${id}; start a new one with initialize`);
          return await s.transport.handleRequest(req, res, body);
        }
        if (!isInitializeRequest(body)) {
          return rpcError(res, 400, 'no session: the first request must be initialize');
        }
        const server = options.createServer();
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => {
            sessions.set(sid, { transport, server });
            options.log.debug(`session ${sid} opened (${sessions.size} open)`);
          },
        });
        transport.onclose = () => {
          if (transport.sessionId && sessions.delete(transport.sessionId)) {
            options.log.debug(`session ${transport.sessionId} closed`);
          }
        };
        await server.connect(transport);
        return await transport.handleRequest(req, res, body);
      }
      if (req.method === 'GET' || req.method === 'DELETE') {
        const s = id ? sessions.get(id) : undefined;
        if (!s)
          return rpcError(
            res,
            id ? 404 : 400,
            id ? `unknown session ${id}` : 'missing mcp-session-id header',
          );
        return await s.transport.handleRequest(req, res);
      }
      res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
    } catch (e) {
      const status = (e as { status?: number }).status ?? 500;
      if (status === 500) options.log.error(`HTTP request failed: ${(e as Error).stack ?? e}`);
      if (!res.headersSent)
        rpcError(res, status, status === 500 ? 'internal server error' : (e as Error).message);
      else res.end();
    }
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    sessions: () => sessions.size,
    close: async () => {
      const closing = new Promise<void>((resolve) => http.close(() => resolve()));
      if (openPosts > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 10_000);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      for (const { transport, server } of sessions.values()) {
        await transport.close().catch(() => {});
        await server.close().catch(() => {});
      }
      sessions.clear();
      http.closeAllConnections();
      await closing;
    },
  };
}
