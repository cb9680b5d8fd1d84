import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  formatBytes,
  MAX_MESSAGE_BYTES,
} from './lib/limits.js';
import type { Logger } from './log.js';

// Defined beside the other limits so the CLI's help does not load this module (and the SDK's
// HTTP transport) to show them.
export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS };

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
  /**
   * Several accepted bearer tokens (with or instead of `token`), e.g. one per client. A session
   * belongs to the token that opened it: requests (and DELETE) with another token cannot use it.
   */
  tokens?: readonly string[];
  /**
   * Binding an address other than loopback without a token is refused unless this is true:
   * anyone who can reach the port could then use every tool.
   */
  allowUnauthenticated?: boolean;
  /** Extra Host header values to accept (host or host:port); loopback names are always accepted. */
  allowedHosts?: string[];
  /** Origin header values to accept; a request without Origin is accepted. */
  allowedOrigins?: string[];
  /** Number of tools served, shown by /health to clients with a valid token. */
  toolCount?: number;
  /** Most sessions open at once (default {@link DEFAULT_MAX_SESSIONS}); more get 503. */
  maxSessions?: number;
  /**
   * A session with no request for this long (counted from the last request's start, or the last
   * POST's answer; an open GET stream does not count) is closed (default
   * {@link DEFAULT_SESSION_IDLE_MS}); its client starts a new one with initialize.
   */
  sessionIdleMs?: number;
  /** Largest request body, in bytes (default {@link MAX_MESSAGE_BYTES}); larger ones get 413. */
  maxMessageBytes?: number;
  /**
   * Keep no sessions: every POST is answered by a fresh MCP server and transport, so any of
   * several processes behind a load balancer can answer any request. GET streams and DELETE
   * are refused (405); `maxSessions` and `sessionIdleMs` do not apply.
   */
  stateless?: boolean;
  log: Logger;
}

/** A running HTTP server. */
export interface HttpHandle {
  /** Base URL of the MCP endpoint at the bound address, e.g. http://127.0.0.1:3000/mcp. */
  url: string;
  /** The address bound, as given (e.g. `0.0.0.0`, `::1`, `192.168.1.5`). */
  host: string;
  port: number;
  /** True when the bound address is reachable from other machines (not loopback). */
  exposed: boolean;
  /** Open sessions right now. */
  sessions: () => number;
  /** Stops accepting connections, lets POST responses being written finish (10 s at most), then closes every session. */
  close: () => Promise<void>;
}

/** A refusal to start, with a message for the user (no stack trace needed). */
export class HttpStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpStartError';
  }
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return (
    h === 'localhost' ||
    h === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  );
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
  code = -32000,
) {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly code = -32000,
  ) {
    super(message);
  }
}

/**
 * Reads a JSON request body of at most `limit` bytes. Oversized bodies get a 413 without closing
 * the connection: one declared too large is answered at once and the rest discarded as it
 * arrives, one found too large while streaming is read to its end (discarded) first, so a client
 * still sending receives the answer instead of a reset connection (closing a socket with unread
 * data resets it). Only a body over four times the limit is cut off with `connection: close`.
 */
function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const cutOff = limit * 4;
  const tooLarge = (size: string, close: boolean) =>
    new HttpError(
      413,
      `Request too large: ${size}, over the ${limit}-byte (${formatBytes(limit)}) message limit. Send less per call (smaller text, fewer operations).`,
      close ? { connection: 'close' } : {},
      -32600,
    );
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(tooLarge(`${declared} bytes`, declared > cutOff));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: Error | undefined, value?: unknown) => {
      if (done) return;
      done = true;
      if (error) reject(error);
      else resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
      if (size > cutOff) finish(tooLarge(`more than ${cutOff} bytes`, true));
    });
    req.on('error', (e) => finish(e));
    req.on('end', () => {
      if (size > limit) {
        finish(tooLarge(Number.isFinite(declared) ? `${declared} bytes` : `${size} bytes`, false));
        return;
      }
      const text = Buffer.concat(chunks, size).toString('utf8');
      if (text === '') return finish(undefined, undefined);
      try {
        finish(undefined, JSON.parse(text));
      } catch {
        finish(new HttpError(400, 'Parse error: the request body is not valid JSON.', {}, -32700));
      }
    });
  });
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** Which credential opened it (a hash of the token; '' without tokens). */
  owner: string;
  /**
   * POSTs being answered on it now. A GET (SSE) stream is not counted: an open stream alone
   * does not keep a session, so idle streams cannot hold every `maxSessions` slot for good.
   */
  open: number;
  /** When its last request started, or its last POST ended (ms since epoch). */
  lastSeen: number;
}

