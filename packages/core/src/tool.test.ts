import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from './errors.js';
import { connectTools, errorOf } from './testing.js';
import {
  type AnyToolDefinition,
  adaptTool,
  defineTool,
  invokeTool,
  registerTools,
  resolveToolNames,
} from './tool.js';

const annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Returns the text it is given, repeated.',
  inputSchema: z.object({
    text: z.string().min(1).describe('Text to echo.'),
    times: z.number().int().min(1).max(3).default(1).describe('Repetitions, 1 to 3 (default 1).'),
  }),
  outputSchema: z.object({ text: z.string().describe('The echoed text.') }),
  annotations,
  handler: ({ text, times }) => {
    if (text === 'miss') {
      throw new ToolError('UNKNOWN_TEXT', 'no such text', {
        suggestions: ['hit'],
        details: { x: 1 },
      });
    }
    if (text === 'boom') throw new Error('secret internal detail at /srv/app.js:12');
    if (text === 'bad-output') return { text: 42 as unknown as string };
    return { text: text.repeat(times) };
  },
});

const slow = defineTool({
  name: 'count',
  title: 'Count',
  description: 'Counts to n, reporting progress.',
  inputSchema: z.object({ n: z.number().int().min(1).max(10).describe('How far to count.') }),
  outputSchema: z.object({ done: z.number().describe('The last number counted.') }),
  annotations: { ...annotations, readOnlyHint: false },
  handler: async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) await ctx.progress(i, n, `at ${i}`);
    return { done: n };
  },
});

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function connect(tools: AnyToolDefinition[], options = {}) {
  const errors: string[] = [];
  const c = await connectTools(tools, {
    ...options,
    onUnexpectedError: (e) => errors.push(String(e)),
  });
  close = c.close;
  return { ...c, errors };
}

