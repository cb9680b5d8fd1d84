import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
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