/**
 * Serves MCP over Streamable HTTP at `/mcp`, one isolated session (and MCP server) per client,
 * plus `GET /health`. Refuses a Host header that is not loopback or allowed (403, against DNS
 * rebinding), an Origin that is not allowed (403), with tokens a missing or wrong bearer token
 * (401), a body over the message limit (413), and a new session when `maxSessions` are open
 * (503 with Retry-After). Sessions idle for `sessionIdleMs` are closed; a session can only be
 * used or deleted with the token that opened it. Refuses to bind beyond loopback without a token
 * unless `allowUnauthenticated` is set.
 */
export async function startHttp(options: HttpOptions): Promise<HttpHandle> {
  const host = options.host ?? '127.0.0.1';
  const tokens = [...(options.token ? [options.token] : []), ...(options.tokens ?? [])].filter(
    (t) => t !== '',
  );
  const exposed = !isLoopback(host);
  if (exposed && tokens.length === 0 && !options.allowUnauthenticated) {
    throw new HttpStartError(
      `refusing to serve on ${host} without a bearer token: every machine that can reach it could use every tool. ` +
        'Set a token (LECTERN_TOKEN, or --token-env VAR), bind 127.0.0.1, or pass --allow-unauthenticated if the network is trusted.',
    );
  }
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) {
    throw new HttpStartError(
      `maxSessions must be a whole number of at least 1, got ${maxSessions}`,
    );
  }
  if (!Number.isFinite(idleMs) || idleMs <= 0) {
    throw new HttpStartError(`sessionIdleMs must be a positive number, got ${idleMs}`);
  }
  const sessions = new Map<string, Session>();
  /** Sessions being initialized: counted against the cap before they have an id. */
  let opening = 0;
  let port = options.port ?? 3000;
  const hostOk = (header: string | undefined): boolean => {
    if (!header) return false;
    const allowed = new Set(
      ['127.0.0.1', 'localhost', '[::1]', ...(options.allowedHosts ?? [])].flatMap((h) => [
        h,
        `${h}:${port}`,
      ]),
    );
    // The bound address itself (also another loopback one, e.g. 127.0.0.2: the URL printed at
    // start must answer), unless it is a wildcard.
    if (host !== '0.0.0.0' && host !== '::') {
      const shown = host.includes(':') ? `[${host}]` : host;
      allowed.add(shown).add(`${shown}:${port}`);
    }
    return allowed.has(header.toLowerCase());
  };
  /** How many Host headers a request carries (Node keeps only the first in `headers`). */
  const hostHeaders = (req: IncomingMessage) => {
    let n = 0;
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (req.rawHeaders[i]!.toLowerCase() === 'host') n++;
    }
    return n;
  };
  /** The token a request presents, when it is one of ours; '' without tokens; undefined when wrong. */
  const credential = (req: IncomingMessage): string | undefined => {
    if (tokens.length === 0) return '';
    // The scheme is case-insensitive (RFC 9110 §11.1), followed by one or more spaces.
    const auth = /^bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    const given = auth ? auth[1]! : '';
    if (given === '') return undefined;
    return tokens.find((t) => sameToken(given, t));
  };
  const ownerOf = (token: string) =>
    token === '' ? '' : createHash('sha256').update(token).digest('hex');

  const closeSession = async (id: string, why: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    options.log.debug(`session ${id} ${why} (${sessions.size} open)`);
    await s.transport.close().catch(() => {});
    await s.server.close().catch(() => {});
  };
  const expired = (s: Session, now: number) => s.open === 0 && now - s.lastSeen >= idleMs;
  const sweep = () => {
    const now = Date.now();
    for (const [id, s] of sessions) if (expired(s, now)) void closeSession(id, 'expired (idle)');
  };
  const sweeper = setInterval(sweep, Math.min(Math.max(idleMs / 4, 100), 60_000));
  sweeper.unref();
  /** Seconds until a slot may free up: the soonest idle expiry, else a full idle period. */
  const retryAfter = () => {
    const now = Date.now();
    let soonest = idleMs;
    for (const s of sessions.values()) {
      if (s.open === 0) soonest = Math.min(soonest, Math.max(0, s.lastSeen + idleMs - now));
    }
    return String(Math.max(1, Math.ceil(soonest / 1000)));
  };
  /**
   * Marks a request on a session: its start is activity; a POST also keeps the session until
   * its answer ends. A GET stream's life (and the events sent on it) is not activity.
   */
  const track = (s: Session, req: IncomingMessage, res: ServerResponse) => {
    s.lastSeen = Date.now();
    if (req.method !== 'POST') return;
    s.open++;
    res.once('close', () => {
      s.open--;
      s.lastSeen = Date.now();
    });
  };

  // POST responses still being written; shutdown waits for them so no answer is cut off.
  let openPosts = 0;
  let drained: (() => void) | undefined;
  const http = createServer(
    { keepAlive: true, keepAliveInitialDelay: 60_000 },
    async (req, res) => {
      if (req.method === 'POST') {
        openPosts++;
        res.once('close', () => {
          openPosts--;
          if (openPosts === 0) drained?.();
        });
      }
      try {
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (hostHeaders(req) > 1) {
          options.log.warn('refused request with more than one Host header');
          return rpcError(res, 400, 'more than one Host header; send exactly one.');
        }
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
        const token = credential(req);
        if (url.pathname === '/health') {
          // Without a valid token, only that the server is up: counts are for its clients.
          if (token === undefined) return sendJson(res, 200, { status: 'ok' });
          if (options.stateless) {
            return sendJson(res, 200, {
              status: 'ok',
              tools: options.toolCount ?? null,
              mode: 'stateless',
            });
          }
          return sendJson(res, 200, {
            status: 'ok',
            tools: options.toolCount ?? null,
            sessions: sessions.size,
            max_sessions: maxSessions,
          });
        }
        if (url.pathname !== '/mcp')
          return sendJson(res, 404, { error: 'not found; the MCP endpoint is /mcp' });
        if (token === undefined) {
          return rpcError(res, 401, 'missing or wrong bearer token', {
            'www-authenticate': 'Bearer',
          });
        }
        if (options.stateless) return await answerStateless(req, res, options, maxBytes);
        const owner = ownerOf(token);
        const sessionId = req.headers['mcp-session-id'];
        const id = Array.isArray(sessionId) ? sessionId[0] : sessionId;
        const unknown = () =>
          rpcError(res, 404, `unknown session ${id}; start a new one with initialize`, {}, -32001);
        if (id) {
          const s = sessions.get(id);
          // Another token's session is answered exactly like a missing one.
          if (!s || s.owner !== owner) return unknown();
          if (expired(s, Date.now())) {
            await closeSession(id, 'expired (idle)');
            return unknown();
          }
          track(s, req, res);
          if (req.method === 'POST') {
            const body = await readBody(req, maxBytes);
            return await s.transport.handleRequest(req, res, body);
          }
          if (req.method === 'GET' || req.method === 'DELETE') {
            return await s.transport.handleRequest(req, res);
          }
          return res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
        }
        if (req.method === 'GET' || req.method === 'DELETE')
          return rpcError(res, 400, 'missing mcp-session-id header');
        if (req.method !== 'POST') return res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
        const body = await readBody(req, maxBytes);
        if (!isInitializeRequest(body)) {
          return rpcError(res, 400, 'no session: the first request must be initialize');
        }
        if (sessions.size + opening >= maxSessions) sweep();
        if (sessions.size + opening >= maxSessions) {
          const wait = retryAfter();
          options.log.warn(
            `refused a new session: ${maxSessions} are open (the --max-sessions limit); retry after ${wait} s`,
          );
          return rpcError(
            res,
            503,
            `too many sessions: ${maxSessions} are open, the server's limit; retry after ${wait} s, or close an unused session with DELETE.`,
            { 'retry-after': wait },
          );
        }
        opening++;
        let counted = true;
        const release = () => {
          if (counted) opening--;
          counted = false;
        };
        try {
          const server = options.createServer();
          const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sid) => {
              release();
              const s: Session = { transport, server, owner, open: 0, lastSeen: Date.now() };
              sessions.set(sid, s);
              track(s, req, res);
              options.log.debug(`session ${sid} opened (${sessions.size} open)`);
            },
          });
          transport.onclose = () => {
            const sid = transport.sessionId;
            if (sid && sessions.get(sid)?.transport === transport) {
              sessions.delete(sid);
              options.log.debug(`session ${sid} closed (${sessions.size} open)`);
            }
          };
          await server.connect(transport);
          return await transport.handleRequest(req, res, body);
        } finally {
          release();
        }
      } catch (e) {
        const status = e instanceof HttpError ? e.status : 500;
        if (status === 500) options.log.error(`HTTP request failed: ${(e as Error).stack ?? e}`);
        else if (status === 413)
          options.log.warn(`refused a request body: ${(e as Error).message}`);
        if (!res.headersSent) {
          const headers = e instanceof HttpError ? e.headers : {};
          const code = e instanceof HttpError ? e.code : -32603;
          rpcError(
            res,
            status,
            status === 500 ? 'internal server error' : (e as Error).message,
            headers,
            code,
          );
          // Discard the rest of an oversized body as it arrives; never hold it in memory.
          if (status === 413) req.resume();
        } else res.end();
      }
    },
  );

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    clearInterval(sweeper);
    throw listenError(e as NodeJS.ErrnoException, host, port);
  }
  port = (http.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    host,
    port,
    exposed,
    sessions: () => sessions.size,
    close: async () => {
      clearInterval(sweeper);
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
      for (const id of [...sessions.keys()]) await closeSession(id, 'closed (server stopping)');
      http.closeAllConnections();
      await closing;
    },
  };
}