describe('registerTools through the SDK client', () => {
  it('lists tools with schemas and all four annotations', async () => {
    const { client } = await connect([echo]);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const t = tools[0]!;
    expect(t.name).toBe('echo');
    expect(t.description).toBe(echo.description);
    expect(t.inputSchema.properties).toHaveProperty('text');
    expect(t.inputSchema.required).toEqual(['text']);
    expect(t.outputSchema?.properties).toHaveProperty('text');
    expect(t.annotations).toMatchObject(annotations);
  });

  it('lists schemas without noise: no $schema, no safe-integer bounds, the title once', async () => {
    const page = defineTool({
      name: 'page',
      title: 'Echo',
      description: 'Returns a page.',
      annotations,
      handler: () => ({ next_offset: null }),
      inputSchema: z.object({
        offset: z.number().int().min(0).optional().describe('Where to start.'),
        limit: z.number().int().min(1).max(50).default(10).describe('Items per page.'),
        shift: z.number().int().describe('Any whole number.'),
        items: z.array(z.object({ at: z.number().int().describe('At.') })).describe('Items.'),
      }),
      outputSchema: z.object({ next_offset: z.number().int().nullable().describe('Next.') }),
    });
    const { client } = await connect([page]);
    const [t] = (await client.listTools()).tools;
    const json = JSON.stringify(t);
    expect(json).not.toContain('$schema');
    expect(json).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const props = t!.inputSchema.properties as Record<string, Record<string, unknown>>;
    // real bounds, defaults and descriptions stay
    expect(props.offset).toEqual({ type: 'integer', minimum: 0, description: 'Where to start.' });
    expect(props.limit).toMatchObject({ minimum: 1, maximum: 50, default: 10 });
    expect(props.shift).toEqual({ type: 'integer', description: 'Any whole number.' });
    expect(t!.annotations).toEqual(annotations);
    expect(t!.title).toBe('Echo');
    // validation is unchanged
    const r = await client.callTool({ name: 'page', arguments: { text: 'a', limit: 51 } });
    expect(r.isError).toBe(true);
  });

  it('returns structured content plus the same JSON as text', async () => {
    const { client } = await connect([echo]);
    const r = await client.callTool({ name: 'echo', arguments: { text: 'ab', times: 2 } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ text: 'abab' });
    const content = r.content as Array<{ type: string; text: string }>;
    expect(content[0]!.text).toBe('{"text":"abab"}');
  });

  it('applies schema defaults', async () => {
    const { client } = await connect([echo]);
    const r = await client.callTool({ name: 'echo', arguments: { text: 'ab' } });
    expect(r.structuredContent).toEqual({ text: 'ab' });
  });

  it('turns a ToolError into an error result with code and suggestions', async () => {
    const { client, errors } = await connect([echo]);
    // listTools first: the client then knows the output schema and checks results against it
    await client.listTools();
    const r = await client.callTool({ name: 'echo', arguments: { text: 'miss' } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(errorOf(r)).toEqual({
      error: 'no such text',
      code: 'UNKNOWN_TEXT',
      suggestions: ['hit'],
      details: { x: 1 },
    });
    expect(errors).toEqual([]);
  });

  it('hides unexpected exceptions, reports them, and keeps serving', async () => {
    const { client, errors } = await connect([echo]);
    const r = await client.callTool({ name: 'echo', arguments: { text: 'boom' } });
    expect(r.isError).toBe(true);
    expect(errorOf(r)).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(JSON.stringify(r)).not.toContain('/srv/app.js');
    expect(errors[0]).toContain('secret internal detail');
    const again = await client.callTool({ name: 'echo', arguments: { text: 'ok' } });
    expect(again.structuredContent).toEqual({ text: 'ok' });
  });

  it('reports an output that breaks its own schema as an internal error', async () => {
    const { client, errors } = await connect([echo]);
    const r = await client.callTool({ name: 'echo', arguments: { text: 'bad-output' } });
    expect(r.isError).toBe(true);
    expect(errorOf(r)).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(errors[0]).toContain('does not match its schema');
  });

  it('rejects bad input with a message naming the field', async () => {
    const { client } = await connect([echo]);
    const r = await client.callTool({ name: 'echo', arguments: { text: 'x', times: 9 } });
    expect(r.isError).toBe(true);
    const text = (r.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('times');
    expect(errorOf(r)?.code).toBe('INVALID_INPUT');
    const missing = await client.callTool({ name: 'echo', arguments: {} });
    expect(missing.isError).toBe(true);
    expect((missing.content as Array<{ text: string }>)[0]!.text).toContain('text');
  });

  it('sends progress notifications only when the client asks for them', async () => {
    const { client } = await connect([slow]);
    const seen: number[] = [];
    const r = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(r.structuredContent).toEqual({ done: 3 });
    expect(seen).toEqual([1, 2, 3]);
    const quiet = await client.callTool({ name: 'count', arguments: { n: 2 } });
    expect(quiet.structuredContent).toEqual({ done: 2 });
  });

  it('applies renames, a prefix and replacement descriptions', async () => {
    const { client } = await connect([echo, slow], {
      rename: { echo: 'say' },
      prefix: 'x_',
      descriptions: { count: 'Cuenta hasta n.' },
      titles: { count: 'Contar' },
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['x_count', 'x_say']);
    const count = tools.find((t) => t.name === 'x_count')!;
    expect(count.description).toBe('Cuenta hasta n.');
    expect(count.title).toBe('Contar');
    const r = await client.callTool({ name: 'x_say', arguments: { text: 'hi' } });
    expect(r.structuredContent).toEqual({ text: 'hi' });
  });
});

describe('name resolution', () => {
  it('refuses collisions after renames, unknown renames and invalid names', () => {
    expect(() => resolveToolNames([echo, slow], { rename: { count: 'echo' } })).toThrow(
      /used twice/,
    );
    expect(() => resolveToolNames([echo], { rename: { nope: 'x' } })).toThrow(
      /unknown tool "nope"/,
    );
    expect(() => resolveToolNames([echo], { prefix: 'bad prefix ' })).toThrow(/invalid/);
  });

  it('registers nothing when one name collides with a tool already on the server', () => {
    const server = new McpServer({ name: 't', version: '0' });
    registerTools(server, [echo]);
    expect(() => registerTools(server, [slow, echo])).toThrow(/already registered/);
    expect(() => registerTools(server, [slow])).not.toThrow();
  });

  it('registers nothing when a name collides with a tool that other code put on the server', () => {
    const server = new McpServer({ name: 't', version: '0' });
    server.registerTool('echo', { description: 'Registered without Lectern.' }, async () => ({
      content: [{ type: 'text' as const, text: 'theirs' }],
    }));
    expect(() => registerTools(server, [slow, echo])).toThrow(
      /could not register tool "echo": .*already registered/,
    );
    // `count` came first in the refused set and was taken back: it registers cleanly now.
    expect(registerTools(server, [slow])).toEqual(['count']);
    expect(() => registerTools(server, [slow])).toThrow(/"count" is already registered/);
  });

  it('uses only the public API of the server it is given', () => {
    // A server whose underscored (private) members throw when read from outside: another copy
    // of the SDK may keep its tools elsewhere, so registration must not depend on them.
    const real = new McpServer({ name: 't', version: '0' }, { capabilities: { tools: {} } });
    const guarded = new Proxy(real, {
      get(target, key) {
        if (typeof key === 'string' && key.startsWith('_'))
          throw new Error(`private member ${key} read from outside the SDK`);
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    expect(registerTools(guarded, [echo])).toEqual(['echo']);
    expect(() => registerTools(guarded, [echo])).toThrow(/already registered/);
    expect(registerTools(guarded, [slow], { prefix: 'x_' })).toEqual(['x_count']);
  });
});

describe('adaptTool', () => {
  const adapted = adaptTool(echo, {
    name: 'repetir',
    description: 'Repite un texto.',
    inputSchema: z.object({
      texto: z.string().describe('Texto a repetir.'),
      veces: z.number().int().optional().describe('Repeticiones.'),
    }),
    outputSchema: z.object({ resultado: z.string().describe('El texto repetido.') }),
    mapInput: ({ texto, veces }) => ({ text: texto, times: veces }),
    mapOutput: (out) => ({ resultado: out.text }),
  });

  it('runs the native handler under another surface', async () => {
    expect(await invokeTool(adapted, { texto: 'ja', veces: 3 })).toEqual({ resultado: 'jajaja' });
    expect(await invokeTool(adapted, { texto: 'ja' })).toEqual({ resultado: 'ja' });
    expect(adapted.annotations).toEqual(echo.annotations);
  });

  it('re-validates with the native schema, so native limits hold', async () => {
    await expect(invokeTool(adapted, { texto: 'ja', veces: 7 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('passes native ToolErrors through to the client', async () => {
    const { client } = await connect([adapted]);
    const r = await client.callTool({ name: 'repetir', arguments: { texto: 'miss' } });
    expect(errorOf(r)).toMatchObject({ code: 'UNKNOWN_TEXT', suggestions: ['hit'] });
  });
});
