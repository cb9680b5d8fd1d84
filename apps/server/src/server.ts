import { registerTools } from '@lectern/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Composition } from './compose.js';
import type { Logger } from './log.js';
import { VERSION } from './version.js';

/** A fresh `McpServer` with every tool of the composition registered (one per HTTP session). */
export function createMcpServer(composition: Composition, log?: Logger): McpServer {
  const server = new McpServer(
    { name: composition.name, version: VERSION },
    { capabilities: { tools: {}, logging: {} } },
  );
  registerTools(server, composition.tools, {
    ...composition.registerOptions,
    onUnexpectedError: (error, tool) => {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log?.error(`unexpected error in ${tool}: ${text}`);
    },
  });
  return server;
}
