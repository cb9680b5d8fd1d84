import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isToolError } from '@lectern/core';
import { connectTools } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryPackage } from './package.js';
import { errorOf, type TempDir, tempDir } from './test-helpers/fs.js';

let dir: TempDir;
beforeEach(() => {
  dir = tempDir();
  dir.write('notes/cafe.md', '# Café\n\nCanela y piloncillo en el café de olla.\n');
});
afterEach(() => dir.cleanup());

const options = () => ({
  roots: [{ id: 'notes', path: join(dir.path, 'notes') }],
  db: join(dir.path, 'index', 'memory.db'),
});

describe('memoryPackage', () => {
  it('is named memory and provides the memoria preset', () => {
    expect(memoryPackage.name).toBe('memory');
    expect(Object.keys(memoryPackage.presets)).toEqual(['memoria']);
  });

  it('lists its tools without opening or writing the database; the first call opens it', async () => {
    const set = memoryPackage.tools(options());
    try {
      expect(set.tools.map((t) => t.name)).toEqual([
        'memory_search',
        'memory_read_fragment',
        'memory_list_sources',
        'memory_reindex',
      ]);
      const c = await connectTools(set.tools);
      try {
        expect((await c.client.listTools()).tools).toHaveLength(4);
        expect(existsSync(options().db)).toBe(false);
        const r = (await c.client.callTool({
          name: 'memory_search',
          arguments: { query: 'canela' },
        })) as CallToolResult;
        expect(r.isError).toBeFalsy();
        expect(JSON.stringify(r.structuredContent)).toContain('notes/cafe.md');
        expect(existsSync(options().db)).toBe(true);
      } finally {
        await c.close();
      }
      // start() after the store opened is the same opening: it resolves at once.
      await set.start();
      await set.start();
    } finally {
      await set.close();
      await set.close();
    }
  });

  it('start() reports a database that cannot be opened, and each call reports it too', async () => {
    dir.write('a-file', 'not a folder');
    const set = memoryPackage.tools({ ...options(), db: join(dir.path, 'a-file', 'memory.db') });
    try {
      await expect(set.start()).rejects.toMatchObject({ code: 'DB_UNAVAILABLE' });
      const c = await connectTools(set.tools);
      try {
        const r = (await c.client.callTool({
          name: 'memory_search',
          arguments: { query: 'canela' },
        })) as CallToolResult;
        expect(errorOf(r).code).toBe('DB_UNAVAILABLE');
      } finally {
        await c.close();
      }
    } finally {
      await set.close();
    }
  });

  it('locale es keeps the native tools and answers their errors in Spanish', async () => {
    const set = memoryPackage.tools({ ...options(), locale: 'es' });
    const c = await connectTools(set.tools);
    try {
      expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual([
        'memory_search',
        'memory_read_fragment',
        'memory_list_sources',
        'memory_reindex',
      ]);
      const e = errorOf(
        (await c.client.callTool({
          name: 'memory_search',
          arguments: { query: 'canela', source: 'otra' },
        })) as CallToolResult,
      );
      expect(e.code).toBe('UNKNOWN_SOURCE');
      expect(e.error).toContain('no existe');
      expect(e.error).toContain('`source`');
    } finally {
      await c.close();
      await set.close();
    }
  });

  it('the memoria preset serves the Spanish surface over the same options', async () => {
    const set = memoryPackage.presets.memoria!(options());
    try {
      expect(set.tools.map((t) => t.name)).toEqual([
        'buscar_memoria',
        'leer_fragmento',
        'listar_fuentes',
        'reindexar',
      ]);
    } finally {
      await set.close?.();
    }
  });

  it('refuses an unknown or invalid limit before anything is served', () => {
    const refused = (limits: Record<string, number>) => {
      try {
        memoryPackage.tools({ ...options(), limits });
      } catch (e) {
        return isToolError(e) ? e.code : String(e);
      }
      return 'accepted';
    };
    expect(refused({ maxChunkWord: 100 })).toBe('LIMIT_UNKNOWN');
    expect(refused({ maxFileBytes: 0 })).toBe('LIMIT_INVALID');
    expect(refused({ maxChunkWords: 100 })).toBe('accepted');
  });
});

/**
 * A folder where `@lectern/memory` is installed as a user would have it with its optional
 * native module left out: the built package copied into `node_modules`, and its other
 * dependencies linked beside it. Node's own resolution then fails to find better-sqlite3.
 */
function installWithoutSqlite(root: string): void {
  const pkgDir = fileURLToPath(new URL('..', import.meta.url));
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  const target = join(root, 'node_modules', '@lectern', 'memory');
  mkdirSync(target, { recursive: true });
  cpSync(join(pkgDir, 'package.json'), join(target, 'package.json'));
  cpSync(join(pkgDir, 'dist'), join(target, 'dist'), { recursive: true });
  const deps = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)];
  for (const dep of deps) {
    if (dep.startsWith('@types/')) continue;
    const link = join(root, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(pkgDir, 'node_modules', dep)), link, 'dir');
  }
}

describe('without the native SQLite module', () => {
  it('imports, and asking for the SQLite index throws SQLITE_UNAVAILABLE naming the module', () => {
    const root = join(dir.path, 'consumer');
    installWithoutSqlite(root);
    const script = `
        import { memoryPackage } from '@lectern/memory';
        const out = { imported: true };
        try {
          memoryPackage.tools({ roots: [{ id: 'notes', path: ${JSON.stringify(join(dir.path, 'notes'))} }] });
          out.code = 'none';
        } catch (e) {
          out.code = e.code;
          out.message = e.message;
        }
        console.log(JSON.stringify(out));`;
    // No NODE_PATH: pnpm's script runner sets one that reaches every hoisted package.
    const { NODE_PATH: _, ...env } = process.env;
    const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env,
    });
    const out = JSON.parse(stdout) as { imported: boolean; code: string; message: string };
    expect(out.imported).toBe(true);
    expect(out.code).toBe('SQLITE_UNAVAILABLE');
    expect(out.message).toContain('better-sqlite3');
    expect(out.message).toContain('is not installed');
    // Nothing was written for the failed request.
    expect(existsSync(join(dir.path, 'notes', '.lectern'))).toBe(false);
  }, 60_000);
});
