import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from './errors.js';
import {
  CORE_MESSAGES_ES,
  type ErrorMessages,
  localizedMessage,
  localizeError,
} from './messages.js';
import { connectTools, errorOf } from './testing.js';
import { adaptTool, defineTool, invokeTool } from './tool.js';

const annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const SPANISH: ErrorMessages = {
  locale: 'es',
  names: { path: 'archivo', read_file: 'leer_archivo' },
  messages: {
    ...CORE_MESSAGES_ES,
    NOT_THERE: (d) =>
      `\`${d.param('path')}\` ${typeof d.details.value === 'string' ? `«${d.details.value}» ` : ''}no existe.`,
    BROKEN: () => {
      throw new Error('a broken catalogue entry');
    },
  },
};

const native = defineTool({
  name: 'read_file',
  title: 'Read a file',
  description: 'Reads a file by path.',
  inputSchema: z.object({ path: z.string().min(1).describe('File path.') }),
  outputSchema: z.object({ text: z.string().describe('The text.') }),
  annotations,
  handler: ({ path }) => {
    if (path === 'missing') {
      throw new ToolError('NOT_THERE', 'path "missing" does not exist', {
        suggestions: ['present'],
        details: { param: 'path', value: 'missing' },
      });
    }
    if (path === 'broken') throw new ToolError('BROKEN', 'broken in English');
    if (path === 'other') throw new ToolError('UNLISTED', 'a code the catalogue lacks');
    if (path === 'crash') throw new Error('internal detail');
    if (path === 'tiny') return { text: 'x'.repeat(100) };
    return { text: `text of ${path}` };
  },
});

const spanish = adaptTool(native, {
  name: 'leer_archivo',
  description: 'Lee un archivo.',
  inputSchema: z.object({ archivo: z.string().min(1).describe('Ruta del archivo.') }),
  outputSchema: native.outputSchema,
  mapInput: (i) => ({ path: i.archivo === 'too-short' ? '' : i.archivo }),
  mapOutput: (o) => o,
  errors: SPANISH,
});

describe('localizeError', () => {
  it('rewrites the message from the code and data, keeping code, suggestions and cause, and spells details.param as the surface does', () => {
    const original = new ToolError('NOT_THERE', 'English', {
      suggestions: ['a'],
      details: { param: 'path', value: 'x.md' },
    });
    const e = localizeError(original, SPANISH, 'leer_archivo') as ToolError;
    expect(e).toBeInstanceOf(ToolError);
    expect(e.toJSON()).toEqual({
      error: '`archivo` «x.md» no existe.',
      code: 'NOT_THERE',
      suggestions: ['a'],
      details: { param: 'archivo', value: 'x.md' },
    });
    expect(e.cause).toBe(original);
  });

  it('leaves other errors, unknown codes and failing entries as they were', () => {
    const plain = new Error('x');
    expect(localizeError(plain, SPANISH, 't')).toBe(plain);
    const unlisted = new ToolError('UNLISTED', 'kept');
    expect(localizeError(unlisted, SPANISH, 't')).toBe(unlisted);
    const broken = new ToolError('BROKEN', 'kept too');
    expect(localizeError(broken, SPANISH, 't')).toBe(broken);
    expect(localizedMessage('NOPE', 't', SPANISH)).toBeUndefined();
  });
});

describe('a tool with errors in another language', () => {
  it('answers every error in that language over MCP, codes unchanged', async () => {
    const c = await connectTools([spanish], { onUnexpectedError: () => {} });
    try {
      const call = async (archivo: string) =>
        errorOf(await c.client.callTool({ name: 'leer_archivo', arguments: { archivo } }));
      expect(await call('missing')).toEqual({
        error: '`archivo` «missing» no existe.',
        code: 'NOT_THERE',
        suggestions: ['present'],
        details: { param: 'archivo', value: 'missing' },
      });
      // An unexpected failure is reported in the surface's language too.
      const crash = await call('crash');
      expect(crash?.code).toBe('INTERNAL_ERROR');
      expect(crash?.error).toContain('leer_archivo falló de forma inesperada');
      expect(crash?.error).not.toContain('internal detail');
      // The native schema refused the mapped input: INVALID_INPUT names the surface's parameter.
      const invalid = await call('too-short');
      expect(invalid).toMatchObject({ code: 'INVALID_INPUT', details: { params: ['archivo'] } });
      expect(invalid?.error).toContain('`archivo`');
      expect(invalid?.error).toMatch(/^entrada no válida para leer_archivo/);
      // A code without an entry keeps its message.
      expect((await call('other'))?.error).toBe('a code the catalogue lacks');
      const ok = await c.client.callTool({ name: 'leer_archivo', arguments: { archivo: 'a' } });
      expect(ok.structuredContent).toEqual({ text: 'text of a' });
    } finally {
      await c.close();
    }
  });

  it('throws the localized error from invokeTool as well', async () => {
    await expect(invokeTool(spanish, { archivo: 'missing' })).rejects.toThrow(
      '`archivo` «missing» no existe.',
    );
  });

  it('keeps the native tool in English', async () => {
    await expect(invokeTool(native, { path: 'missing' })).rejects.toThrow(
      'path "missing" does not exist',
    );
  });
});

describe('CORE_MESSAGES_ES', () => {
  it('has a message for every code core raises, each without English leftovers', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const dir = new URL('./', import.meta.url);
    const codes = new Set<string>(['INVALID_INPUT', 'INTERNAL_ERROR']);
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.ts') || f.endsWith('.test.ts') || f === 'messages.ts') continue;
      const text = readFileSync(new URL(f, dir), 'utf8');
      for (const m of text.matchAll(/ToolError\(\s*'([A-Z][A-Z0-9_]+)'/g)) codes.add(m[1]!);
    }
    const missing = [...codes].filter((c) => !(c in CORE_MESSAGES_ES));
    expect(missing).toEqual([]);
    for (const code of codes) {
      const text = localizedMessage(code, 'herramienta', {
        locale: 'es',
        messages: CORE_MESSAGES_ES,
      });
      expect(text, code).toBeTruthy();
      expect(text, code).not.toMatch(/\b(the|is|not|file|must)\b/);
    }
  });
});
