import { createRequire } from 'node:module';
import { canonicalJson } from './canonical.js';
import type { Json, ToolInput } from './types.js';

/**
 * The tokenizer encoding context costs are counted in: `o200k_base`, the encoding of OpenAI's
 * GPT-4o, GPT-4.1, GPT-5 and o-series models, through the `gpt-tokenizer` package. Other model
 * families tokenize differently (typically within ±15% on English prose and JSON), so treat the
 * counts as a consistent yardstick for budgets and diffs rather than any one model's bill.
 */
export const TOKEN_ENCODING = 'o200k_base';

type Encoder = { countTokens(text: string): number };

let encoder: Encoder | undefined;

/**
 * The encoder, loaded on first use. It is required synchronously from this package's own
 * installed location (the encoding's tables are 2.4 MB of JavaScript), so importing
 * `@lectern/lint`, or bundling it, never loads it: only counting does.
 */
function load(): Encoder {
  if (!encoder) {
    // A local name, not `require`: bundlers leave this call alone (the lectern command's bundle
    // does not take the tables in), and Node resolves the package from this file's location.
    const requireHere = createRequire(import.meta.url);
    encoder = requireHere('gpt-tokenizer/encoding/o200k_base') as Encoder;
  }
  return encoder;
}

/** The number of {@link TOKEN_ENCODING} tokens in `text` (special tokens are counted as text). */
export function countTokens(text: string): number {
  if (typeof text !== 'string') throw new TypeError('countTokens needs a string.');
  if (text === '') return 0;
  return load().countTokens(text);
}

/** What one tool costs in a model's context. */
export interface ToolContextCost {
  /**
   * Tokens of what a client puts into the model's context for the tool: its name, title,
   * description and input schema, as compact JSON with sorted keys.
   */
  tokens: number;
  /** Tokens of the output schema as compact JSON (0 without one); counted apart from `tokens`. */
  outputSchemaTokens: number;
  /** Characters (UTF-16 code units) of the text counted in `tokens`. */
  chars: number;
}

/** A tool's context cost with its name. */
export interface NamedContextCost extends ToolContextCost {
  name: string;
}

/** What a whole server's tool list costs: the sums over its tools. */
export interface ServerContextCost extends ToolContextCost {
  toolCount: number;
}

/** The context cost of every tool and of the server, in {@link TOKEN_ENCODING} tokens. */
export interface ContextReport {
  encoding: string;
  tools: NamedContextCost[];
  server: ServerContextCost;
}

/**
 * The text a client sends the model for `tool`: `{ name, title?, description?, inputSchema }`
 * as compact canonical JSON (absent or null title and description are left out; a missing
 * input schema counts as `{ "type": "object" }`, which clients fill in). Sorted keys make the
 * count independent of the order a server lists properties in, so a snapshot and the live
 * server count the same.
 */
export function toolContextText(tool: ToolInput): string {
  const entry: Record<string, Json> = { name: tool.name };
  if (typeof tool.title === 'string' && tool.title !== '') entry.title = tool.title;
  if (typeof tool.description === 'string' && tool.description !== '')
    entry.description = tool.description;
  entry.inputSchema = (tool.inputSchema ?? { type: 'object' }) as Json;
  return canonicalJson(entry);
}

/** What `tool` costs in context: see {@link ToolContextCost}. */
export function toolContextCost(tool: ToolInput): ToolContextCost {
  const text = toolContextText(tool);
  const output = tool.outputSchema ? canonicalJson(tool.outputSchema as Json) : '';
  return { tokens: countTokens(text), outputSchemaTokens: countTokens(output), chars: text.length };
}

/** The sum of {@link toolContextCost} over a server's tools. */
export function serverContextCost(tools: readonly ToolInput[]): ServerContextCost {
  return sumCosts(tools.map(toolContextCost));
}

function sumCosts(costs: readonly ToolContextCost[]): ServerContextCost {
  const sum: ServerContextCost = {
    toolCount: costs.length,
    tokens: 0,
    outputSchemaTokens: 0,
    chars: 0,
  };
  for (const c of costs) {
    sum.tokens += c.tokens;
    sum.outputSchemaTokens += c.outputSchemaTokens;
    sum.chars += c.chars;
  }
  return sum;
}

