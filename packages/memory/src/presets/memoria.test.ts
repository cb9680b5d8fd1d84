import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { localizedMessage } from '@lectern/core';
import { type ConnectedTools, connectTools } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { postgresBackend } from '../backend/postgres/backend.js';
import type { BackendFactory } from '../backend/types.js';
import { memoryTools } from '../package.js';
import { createMemory } from '../store.js';
import { type TempDir, tempDir } from '../test-helpers/fs.js';
import { postgresForTests, testSchemas } from '../test-helpers/postgres.js';
import type { MemoryStore } from '../types.js';
import { memoriaTools } from './memoria.js';
import { MEMORIA_ERRORS, MEMORIA_NAMES } from './memoria-messages.js';

/** Words that only an English message would have. */
const ENGLISH = /\b(the|is|not|file|must|path|does|exist|only|run|with)\b/;
/** Native parameter names, as an English message quotes them. */
const NATIVE_PARAM = /`(query|source|path_glob|limit|offset|raw|path|start_line|end_line|full)`/;

/** Every error code in the TypeScript or JavaScript files of a folder (tests left out). */
function codesIn(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const name = entry.name;
    if (!entry.isFile() || !name.endsWith(ext) || name.includes('.test.')) continue;
    const text = readFileSync(join(entry.parentPath, name), 'utf8');
    for (const m of text.matchAll(/ToolError\(\s*'([A-Z][A-Z0-9_]+)'/g)) out.push(m[1]!);
  }
  return out;
}

describe('the memoria catalogue', () => {
  test('has a Spanish message for every code memoria tools can raise', () => {
    const coreDist = join(
      dirname(createRequire(import.meta.url).resolve('@lectern/core/package.json')),
      'dist',
    );
    const codes = new Set([
      ...codesIn(join(import.meta.dirname, '..'), '.ts'),
      ...codesIn(coreDist, '.js'),
      'INVALID_INPUT',
      'INTERNAL_ERROR',
    ]);
    expect(codes.size).toBeGreaterThan(30);
    const missing = [...codes].filter((c) => !(c in MEMORIA_ERRORS.messages)).sort();
    expect(missing).toEqual([]);
    for (const code of codes) {
      for (const details of [
        {},
        { param: 'path', value: 'x', path: 'notas/x.md', max_lines: 200 },
      ]) {
        const text = localizedMessage(code, 'leer_fragmento', MEMORIA_ERRORS, details, ['a']);
        expect(text, code).toBeTruthy();
        expect(text, `${code}: ${text}`).not.toMatch(ENGLISH);
        expect(text, `${code}: ${text}`).not.toMatch(NATIVE_PARAM);
      }
    }
  });

  test('names every native parameter and tool in Spanish', () => {
    expect(Object.keys(MEMORIA_NAMES).sort()).toEqual(
      [
        'end_line',
        'full',
        'limit',
        'memory_list_sources',
        'memory_read_fragment',
        'memory_reindex',
        'memory_search',
        'offset',
        'path',
        'path_glob',
        'query',
        'raw',
        'source',
        'start_line',
      ].sort(),
    );
  });
});

/** Where a test's index lives: SQLite by default, or one fresh PostgreSQL schema per test. */
interface Target {
  name: string;
  backend?: () => BackendFactory;
  beforeEach?: () => void;
  afterEach?: () => Promise<void>;
}

const targets: Target[] = [{ name: 'SQLite' }];
const url = postgresForTests('memoria errors on PostgreSQL');
if (url) {
  const schemas = testSchemas(url);
  afterAll(() => schemas.close());
  targets.push({
    name: 'PostgreSQL',
    backend: () => postgresBackend({ url, schema: schemas.schema(), poolSize: 2 }),
    beforeEach: () => schemas.next(),
    afterEach: () => schemas.dropAll(),
  });
}

