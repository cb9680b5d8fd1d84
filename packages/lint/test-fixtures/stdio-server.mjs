// Serves the fixture tools over stdio with the SDK and @lectern/core, like a real Lectern server.
import { registerTools } from '@lectern/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { tools } from './lectern-tools.mjs';

const server = new McpServer(
  { name: 'fixture-notes', version: '1.2.3' },
  { capabilities: { tools: {} } },
);
registerTools(server, tools);
await server.connect(new StdioServerTransport());
