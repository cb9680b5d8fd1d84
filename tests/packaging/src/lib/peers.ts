/**
 * The ranges of the MCP SDK and zod that core and the tool packages accept as peers. The low
 * ends are tested: a consumer with exactly these versions type-checks and serves (see
 * consumers.test.ts). SDK 1.23.0 is the first release that takes zod 4 schemas; 1.22 type-checks
 * but fails at run time on them.
 */
export const PEER_RANGES = {
  '@modelcontextprotocol/sdk': '^1.23.0',
  zod: '^4.0.0',
} as const;