describe.each(targets)(
  'memoria tools answer errors in Spanish, with the native codes, on $name',
  (target) => {
    let dir: TempDir;
    let store: MemoryStore;
    let es: ConnectedTools;
    let en: ConnectedTools;
    beforeEach(async () => {
      dir = tempDir();
      dir.write(
        'proyectos/alfa.md',
        `# Alfa\n\n${'Una línea sobre copias de seguridad.\n'.repeat(300)}`,
      );
      dir.write('borrar.md', '# Borrar\n\nse borra después de indexar\n');
      dir.write('binario.md', 'texto\u0000binario\n');
      target.beforeEach?.();
      store = createMemory({
        sources: [{ id: 'notas', path: dir.path }],
        ...(target.backend ? { backend: target.backend() } : {}),
      });
      es = await connectTools(memoriaTools(store));
      en = await connectTools(memoryTools(store));
    });
    afterEach(async () => {
      await es.close();
      await en.close();
      await store.close();
      await target.afterEach?.();
      dir.cleanup();
    });

    const errorOf = (r: CallToolResult) => {
      expect(r.isError).toBe(true);
      const text = (r.content as Array<{ text?: string }>)[0]?.text ?? '';
      try {
        return JSON.parse(text) as { error: string; code: string; suggestions?: string[] };
      } catch {
        return { error: text, code: '(schema)' };
      }
    };
    const pair = async (
      spanish: [string, Record<string, unknown>],
      english: [string, Record<string, unknown>],
    ) => {
      const a = errorOf(
        (await es.client.callTool({ name: spanish[0], arguments: spanish[1] })) as CallToolResult,
      );
      const b = errorOf(
        (await en.client.callTool({ name: english[0], arguments: english[1] })) as CallToolResult,
      );
      return { es: a, en: b };
    };

    test.each([
      [
        'UNKNOWN_SOURCE',
        ['buscar_memoria', { consulta: 'copias', fuente: 'otra' }],
        ['memory_search', { query: 'copias', source: 'otra' }],
      ],
      ['EMPTY_QUERY', ['buscar_memoria', { consulta: '!!!' }], ['memory_search', { query: '!!!' }]],
      [
        'INVALID_QUERY',
        ['buscar_memoria', { consulta: 'a AND (', sintaxis_fts: true }],
        ['memory_search', { query: 'a AND (', raw: true }],
      ],
      [
        'INVALID_GLOB',
        ['buscar_memoria', { consulta: 'copias', patron_ruta: '   ' }],
        ['memory_search', { query: 'copias', path_glob: '   ' }],
      ],
      [
        'RANGE_TOO_LARGE',
        ['leer_fragmento', { archivo: 'notas/proyectos/alfa.md', desde: 1, hasta: 500 }],
        ['memory_read_fragment', { path: 'notas/proyectos/alfa.md', start_line: 1, end_line: 500 }],
      ],
      [
        'INVALID_RANGE',
        ['leer_fragmento', { archivo: 'notas/proyectos/alfa.md', desde: 9, hasta: 3 }],
        ['memory_read_fragment', { path: 'notas/proyectos/alfa.md', start_line: 9, end_line: 3 }],
      ],
      [
        'LINE_OUT_OF_RANGE',
        ['leer_fragmento', { archivo: 'notas/proyectos/alfa.md', desde: 9999 }],
        ['memory_read_fragment', { path: 'notas/proyectos/alfa.md', start_line: 9999 }],
      ],
      [
        'NOT_INDEXED',
        ['leer_fragmento', { archivo: 'notas/proyectos/beta.md' }],
        ['memory_read_fragment', { path: 'notas/proyectos/beta.md' }],
      ],
      [
        'UNKNOWN_SOURCE',
        ['leer_fragmento', { archivo: 'otra/alfa.md' }],
        ['memory_read_fragment', { path: 'otra/alfa.md' }],
      ],
      [
        'INVALID_PATH',
        ['leer_fragmento', { archivo: 'notas' }],
        ['memory_read_fragment', { path: 'notas' }],
      ],
      [
        'PATH_ESCAPES_ROOT',
        ['leer_fragmento', { archivo: 'notas/../../etc/passwd' }],
        ['memory_read_fragment', { path: 'notas/../../etc/passwd' }],
      ],
    ] as const)('%s', async (code, spanish, english) => {
      const r = await pair(
        spanish as unknown as [string, Record<string, unknown>],
        english as unknown as [string, Record<string, unknown>],
      );
      expect(r.en.code).toBe(code);
      expect(r.es.code).toBe(code);
      expect(r.es.suggestions).toEqual(r.en.suggestions);
      expect(r.es.error).not.toMatch(ENGLISH);
      expect(r.es.error).not.toMatch(NATIVE_PARAM);
      expect(r.es.error).not.toBe(r.en.error);
    });

    test('FILE_DELETED, and the reasons reindexar gives for files it could not index', async () => {
      const indexed = (await es.client.callTool({
        name: 'reindexar',
        arguments: {},
      })) as CallToolResult;
      const out = indexed.structuredContent as { errors: Array<{ code: string; message: string }> };
      const binary = out.errors.find((e) => e.code === 'BINARY_CONTENT');
      expect(binary?.message).toMatch(/binario/);
      expect(binary?.message).not.toMatch(ENGLISH);
      rmSync(join(dir.path, 'borrar.md'));
      const r = await pair(
        ['leer_fragmento', { archivo: 'notas/borrar.md' }],
        ['memory_read_fragment', { path: 'notas/borrar.md' }],
      );
      expect(r.es.code).toBe('FILE_DELETED');
      expect(r.es.error).toContain('reindexar');
      expect(r.es.error).not.toMatch(ENGLISH);
    });

    test('schema checks of the Spanish parameters speak Spanish', async () => {
      const r = errorOf(
        (await es.client.callTool({
          name: 'leer_fragmento',
          arguments: { archivo: 'notas/proyectos/alfa.md', desde: 0 },
        })) as CallToolResult,
      );
      expect(r.error).toContain('desde');
      expect(r.error).toMatch(/Demasiado pequeño/);
    });
  },
);
