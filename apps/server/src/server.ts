import { registerTools } from '@lectern/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Composition } from './compose.js';
import type { Logger } from './log.js';
import { VERSION } from './version.js';

let ajv: AjvJsonSchemaValidator | undefined;

/**
 * The SDK's own JSON Schema validator (Ajv), built on first use. The SDK builds one per server
 * by default, and building it (meta-schemas, formats) is a visible part of start-up; our
 * servers use it only to check elicitation answers, which most sessions never do. Validation
 * is the SDK's, unchanged: only its construction moves to the first call.
 */
export const lazyJsonSchemaValidator: jsonSchemaValidator = {
  getValidator(schema) {
    ajv ??= new AjvJsonSchemaValidator();
    return ajv.getValidator(schema);
  },
};

/** A fresh `McpServer` with every tool of the composition registered (one per HTTP session). */
export function createMcpServer(composition: Composition, log?: Logger): McpServer {
  const server = new McpServer(
    { name: composition.name, version: VERSION },
    { capabilities: { tools: {}, logging: {} }, jsonSchemaValidator: lazyJsonSchemaValidator },
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
