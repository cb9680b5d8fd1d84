import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { respellError, ToolError } from './errors.js';
import { localizeError } from './messages.js';
import { camelCase, deriveInput, deriveOutput, fieldLimits, snakeCase } from './surface.js';
import { connectTools, errorOf } from './testing.js';
import { adaptTool, defineTool, invokeTool, READ_ONLY } from './tool.js';

/** A native tool in snake_case, with limits, defaults, nullable and nested results. */
const lines = defineTool({
  name: 'read_lines',
  title: 'Read lines',
  description: 'Returns a window of numbered lines.',
  inputSchema: z.object({
    file_path: z.string().min(1).max(50).describe('File to read.'),
    start_line: z.number().int().min(1).optional().describe('First line (default 1).'),
    line_count: z.number().int().min(1).max(5).default(2).describe('Lines, 1 to 5 (default 2).'),
    tail: z.number().int().min(1).max(5).optional().describe('Final lines instead.'),
  }),
  outputSchema: z.object({
    file_path: z.string().describe('The file.'),
    sha256: z.string().describe('Hash.'),
    start_line: z.number().int().describe('First line returned.'),
    next_start_line: z.number().int().nullable().describe('Where to go on, or null.'),
    lines: z
      .array(z.object({ line_no: z.number().int().describe('Number.'), text: z.string() }))
      .describe('The lines.'),
  }),
  annotations: READ_ONLY,
  handler: (input) => {
    if (input.file_path === 'gone') {
      throw new ToolError(
        'FILE_CHANGED',
        (n) => `the file changed; read it again without ${n('expected_sha256')}.`,
        { details: { param: 'file_path', current_sha256: 'abc' } },
      );
    }
    const start = input.tail ? 10 - input.tail : (input.start_line ?? 1);
    const count = input.tail ?? input.line_count;
    return {
      file_path: input.file_path,
      sha256: 'f00',
      start_line: start,
      next_start_line: start + count > 9 ? null : start + count,
      lines: Array.from({ length: count }, (_, i) => ({
        line_no: start + i,
        text: `L${start + i}`,
      })),
    };
  },
});

/** JSON Schema as MCP clients see an input (defaults make a field optional). */
const json = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('case helpers', () => {
  it('turn snake_case into camelCase and back', () => {
    expect(camelCase('next_start_line')).toBe('nextStartLine');
    expect(snakeCase('nextStartLine')).toBe('next_start_line');
    expect(camelCase('sha256')).toBe('sha256');
  });
});

