import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { afterFirstToolsList } from './warm-up.js';

describe('afterFirstToolsList', () => {
  it('fires once, after the first tools/list answer has been sent, not after initialize', async () => {
    const server = new McpServer({ name: 't', version: '0.0.0' });
    server.registerTool('ping', { description: 'Answers pong.' }, async () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const events: string[] = [];
    const send = serverSide.send.bind(serverSide);
    // Records what the server sends, under the hook (the hook wraps this send).
    serverSide.send = async (message, options) => {
      events.push('result' in message && 'tools' in (message.result as object) ? 'list' : 'sent');
      return send(message, options);
    };
    let onFired = () => {};
    const fired = new Promise<void>((resolve) => {
      onFired = resolve;
    });
    afterFirstToolsList(serverSide, () => {
      events.push('fired');
      onFired();
    });
    const ticks = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
    };
    const client = new Client({ name: 'c', version: '0.0.0' });
    await client.connect(clientSide);
    await ticks(5);
    expect(events).not.toContain('fired');

    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ping']);
    await fired;
    expect(events.filter((e) => e === 'fired')).toHaveLength(1);
    expect(events.indexOf('fired')).toBeGreaterThan(events.indexOf('list'));

    await client.listTools();
    await client.callTool({ name: 'ping', arguments: {} });
    await ticks(5);
    expect(events.filter((e) => e === 'fired')).toHaveLength(1);
    await client.close();
  });
});
