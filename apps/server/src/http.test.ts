import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { HttpStartError, isLoopback, startHttp } from './http.js';
import { createLogger } from './log.js';

const log = createLogger('silent');
const createServer = () => new McpServer({ name: 't', version: '0' });

describe('isLoopback', () => {
  it('knows which addresses only this machine reaches', () => {
    for (const h of [
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
      'localhost',
      'LOCALHOST',
      '::ffff:127.0.0.1',
    ]) {
      expect(isLoopback(h), h).toBe(true);
    }
    for (const h of [
      '0.0.0.0',
      '::',
      '192.168.1.5',
      '10.0.0.1',
      'example.com',
      '128.0.0.1',
      'fe80::1',
    ]) {
      expect(isLoopback(h), h).toBe(false);
    }
  });
});

describe('startHttp', () => {
  it('refuses to bind beyond loopback without a token, before listening', async () => {
    await expect(startHttp({ createServer, host: '0.0.0.0', port: 0, log })).rejects.toThrow(
      HttpStartError,
    );
    await expect(
      startHttp({ createServer, host: '0.0.0.0', port: 0, log, tokens: ['', ''] }),
    ).rejects.toThrow(/--allow-unauthenticated/);
  });

  it('binds beyond loopback with a token or when allowed, and reports the real address', async () => {
    for (const options of [{ token: 'secret' }, { allowUnauthenticated: true }]) {
      const h = await startHttp({ createServer, host: '0.0.0.0', port: 0, log, ...options });
      try {
        expect(h.url).toBe(`http://0.0.0.0:${h.port}/mcp`);
        expect(h.exposed).toBe(true);
      } finally {
        await h.close();
      }
    }
  });

  it('refuses session limits that make no sense', async () => {
    await expect(startHttp({ createServer, port: 0, log, maxSessions: 0 })).rejects.toThrow(
      /maxSessions/,
    );
    await expect(startHttp({ createServer, port: 0, log, sessionIdleMs: -1 })).rejects.toThrow(
      /sessionIdleMs/,
    );
  });
});
