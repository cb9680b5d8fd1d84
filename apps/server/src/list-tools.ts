import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Composition } from './compose.js';
import { createMcpServer } from './server.js';
import { VERSION } from './version.js';

/**
 * The tools a composition serves, exactly as `tools/list` answers a client: the server `serve`
 * runs, asked by an SDK client over the SDK's in-process transport pair (no child process, no
 * socket).
 */
export async function listServedTools(composition: Composition): Promise<Tool[]> {
  const server = createMcpServer(composition);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'lectern-tools', version: VERSION });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  } finally {
    await client.close();
    await server.close();
  }
}
