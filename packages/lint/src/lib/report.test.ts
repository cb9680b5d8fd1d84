import { describe, expect, it } from 'vitest';
import { evaluateThresholds, validateThresholds } from './report.js';
import { scoreServer } from './server.js';
import { contextReport } from './tokens.js';
import type { ToolInput } from './types.js';

const tools: ToolInput[] = [
  {
    name: 'notes_read',
    description: 'Read one note by its path, relative to the notes folder.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  { name: 'notes_list', description: 'List every note path, sorted.' },
];

describe('token budgets', () => {
  it('fail the tools over the tool budget and the server over its budget, naming counts', async () => {
    const report = await scoreServer(tools);
    const context = contextReport(tools);
    const [read, list] = context.tools;
    expect(read!.tokens).toBeGreaterThan(list!.tokens);
    const between = evaluateThresholds(report, { maxToolTokens: list!.tokens }, context);
    expect(between.passed).toBe(false);
    expect(between.failures).toEqual([
      {
        tool: 'notes_read',
        rule: 'max-tool-tokens',
        message: `costs ${read!.tokens} o200k_base tokens in context, over the budget of ${list!.tokens} (${read!.tokens - list!.tokens} over)`,
      },
    ]);
    expect(evaluateThresholds(report, { maxToolTokens: read!.tokens }, context).passed).toBe(true);
    const total = context.server.tokens;
    const server = evaluateThresholds(report, { maxServerTokens: total - 1 }, context);
    expect(server.failures).toHaveLength(1);
    expect(server.failures[0]!.tool).toBeUndefined();
    expect(server.failures[0]!.message).toContain(`the 2 tools cost ${total} o200k_base tokens`);
    expect(evaluateThresholds(report, { maxServerTokens: total }, context).passed).toBe(true);
  });

  it('fail when a budget is set but the cost was not measured, and refuse bad budgets', async () => {
    const report = await scoreServer(tools);
    const outcome = evaluateThresholds(report, { maxServerTokens: 10_000 });
    expect(outcome.passed).toBe(false);
    expect(outcome.failures[0]!.message).toMatch(/not measured/);
    expect(() => validateThresholds({ maxToolTokens: -1 })).toThrow(/whole number of tokens/);
    expect(() => validateThresholds({ maxServerTokens: 1.5 })).toThrow(/whole number of tokens/);
  });
});