describe('deriveInput', () => {
  it('takes types, limits and defaults from the native schema, with new names and texts', () => {
    const d = deriveInput(lines.inputSchema, {
      case: 'camel',
      fields: { filePath: 'Path of the file.', startLine: true, lineCount: true },
    });
    const s = json(d.schema) as { properties: Record<string, Record<string, unknown>> };
    expect(Object.keys(s.properties)).toEqual(['filePath', 'startLine', 'lineCount']);
    expect(s.properties.filePath).toMatchObject({
      description: 'Path of the file.',
      minLength: 1,
      maxLength: 50,
    });
    expect(s.properties.lineCount).toMatchObject({ default: 2, maximum: 5 });
    expect(s.properties.startLine?.description).toBe('First line (default 1).');
    expect(d.names).toEqual({
      file_path: 'filePath',
      start_line: 'startLine',
      line_count: 'lineCount',
    });
    expect(d.toNative({ filePath: 'a', startLine: 3 })).toEqual({ file_path: 'a', start_line: 3 });
  });

  it('changes requiredness and defaults only when a rule says so', () => {
    const d = deriveInput(lines.inputSchema, {
      fields: {
        file: { from: 'file_path', blankIsAbsent: true, required: false },
        start_line: { required: true },
        line_count: { required: false },
        tail: { default: 3 },
      },
    });
    const s = json(d.schema) as {
      properties: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    expect(s.required).toEqual(['start_line']);
    expect(s.properties.file?.minLength).toBeUndefined();
    expect(s.properties.line_count?.default).toBeUndefined();
    expect(s.properties.tail?.default).toBe(3);
    expect(d.schema.safeParse({ file: '', start_line: 1 }).success).toBe(true);
    expect(d.toNative({ file: '', start_line: 1 })).toEqual({ start_line: 1 });
  });

  it('gives the surface schema messages in its own language', () => {
    const d = deriveInput(
      lines.inputSchema,
      { fields: { archivo: { from: 'file_path' } } },
      z.locales.es().localeError,
    );
    const r = d.schema.safeParse({ archivo: 5 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/se esperaba texto/);
  });

  it('fails at definition time on a field the native tool does not have', () => {
    expect(() => deriveInput(lines.inputSchema, { fields: { nope: true } })).toThrow(/no field/);
  });
});

describe('fieldLimits', () => {
  it('reads the bounds and default a native field declares', () => {
    expect(fieldLimits(lines.inputSchema, 'line_count')).toEqual({ min: 1, max: 5, default: 2 });
    expect(fieldLimits(lines.inputSchema, 'file_path')).toEqual({
      min: 1,
      max: 50,
      default: undefined,
    });
    expect(fieldLimits(lines.outputSchema, 'start_line')).toEqual({
      min: undefined,
      max: undefined,
      default: undefined,
    });
    expect(() => fieldLimits(lines.inputSchema, 'nope')).toThrow(/no field/);
  });
});

describe('deriveOutput', () => {
  it('renames, regroups, converts and drops null as rules say', () => {
    const d = deriveOutput(lines.outputSchema, {
      case: 'camel',
      fields: {
        lines: { fields: { lineNo: 'Line number.', text: true } },
        startLine: true,
        nextStartLine: { nullable: false, describe: 'Where to go on.' },
        reference: {
          from: '.',
          describe: 'Which file.',
          fields: { filePath: true, sha256: { value: (v) => String(v).toUpperCase() } },
        },
        count: {
          schema: z.number().int().describe('Lines returned.'),
          value: (_, o) => (o.lines as unknown[]).length,
        },
      },
    });
    const s = json(d.schema) as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(s.required).toEqual(['lines', 'startLine', 'nextStartLine', 'reference', 'count']);
    expect(s.properties.nextStartLine).toMatchObject({ type: 'integer' });
    expect(s.properties.reference?.description).toBe('Which file.');
    expect(
      d.fromNative({
        file_path: 'a',
        sha256: 'f00',
        start_line: 1,
        next_start_line: 3,
        lines: [{ line_no: 1, text: 'x' }],
      }),
    ).toEqual({
      lines: [{ lineNo: 1, text: 'x' }],
      startLine: 1,
      nextStartLine: 3,
      reference: { filePath: 'a', sha256: 'F00' },
      count: 1,
    });
  });

  it('reaches into arrays by index', () => {
    const d = deriveOutput(lines.outputSchema, {
      fields: { first: { from: 'lines.0.text' } },
    });
    expect(d.fromNative({ lines: [{ line_no: 1, text: 'x' }] })).toEqual({ first: 'x' });
  });
});

describe('adaptTool with a declared surface', () => {
  const adapted = adaptTool(lines, {
    name: 'read_file_lines',
    description: 'Reads lines of a file, camelCase surface.',
    case: 'camel',
    names: { read_lines: 'read_file_lines' },
    input: {
      filePath: 'Path of the file.',
      startLine: true,
      lineCount: true,
      tail: { schema: z.boolean().optional().describe('Read the final lineCount lines.') },
      expectedSha256: { schema: z.string().optional().describe('Sent nowhere: no native field.') },
    },
    output: {
      lines: { fields: { lineNo: true, text: true } },
      hasMore: {
        from: 'next_start_line',
        schema: z.boolean().describe('True when lines follow.'),
        value: (v) => v !== null,
      },
      nextStartLine: true,
    },
    toNative: (native, input) =>
      input.tail ? { ...native, tail: native.line_count ?? 2, line_count: undefined } : native,
  });

  it('runs the native handler with mapped input and shapes the result', async () => {
    expect(await invokeTool(adapted, { filePath: 'a', startLine: 8, lineCount: 2 })).toEqual({
      lines: [
        { lineNo: 8, text: 'L8' },
        { lineNo: 9, text: 'L9' },
      ],
      hasMore: false,
      nextStartLine: null,
    });
    const tail = (await invokeTool(adapted, { filePath: 'a', tail: true, lineCount: 3 })) as {
      lines: Array<{ lineNo: number }>;
    };
    expect(tail.lines.map((l: { lineNo: number }) => l.lineNo)).toEqual([7, 8, 9]);
  });

  it('re-validates with the native schema and names the surface parameter', async () => {
    const tens = adaptTool(lines, {
      name: 'read_tens',
      description: 'Reads lines by tens.',
      case: 'camel',
      input: { filePath: true, lineCount: { value: (v) => (v as number) * 10 } },
    });
    const c = await connectTools([tens]);
    close = c.close;
    const r = await c.client.callTool({
      name: 'read_tens',
      arguments: { filePath: 'a', lineCount: 1 },
    });
    expect(errorOf(r)).toMatchObject({
      code: 'INVALID_INPUT',
      details: { params: ['lineCount'] },
    });
    expect(errorOf(r)?.error).toMatch(/^invalid input for read_tens: lineCount: /);
  });

  it('spells error messages and details in the surface names, without rewriting text', async () => {
    const c = await connectTools([adapted]);
    close = c.close;
    const r = await c.client.callTool({ name: 'read_file_lines', arguments: { filePath: 'gone' } });
    expect(errorOf(r)).toEqual({
      code: 'FILE_CHANGED',
      error: 'the file changed; read it again without expectedSha256.',
      details: { param: 'filePath', currentSha256: 'abc' },
    });
  });

  it('returns JSON text in one field when the surface asks for it, errors included', async () => {
    const asJson = adaptTool(lines, {
      name: 'read_json',
      description: 'Lines as one JSON string.',
      input: { file_path: true },
      output: { file_path: true, next_start_line: true },
      resultAsJson: { key: 'result', describe: 'The JSON text of the answer.' },
    });
    const c = await connectTools([asJson]);
    close = c.close;
    const ok = await c.client.callTool({ name: 'read_json', arguments: { file_path: 'a' } });
    expect(ok.structuredContent).toEqual({ result: '{"file_path":"a","next_start_line":3}' });
    expect((ok.content as Array<{ text: string }>)[0]?.text).toBe(
      '{"file_path":"a","next_start_line":3}',
    );
    const bad = await c.client.callTool({ name: 'read_json', arguments: { file_path: 'gone' } });
    expect(bad.isError).toBe(true);
    const structured = bad.structuredContent as { result: string };
    expect(JSON.parse(structured.result)).toMatchObject({ code: 'FILE_CHANGED' });
  });
});

describe('respellError and localizeError', () => {
  const raised = new ToolError('X', (n) => `use ${n('start_line')} instead`, {
    details: { param: 'start_line', max_lines: 3 },
    suggestions: ['a'],
  });

  it('spell a function message, details.param and detail keys for a surface', () => {
    expect(raised.message).toBe('use start_line instead');
    const e = respellError(raised, (n) => (n === 'start_line' ? 'desde' : n)) as ToolError;
    expect(e.message).toBe('use desde instead');
    expect(e.details).toEqual({ param: 'desde', max_lines: 3 });
    expect(e.suggestions).toEqual(['a']);
    expect(e.cause).toBe(raised);
  });

  it('use the catalogue when it has the code, else the spelled message', () => {
    const errors = {
      locale: 'es',
      names: { start_line: 'desde' },
      messages: { Y: () => 'mensaje' },
    };
    expect((localizeError(raised, errors, 't') as ToolError).message).toBe('use desde instead');
    const y = new ToolError('Y', 'english');
    expect((localizeError(y, errors, 't') as ToolError).message).toBe('mensaje');
    const plain = new ToolError('Z', 'plain');
    expect(localizeError(plain, errors, 't')).toBe(plain);
  });
});
