import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { memoryTools } from '../package.js';
import { toolsFixture } from './fixture.js';
import { errorOf } from './fs.js';
import type { BackendUnderTest } from './target.js';

/** The native memory tools over MCP (SDK client and server over an in-memory transport). */
export function toolTests(target: BackendUnderTest): void {
  const fx = toolsFixture(target, {
    sourceId: 'notes',
    files: {
      'projects/alpha.md':
        '# Project Alpha\n\n## Goals\n\nShip the ingestion pipeline by March.\n\n## Risks\n\nThe vendor API rate limits us to 10 requests per second.\n',
      'log.txt': 'Met with the vendor about rate limits.\n',
    },
    tools: (store) => memoryTools(store),
  });
  const call = fx.call;

  describe('memory tools over MCP', () => {
    test('lists the four tools with full annotations and described parameters', async () => {
      const { tools } = await fx.conn.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'memory_search',
        'memory_read_fragment',
        'memory_list_sources',
        'memory_reindex',
      ]);
      for (const t of tools) {
        expect(t.description!.length).toBeGreaterThan(200);
        expect(t.outputSchema).toBeDefined();
        for (const [name, prop] of Object.entries(t.inputSchema.properties ?? {})) {
          expect((prop as { description?: string }).description, `${t.name}.${name}`).toMatch(
            /\w{3}/,
          );
        }
        // Siblings are named, so an agent knows which tool to use instead.
        const others = tools.filter((o) => o.name !== t.name).map((o) => o.name);
        expect(
          others.some((o) => t.description!.includes(o)),
          t.name,
        ).toBe(true);
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.memory_reindex!.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      for (const n of ['memory_search', 'memory_read_fragment', 'memory_list_sources']) {
        expect(byName[n]!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      }
      expect(Object.keys(byName.memory_search!.inputSchema.properties!).sort()).toEqual([
        'limit',
        'offset',
        'path_glob',
        'query',
        'raw',
        'source',
      ]);
      expect(byName.memory_search!.inputSchema.required).toEqual(['query']);
      expect(Object.keys(byName.memory_read_fragment!.inputSchema.properties!).sort()).toEqual([
        'end_line',
        'path',
        'start_char',
        'start_line',
      ]);
      expect(Object.keys(byName.memory_reindex!.inputSchema.properties!)).toEqual(['full']);
    });

    test('search returns citations that read_fragment accepts unchanged', async () => {
      const found = await call('memory_search', { query: 'rate limits' });
      expect(found.isError).toBeFalsy();
      const sc = found.structuredContent as {
        results: Array<{
          path: string;
          start_line: number;
          end_line: number;
          heading_path: string;
        }>;
      };
      expect(sc.results.map((r) => r.path).sort()).toEqual([
        'notes/log.txt',
        'notes/projects/alpha.md',
      ]);
      // The text block carries the same JSON.
      expect(JSON.parse((found.content[0] as { text: string }).text)).toEqual(sc);
      const cite = sc.results.find((r) => r.path === 'notes/projects/alpha.md')!;
      expect(cite.heading_path).toBe('Project Alpha > Risks');
      const read = await call('memory_read_fragment', {
        path: cite.path,
        start_line: cite.start_line,
        end_line: cite.end_line,
      });
      expect(read.isError).toBeFalsy();
      const frag = read.structuredContent as { content: string; stale: boolean };
      expect(frag.content).toContain('10 requests per second');
      expect(frag.content.split('\n')[0]).toMatch(new RegExp(`^${cite.start_line}\\t## Risks$`));
      expect(frag.stale).toBe(false);
    });

    test('tool errors come back as isError results with code and suggestions', async () => {
      const miss = await call('memory_read_fragment', { path: 'notes/projects/alfa.md' });
      expect(miss.isError).toBe(true);
      expect(errorOf(miss)).toMatchObject({
        code: 'NOT_INDEXED',
        suggestions: ['notes/projects/alpha.md'],
      });
      const tooMany = await call('memory_read_fragment', {
        path: 'notes/log.txt',
        start_line: 1,
        end_line: 500,
      });
      expect(errorOf(tooMany)).toMatchObject({ code: 'RANGE_TOO_LARGE' });
      const raw = await call('memory_search', { query: 'AND(', raw: true });
      expect(errorOf(raw)).toMatchObject({ code: 'INVALID_QUERY' });
      const empty = await call('memory_search', { query: '***' });
      expect(errorOf(empty)).toMatchObject({ code: 'EMPTY_QUERY' });
    });

    test('errors name the native parameters, in the message and as data', async () => {
      const big = errorOf(
        await call('memory_read_fragment', { path: 'notes/log.txt', start_line: 1, end_line: 500 }),
      );
      expect(big.details).toMatchObject({ param: 'end_line', suggested_end_line: 200 });
      expect(big.error).toContain('`start_line` 1 to `end_line` 200');
      const glob = errorOf(await call('memory_search', { query: 'vendor', path_glob: ' ' }));
      expect(glob).toMatchObject({ code: 'INVALID_GLOB', details: { param: 'path_glob' } });
      expect(glob.error).toMatch(/^`path_glob` is empty/);
      const missing = errorOf(await call('memory_read_fragment', { path: 'notes/nothing.md' }));
      expect(missing.details).toMatchObject({ param: 'path' });
      expect(missing.error).toMatch(/memory_search.*memory_reindex/);
      // Called directly, the store speaks its own API's names.
      const direct = await fx.store.search({ query: 'vendor', pathGlob: ' ' }).catch((e) => e);
      expect(direct.message).toMatch(/^`pathGlob` is empty/);
      expect(direct.details).toEqual({ param: 'pathGlob' });
    });

    test('schema limits are enforced before the handler runs', async () => {
      const res = await call('memory_search', { query: 'vendor', limit: 51 });
      expect(res.isError).toBe(true);
      expect(JSON.stringify(res.content)).toMatch(/limit/);
      // Nothing was indexed by the refused call.
      const list = await call('memory_list_sources');
      expect((list.structuredContent as { built: boolean }).built).toBe(false);
    });

    test('list_sources and reindex report counts; reindex sends progress when asked', async () => {
      const before = (await call('memory_list_sources')).structuredContent as {
        sources: Array<{ id: string; pending: { new: number } }>;
      };
      expect(before.sources[0]).toMatchObject({ id: 'notes', pending: { new: 2 } });

      const progress: Array<{ progress: number; total?: number }> = [];
      const res = (await fx.conn.client.callTool(
        { name: 'memory_reindex', arguments: {} },
        undefined,
        {
          onprogress: (p) => progress.push(p),
        },
      )) as CallToolResult;
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent).toMatchObject({ full: false, added: 2, files: 2, errors: [] });
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress[0]).toMatchObject({ progress: 0, total: 2 });
      expect(progress.at(-1)).toMatchObject({ progress: 2, total: 2 });

      writeFileSync(join(fx.dir.path, 'log.txt'), 'Rewritten entirely.\n');
      const again = await call('memory_reindex', { full: false });
      expect(again.structuredContent).toMatchObject({ updated: 1, unchanged: 1 });
      const full = await call('memory_reindex', { full: true });
      expect(full.structuredContent).toMatchObject({ full: true, updated: 2 });
    });

    test('memoryTools refuses an unknown locale', () => {
      expect(() => memoryTools(fx.store, { locale: 'fr' as 'en' })).toThrow(/unknown locale/);
    });
  });
}