/** Every tool's context cost (in input order) and the server's sum. */
export function contextReport(tools: readonly ToolInput[]): ContextReport {
  const named = tools.map((t) => ({ name: t.name, ...toolContextCost(t) }));
  return { encoding: TOKEN_ENCODING, tools: named, server: sumCosts(named) };
}

/** One tool's change in context cost between two tool lists (`null`: absent on that side). */
export interface ContextCostChange {
  name: string;
  before: ToolContextCost | null;
  after: ToolContextCost | null;
  /** `after.tokens − before.tokens`, counting an absent side as 0. */
  delta: number;
  /** The same for the output schema's tokens. */
  outputSchemaDelta: number;
}

/** The change in context cost between two tool lists, per tool and for the server. */
export interface ContextCostDiff {
  encoding: string;
  /** Every tool on either side, sorted by name. */
  tools: ContextCostChange[];
  before: ServerContextCost;
  after: ServerContextCost;
  delta: number;
  outputSchemaDelta: number;
}

/** Compares the context cost of two tool lists (e.g. two snapshots), tool by tool. */
export function diffContextCost(
  before: readonly ToolInput[],
  after: readonly ToolInput[],
): ContextCostDiff {
  const a = new Map(before.map((t) => [t.name, toolContextCost(t)]));
  const b = new Map(after.map((t) => [t.name, toolContextCost(t)]));
  const names = [...new Set([...a.keys(), ...b.keys()])].sort();
  const tools = names.map((name): ContextCostChange => {
    const x = a.get(name) ?? null;
    const y = b.get(name) ?? null;
    return {
      name,
      before: x,
      after: y,
      delta: (y?.tokens ?? 0) - (x?.tokens ?? 0),
      outputSchemaDelta: (y?.outputSchemaTokens ?? 0) - (x?.outputSchemaTokens ?? 0),
    };
  });
  const sa = sumCosts([...a.values()]);
  const sb = sumCosts([...b.values()]);
  return {
    encoding: TOKEN_ENCODING,
    tools,
    before: sa,
    after: sb,
    delta: sb.tokens - sa.tokens,
    outputSchemaDelta: sb.outputSchemaTokens - sa.outputSchemaTokens,
  };
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0';
}

function side(c: ToolContextCost | null): string {
  return c === null ? '—' : String(c.tokens);
}

/** The context-cost change as text lines (tools whose cost moved, then the total). */
export function renderContextCostDiff(diff: ContextCostDiff, markdown = false): string {
  const moved = diff.tools.filter((t) => t.delta !== 0 || t.outputSchemaDelta !== 0);
  const out: string[] = [];
  const head = `Context cost (${diff.encoding} tokens): ${diff.before.tokens} -> ${diff.after.tokens} (${signed(diff.delta)}); output schemas ${diff.before.outputSchemaTokens} -> ${diff.after.outputSchemaTokens} (${signed(diff.outputSchemaDelta)})`;
  if (markdown) {
    out.push(`### ${head}`, '');
    if (moved.length) {
      out.push('| Tool | Tokens before | Tokens after | Change | Output schema change |');
      out.push('|---|---:|---:|---:|---:|');
      for (const t of moved)
        out.push(
          `| \`${t.name}\` | ${side(t.before)} | ${side(t.after)} | ${signed(t.delta)} | ${signed(t.outputSchemaDelta)} |`,
        );
    } else out.push('No tool changed its context cost.');
  } else {
    out.push(head);
    const width = Math.max(4, ...moved.map((t) => t.name.length));
    for (const t of moved)
      out.push(
        `  ${t.name.padEnd(width)}  ${side(t.before).padStart(6)} -> ${side(t.after).padStart(6)}  ${signed(t.delta).padStart(6)}${t.outputSchemaDelta ? `  (output schema ${signed(t.outputSchemaDelta)})` : ''}`,
      );
    if (!moved.length) out.push('  no tool changed its context cost');
  }
  return `${out.join('\n')}\n`;
}