/**
 * One request of a stateless server: a fresh MCP server and transport answer it and are
 * closed with the response. Nothing outlives the request, so the next one may go to any
 * process; what tools share (the memory index, a wiki's files) lives outside the process.
 */
async function answerStateless(
  req: IncomingMessage,
  res: ServerResponse,
  options: HttpOptions,
  maxBytes: number,
): Promise<void> {
  if (req.method !== 'POST') {
    return rpcError(
      res,
      405,
      'this server is stateless: it answers POST /mcp only (no session, so no GET stream and nothing to DELETE).',
      { allow: 'POST' },
    );
  }
  const body = await readBody(req, maxBytes);
  const server = options.createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.once('close', () => {
    void transport.close().catch(() => {});
    void server.close().catch(() => {});
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** A listen failure in words: which address and port, and what to do about it. */
function listenError(e: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (e.code) {
    case 'EADDRINUSE':
      return new HttpStartError(
        `port ${port} is already in use on ${host} (another program, or another lectern, is listening at ${where}); pick another with --port N, or --port 0 for any free port.`,
      );
    case 'EACCES':
      return new HttpStartError(
        `not allowed to listen at ${where} (ports below 1024 need extra privileges); pick a port from 1024 up with --port N, or --port 0 for any free port.`,
      );
    case 'EADDRNOTAVAIL':
      return new HttpStartError(
        `cannot listen at ${where}: ${host} is not an address of this machine; pass one of its addresses with --host, or 127.0.0.1.`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new HttpStartError(
        `cannot listen at ${where}: the host name ${host} does not resolve; pass an IP address with --host.`,
      );
    default:
      return e;
  }
}
