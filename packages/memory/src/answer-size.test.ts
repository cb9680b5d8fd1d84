import { join } from 'node:path';
import { DEFAULT_OUTPUT_BYTES } from '@lectern/core';
import { connectTools } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryPackage } from './package.js';
import { type TempDir, tempDir } from './test-helpers/fs.js';

// Issue 29: no answer over the 64 KiB default with default arguments, through the real tools and
// the SDK client, and every cut answer says how to go on.
describe('memory answers fit the default output budget', () => {
  let dir: TempDir;
  let set: ReturnType<typeof memoryPackage.tools>;
  let c: Awaited<ReturnType<typeof connectTools>>;
  // one line of 250,000 characters between two short ones
  const LONG = Array.from({ length: 25_000 }, (_, i) => `w${String(i).padStart(7, '0')}z`).join(
    ' ',
  );
  // one note of a single enormous paragraph, the search word at its start and end
  const PARAGRAPH = `needle ${'lorem ipsum dolor sit amet, '.repeat(12_000)}needle`;
  beforeAll(async () => {
    dir = tempDir();
    dir.write('notes/long-line.md', `# Long\n${LONG}\nafter\n`);
    dir.write('notes/paragraph.md', `# Paragraph\n\n${PARAGRAPH}\n`);
    set = memoryPackage.tools({
      roots: [{ id: 'notes', path: join(dir.path, 'notes') }],
      db: join(dir.path, 'index', 'memory.db'),
    });
    c = await connectTools(set.tools);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await set?.close?.();
    dir?.cleanup();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
    const text = (r.content as Array<{ text: string }>)[0]!.text;
    expect(Buffer.byteLength(text), name).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    expect(r.isError, text.slice(0, 500)).toBeFalsy();
    return r.structuredContent as Record<string, unknown>;
  };

  it('memory_read_fragment cuts a 250,000-character line and reads all of it on', async () => {
    expect(LONG.length).toBe(249_999);
    const first = await call('memory_read_fragment', { path: 'notes/long-line.md' });
    // line 1 whole, line 2 alone does not fit: the window stops before it
    expect(first).toMatchObject({ start_line: 1, end_line: 1, has_more: true, next_start_line: 2 });
    let r = await call('memory_read_fragment', { path: 'notes/long-line.md', start_line: 2 });
    expect(r).toMatchObject({ start_line: 2, end_line: 2, has_more: true, next_start_line: 2 });
    let got = '';
    let calls = 0;
    for (;;) {
      calls++;
      const content = r.content as string;
      const m =
        /^2\t([\s\S]*) … \[line 2 cut: characters (\d+) to (\d+) of 249999; continue at next_start_char\]$/.exec(
          content,
        );
      if (r.next_start_char === null) {
        // the last piece: the rest of the line, then line 3
        expect(content.startsWith('2\t')).toBe(true);
        got += content.slice(2).split('\n')[0];
        expect(content.split('\n')[1]).toBe('3\tafter');
        break;
      }
      expect(m, content.slice(-200)).not.toBeNull();
      expect(Number(m![2])).toBe(got.length);
      got += m![1];
      expect(Number(m![3])).toBe(got.length);
      expect(r.next_start_char).toBe(got.length);
      r = await call('memory_read_fragment', {
        path: 'notes/long-line.md',
        start_line: 2,
        start_char: r.next_start_char,
      });
      expect(calls).toBeLessThan(20);
    }
    expect(got).toBe(LONG);
    expect(calls).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('a note of one enormous paragraph: short search snippets, and its fragment cut with a way on', async () => {
    expect(PARAGRAPH.length).toBeGreaterThan(300_000);
    const s = await call('memory_search', { query: 'needle' });
    const results = s.results as Array<{ path: string; snippet: string; start_line: number }>;
    const hit = results.find((h) => h.path === 'notes/paragraph.md');
    expect(hit).toBeDefined();
    expect(hit!.snippet.length).toBeLessThan(1_100);
    const f = await call('memory_read_fragment', {
      path: 'notes/paragraph.md',
      start_line: hit!.start_line,
    });
    expect(f.has_more).toBe(true);
    expect(f.next_start_char === null ? f.next_start_line : f.next_start_char).not.toBeNull();
    expect(String(f.content)).toMatch(/continue at next_start_char\]$|^1\t# Paragraph\n2\t$/);
  }, 120_000);

  it('a start_char past the end of its line is refused, naming the line length', async () => {
    const r = (await c.client.callTool({
      name: 'memory_read_fragment',
      arguments: { path: 'notes/long-line.md', start_line: 3, start_char: 10 },
    })) as CallToolResult;
    expect(r.isError).toBe(true);
    const text = (r.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('INVALID_RANGE');
    expect(text).toContain('start_char');
  });
});

// Issue 29: memoria's leer_fragmento keeps the seed's parameters (archivo, desde, hasta), so it
// cannot read inside a line: a 250,000-character line comes back cut with a Spanish marker that
// says so and where the rest is found, and the read goes on at the next line, never in a loop.
describe('memoria: leer_fragmento of a 250,000-character line', () => {
  let dir: TempDir;
  let set: ReturnType<typeof memoryPackage.tools>;
  let c: Awaited<ReturnType<typeof connectTools>>;
  const LONG = 'palabra '.repeat(31_250).trimEnd();
  beforeAll(async () => {
    dir = tempDir();
    dir.write('notas/larga.md', `# Larga\n${LONG}\ndespués\n`);
    set = memoryPackage.presets.memoria!({
      roots: [{ id: 'notas', path: join(dir.path, 'notas') }],
      db: join(dir.path, 'index', 'memory.db'),
    });
    c = await connectTools(set.tools);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await set?.close?.();
    dir?.cleanup();
  });

  it('cuts the line with a marker and goes on at the next line', async () => {
    const r = (await c.client.callTool({
      name: 'leer_fragmento',
      arguments: { archivo: 'notas/larga.md', desde: 2 },
    })) as CallToolResult;
    const text = (r.content as Array<{ text: string }>)[0]!.text;
    expect(r.isError, text.slice(0, 300)).toBeFalsy();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(DEFAULT_OUTPUT_BYTES);
    const out = r.structuredContent as Record<string, unknown>;
    expect(out).toMatchObject({ start_line: 2, end_line: 2, has_more: true, next_start_line: 3 });
    const content = String(out.content);
    expect(content.startsWith('2\tpalabra palabra')).toBe(true);
    expect(content).toMatch(
      / … \[línea 2 recortada: caracteres 0 a \d+ de 249999; leer_fragmento no devuelve más de esta línea y buscar_memoria encuentra palabras del resto; sigue con desde 3\]$/,
    );
    const next = (await c.client.callTool({
      name: 'leer_fragmento',
      arguments: { archivo: 'notas/larga.md', desde: 3 },
    })) as CallToolResult;
    expect((next.structuredContent as { content: string }).content).toBe('3\tdespués');
  }, 120_000);
});
