import { describe, expect, it } from 'vitest';
import {
  contextReport,
  countTokens,
  diffContextCost,
  renderContextCostDiff,
  serverContextCost,
  TOKEN_ENCODING,
  toolContextCost,
  toolContextText,
} from './tokens.js';
import type { ToolInput } from './types.js';

const read: ToolInput = {
  name: 'notes_read',
  description: 'Read a note.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
};

const search: ToolInput = {
  name: 'notes_search',
  title: 'Search notes',
  description: 'Search notes by words; returns up to 20 paths, best first.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to find.' },
      limit: { type: 'integer', minimum: 1, maximum: 20, default: 10 },
    },
    required: ['query'],
  },
  outputSchema: {
    type: 'object',
    properties: { paths: { type: 'array', items: { type: 'string' } } },
  },
  annotations: { readOnlyHint: true },
};

describe('countTokens', () => {
  it('counts o200k_base tokens of fixed strings exactly', () => {
    expect(TOKEN_ENCODING).toBe('o200k_base');
    // Counts checked against gpt-tokenizer's o200k_base encoder; cl100k_base gives 5 and 13
    // for the two Spanish strings, so another encoding fails here.
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('Read one section of a Markdown document by its anchor.')).toBe(11);
    expect(countTokens('Lee una sección.')).toBe(4);
    expect(countTokens('Devuelve las notas más recientes, ordenadas por fecha.')).toBe(12);
    expect(countTokens('')).toBe(0);
  });

  it('refuses what is not a string', () => {
    expect(() => countTokens(undefined as unknown as string)).toThrow(/needs a string/);
  });
});

describe('toolContextCost', () => {
  it('counts name, title, description and input schema as compact JSON with sorted keys', () => {
    const text = toolContextText(read);
    expect(text).toBe(
      '{"description":"Read a note.","inputSchema":{"properties":{"path":{"type":"string"}},"type":"object"},"name":"notes_read"}',
    );
    expect(toolContextCost(read)).toEqual({
      tokens: 29,
      outputSchemaTokens: 0,
      chars: text.length,
    });
  });

  it('counts the output schema apart and leaves the annotations out', () => {
    const cost = toolContextCost(search);
    const withoutOutput = toolContextCost({ ...search, outputSchema: null, annotations: null });
    expect(cost.tokens).toBe(withoutOutput.tokens);
    expect(cost.outputSchemaTokens).toBe(
      countTokens(
        '{"properties":{"paths":{"items":{"type":"string"},"type":"array"}},"type":"object"}',
      ),
    );
    expect(cost.outputSchemaTokens).toBeGreaterThan(10);
    expect(toolContextText(search)).toContain('"title":"Search notes"');
    expect(toolContextText(search)).not.toContain('readOnlyHint');
  });

  it('does not depend on the order a server lists keys in', () => {
    const reordered: ToolInput = {
      inputSchema: {
        required: ['query'],
        properties: {
          limit: { default: 10, maximum: 20, minimum: 1, type: 'integer' },
          query: { description: 'Words to find.', type: 'string' },
        },
        type: 'object',
      },
      description: search.description,
      title: search.title,
      name: search.name,
    };
    expect(toolContextCost(reordered).tokens).toBe(toolContextCost(search).tokens);
  });

  it('grows with the description', () => {
    const longer = {
      ...read,
      description: `${read.description} Fails when the path is outside the root.`,
    };
    expect(toolContextCost(longer).tokens - toolContextCost(read).tokens).toBe(
      countTokens(' Fails when the path is outside the root.'),
    );
  });
});

describe('server context cost and diffs', () => {
  it('sums the tools', () => {
    const a = toolContextCost(read);
    const b = toolContextCost(search);
    expect(serverContextCost([read, search])).toEqual({
      toolCount: 2,
      tokens: a.tokens + b.tokens,
      outputSchemaTokens: b.outputSchemaTokens,
      chars: a.chars + b.chars,
    });
    const report = contextReport([search, read]);
    expect(report.encoding).toBe('o200k_base');
    expect(report.tools.map((t) => t.name)).toEqual(['notes_search', 'notes_read']);
    expect(report.server.tokens).toBe(a.tokens + b.tokens);
  });

  it('reports the change per tool, with added and removed tools', () => {
    const shorter = { ...search, description: 'Search notes.' };
    const added: ToolInput = { name: 'notes_write', description: 'Write a note.' };
    const diff = diffContextCost([read, search], [shorter, added]);
    expect(diff.tools.map((t) => t.name)).toEqual(['notes_read', 'notes_search', 'notes_write']);
    const [r, s, w] = diff.tools;
    expect(r?.after).toBeNull();
    expect(r?.delta).toBe(-29);
    expect(s?.delta).toBe(toolContextCost(shorter).tokens - toolContextCost(search).tokens);
    expect(s?.delta).toBeLessThan(0);
    expect(w?.before).toBeNull();
    expect(w?.delta).toBe(toolContextCost(added).tokens);
    expect(diff.delta).toBe(diff.after.tokens - diff.before.tokens);
    const text = renderContextCostDiff(diff);
    expect(text).toMatch(/^Context cost \(o200k_base tokens\): \d+ -> \d+ \(−\d+\)/);
    expect(text).toMatch(/notes_read +29 -> +— +−29/);
    expect(text).toMatch(/notes_write +— -> +\d+ +\+\d+/);
    const md = renderContextCostDiff(diff, true);
    expect(md).toContain('| `notes_read` | 29 | — | −29 | ±0 |');
    expect(renderContextCostDiff(diffContextCost([read], [read]))).toContain(
      'no tool changed its context cost',
    );
  });
});
