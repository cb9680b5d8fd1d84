import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolErrorPayload } from './errors.js';
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

/**
 * The `{ error, code, suggestions?, details? }` payload of an error result (parsed from its
 * text block), or undefined when the result is not an error.
 */
export function errorOf(result: object): ToolErrorPayload | undefined {
  const r = result as { isError?: unknown; content?: unknown };
  if (!r.isError) return undefined;
  const first = (r.content as Array<{ type: string; text?: string }> | undefined)?.[0];
  if (first?.type !== 'text' || first.text === undefined) return undefined;
  try {
    const parsed = JSON.parse(first.text) as ToolErrorPayload;
    return typeof parsed === 'object' && parsed !== null && 'code' in parsed
      ? parsed
      : { error: first.text, code: 'INVALID_INPUT' };
  } catch {
    // The SDK's own input validation answers with plain text.
    return { error: first.text, code: 'INVALID_INPUT' };
  }
}

/** How far property and torture tests go: `ci` (each runs in seconds) or `deep` (before releases). */
export type TestDepth = 'ci' | 'deep';

/**
 * The depth chosen by the `LECTERN_TEST_DEPTH` environment variable: `deep` for
 * `pnpm test:deep`, `ci` otherwise (the default, also for an unknown value).
 */
export function testDepth(): TestDepth {
  return process.env.LECTERN_TEST_DEPTH === 'deep' ? 'deep' : 'ci';
}

/**
 * Picks a size for the current {@link testDepth}: `bySize(300, 3000)` runs 300 cases in CI and
 * 3,000 in a deep run. Tests scale their thresholds with the value they get.
 */
export function bySize<T>(ci: T, deep: T): T {
  return testDepth() === 'deep' ? deep : ci;
}
