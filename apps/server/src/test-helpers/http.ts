import { type IncomingMessage, request } from 'node:http';

/** What a raw HTTP request got back. */
export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** One HTTP request with exactly these headers and body (no client library in between). */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: options.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += String(d);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** An initialize request body. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
});

/** Opens a session with a raw initialize; resolves with its id (and the whole response). */
export async function openSession(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ id: string | undefined; response: RawResponse }> {
  const response = await rawRequest(url, { headers, body: INITIALIZE });
  const id = response.headers['mcp-session-id'];
  return { id: Array.isArray(id) ? id[0] : id, response };
}

/** A ping on a session; resolves with the status (200 when the session is alive). */
export async function ping(
  url: string,
  sessionId: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return rawRequest(url, {
    headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
}
