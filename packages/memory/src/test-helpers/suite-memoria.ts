import { connectTools } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { memoryTools } from '../package.js';
import { memoriaTools } from '../presets/memoria.js';
import { toolsFixture } from './fixture.js';
import { errorOf } from './fs.js';
import type { BackendUnderTest } from './target.js';

/** The memoria preset over MCP: Spanish names, native behaviour, errors spelled in Spanish. */
export function memoriaTests(target: BackendUnderTest): void {
  const fx = toolsFixture(target, {
    sourceId: 'notas',
    files: {
      'cocina/recetas.md':
        '# Recetas\n\n## Café de olla\n\nSe hierve el agua con canela y piloncillo, después se agrega el café.\n',
      'diario.txt': `${Array.from({ length: 300 }, (_, i) => `línea ${i + 1}`).join('\n')}\n`,
    },
    tools: (store) => memoriaTools(store),
  });
  const call = fx.call;

  describe('memoria preset', () => {
    test('exposes the seed names and exactly the Spanish parameter names', async () => {
      const { tools } = await fx.conn.client.listTools();
      const shape = Object.fromEntries(
        tools.map((t) => [
          t.name,
          {
            props: Object.keys(t.inputSchema.properties ?? {}).sort(),
            required: t.inputSchema.required ?? [],
          },
        ]),
      );
      expect(shape).toEqual({
        buscar_memoria: {
          props: ['consulta', 'desplazamiento', 'fuente', 'limite', 'patron_ruta', 'sintaxis_fts'],
          required: ['consulta'],
        },
        leer_fragmento: { props: ['archivo', 'desde', 'hasta'], required: ['archivo'] },
        listar_fuentes: { props: [], required: [] },
        reindexar: { props: ['completo'], required: [] },
      });
      for (const t of tools) {
        // Written in Spanish, naming Spanish siblings only.
        expect(t.description).toMatch(/ (el|la|los|las|de|que) /);
        expect(t.description).not.toMatch(/memory_(search|read_fragment|list_sources|reindex)/);
        for (const [name, prop] of Object.entries(t.inputSchema.properties ?? {})) {
          const d = (prop as { description?: string }).description ?? '';
          expect(d, `${t.name}.${name}`).toMatch(/ (el|la|los|las|de|que|por) /);
        }
      }
      const leer = tools.find((t) => t.name === 'leer_fragmento')!;
      expect(leer.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      const reindexar = tools.find((t) => t.name === 'reindexar')!;
      expect(reindexar.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    });

    test('memoryTools with locale es keeps the native tools and answers errors in Spanish', async () => {
      const tools = memoryTools(fx.store, { locale: 'es' });
      expect(tools.map((t) => t.name)).toEqual([
        'memory_search',
        'memory_read_fragment',
        'memory_list_sources',
        'memory_reindex',
      ]);
      const es = await connectTools(tools);
      try {
        const r = (await es.client.callTool({
          name: 'memory_search',
          arguments: { query: 'cafe', source: 'otra' },
        })) as CallToolResult;
        const e = errorOf(r);
        expect(e.code).toBe('UNKNOWN_SOURCE');
        // Spanish words, the native parameter and tool names.
        expect(e.error).toContain('no existe');
        expect(e.error).toContain('`source`');
        expect(e.error).toContain('memory_list_sources');
      } finally {
        await es.close();
      }
    });

    test('buscar_memoria and leer_fragmento work end to end with native behaviour', async () => {
      const found = await call('buscar_memoria', { consulta: 'cafe canela', limite: 5 });
      expect(found.isError).toBeFalsy();
      const sc = found.structuredContent as {
        match: string;
        results: Array<{
          path: string;
          start_line: number;
          end_line: number;
          heading_path: string;
        }>;
      };
      expect(sc.match).toBe('all');
      expect(sc.results[0]).toMatchObject({
        path: 'notas/cocina/recetas.md',
        heading_path: 'Recetas > Café de olla',
      });
      const c = sc.results[0]!;
      const read = await call('leer_fragmento', {
        archivo: c.path,
        desde: c.start_line,
        hasta: c.end_line,
      });
      expect(read.isError).toBeFalsy();
      expect((read.structuredContent as { content: string }).content).toContain('piloncillo');

      // hasta is the last line, inclusive; the default window is 200 lines.
      const window = (
        await call('leer_fragmento', { archivo: 'notas/diario.txt', desde: 10, hasta: 12 })
      ).structuredContent as { content: string; end_line: number };
      expect(window.content).toBe('10\tlínea 10\n11\tlínea 11\n12\tlínea 12');
      const first = (await call('leer_fragmento', { archivo: 'notas/diario.txt' }))
        .structuredContent as {
        end_line: number;
        next_start_line: number;
      };
      expect(first).toMatchObject({ end_line: 200, next_start_line: 201 });

      const filtered = await call('buscar_memoria', {
        consulta: 'línea',
        fuente: 'notas',
        patron_ruta: '*.txt',
        desplazamiento: 0,
      });
      const hits = (filtered.structuredContent as { results: Array<{ path: string }> }).results;
      expect(hits.length).toBeGreaterThan(0);
      expect(new Set(hits.map((h) => h.path))).toEqual(new Set(['notas/diario.txt']));
      // Raw syntax is the backend's own (FTS5 `a OR b`, tsquery `a | b`).
      const raw = await call('buscar_memoria', { consulta: target.raw.either, sintaxis_fts: true });
      expect((raw.structuredContent as { match: string }).match).toBe('raw');
    });

    test('errors name the Spanish parameters and tools', async () => {
      const big = await call('leer_fragmento', {
        archivo: 'notas/diario.txt',
        desde: 1,
        hasta: 250,
      });
      expect(big.isError).toBe(true);
      const payload = errorOf(big);
      expect(payload.code).toBe('RANGE_TOO_LARGE');
      // In Spanish, pointing at the preset's own parameter.
      expect(payload.error).toMatch(/ líneas /);
      expect(payload.error).toContain('`hasta`');
      expect(payload.error).not.toMatch(/start_line|end_line/);

      const missing = await call('leer_fragmento', { archivo: 'notas/nada.md' });
      expect(errorOf(missing).error).toMatch(/buscar_memoria/);
      expect(errorOf(missing).error).toMatch(/reindexar/);

      const empty = await call('buscar_memoria', { consulta: '()' });
      expect(errorOf(empty)).toMatchObject({ code: 'EMPTY_QUERY' });
      expect(errorOf(empty).error).toContain('`consulta`');

      const badLimit = await call('buscar_memoria', { consulta: 'café', limite: 0 });
      expect(badLimit.isError).toBe(true);
    });

    test('errors carry the Spanish parameter name as data', async () => {
      const big = errorOf(
        await call('leer_fragmento', { archivo: 'notas/diario.txt', desde: 1, hasta: 250 }),
      );
      expect(big.details).toMatchObject({ param: 'hasta', max_lines: 200 });
      const glob = errorOf(await call('buscar_memoria', { consulta: 'café', patron_ruta: ' ' }));
      expect(glob).toMatchObject({ code: 'INVALID_GLOB', details: { param: 'patron_ruta' } });
      expect(glob.error).toContain('`patron_ruta`');
      const source = errorOf(await call('buscar_memoria', { consulta: 'café', fuente: 'notaz' }));
      expect(source).toMatchObject({
        code: 'UNKNOWN_SOURCE',
        details: { param: 'fuente' },
        suggestions: ['notas'],
      });
      const climbs = errorOf(await call('leer_fragmento', { archivo: 'notas/../../etc/passwd' }));
      expect(climbs).toMatchObject({ code: 'PATH_ESCAPES_ROOT', details: { param: 'archivo' } });
      const raw = errorOf(await call('buscar_memoria', { consulta: 'AND(', sintaxis_fts: true }));
      expect(raw).toMatchObject({ code: 'INVALID_QUERY', details: { param: 'consulta' } });
      expect(raw.error).toContain('`sintaxis_fts`');
    });

    test('listar_fuentes and reindexar', async () => {
      const before = (await call('listar_fuentes')).structuredContent as {
        built: boolean;
        sources: Array<{ id: string; pending: { new: number } }>;
      };
      expect(before).toMatchObject({
        built: false,
        sources: [{ id: 'notas', pending: { new: 2 } }],
      });
      const r = await call('reindexar', { completo: true });
      expect(r.structuredContent).toMatchObject({ full: true, added: 2, files: 2 });
      const again = await call('reindexar');
      expect(again.structuredContent).toMatchObject({ full: false, unchanged: 2 });
    });
  });
}
