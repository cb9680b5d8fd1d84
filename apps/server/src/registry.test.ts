import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConnectedTools, connectTools, errorOf } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { compose } from './compose.js';
import { configJsonSchema, parseConfig } from './config.js';
import { limitsOf, PACKAGE_PRESETS, PACKAGES, PRESET_NAMES, REGISTRY } from './registry.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-registry-'));
for (const sub of ['docs', 'ws', 'wiki', 'notes']) mkdirSync(join(dir, sub));
writeFileSync(join(dir, 'docs', 'guide.md'), '# Guide\n\nSome words about the guide.\n');
writeFileSync(
  join(dir, 'ws', 'log.txt'),
  `${Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n')}\n`,
);
writeFileSync(join(dir, 'wiki', 'Home.md'), '# Home\n\nWelcome.\n');
writeFileSync(join(dir, 'notes', 'cafe.md'), '# Café\n\nCanela y piloncillo.\n');
writeFileSync(join(dir, 'a-file'), 'not a folder');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const roots = {
  docs: [{ id: 'docs', path: join(dir, 'docs') }],
  workspaces: [{ id: 'ws', path: join(dir, 'ws') }],
  wikis: [{ id: 'w', path: join(dir, 'wiki') }],
  memory: { sources: [{ id: 'notes', path: join(dir, 'notes') }], db: join(dir, 'db', 'm.db') },
};

async function withTools<T>(
  value: Record<string, unknown>,
  use: (c: ConnectedTools, names: string[]) => Promise<T>,
): Promise<T> {
  const composition = await compose(parseConfig(value, dir));
  const c = await connectTools(composition.tools, composition.registerOptions);
  try {
    return await use(c, composition.names);
  } finally {
    await c.close();
    await composition.close();
  }
}

describe('the registry', () => {
  it('lists each package once, with the presets its code provides', async () => {
    expect(REGISTRY.map((e) => e.name)).toEqual(PACKAGES);
    expect(PRESET_NAMES).toEqual(Object.values(PACKAGE_PRESETS).flat());
    for (const entry of REGISTRY) {
      const pkg = await entry.load();
      expect(pkg.name).toBe(entry.name);
      expect(Object.keys(pkg.presets)).toEqual(entry.presets.map((p) => p.name));
    }
  });

  it('gives each package its own limits from the flat config keys', () => {
    const config = parseConfig(
      { ...roots, limits: { linesMaxLines: 50, linesMaxTextBytes: 4096, wikiMaxPageBytes: 2048 } },
      dir,
    );
    expect(limitsOf('lines', config)).toEqual({ maxLines: 50, maxTextBytes: 4096 });
    expect(limitsOf('wiki', config)).toEqual({ maxPageBytes: 2048 });
    expect(limitsOf('sections', config)).toEqual({});
  });

  it('every limit the config accepts is one its package knows', async () => {
    const keys = (
      configJsonSchema() as {
        properties: { limits: { properties: Record<string, { maximum: number }> } };
      }
    ).properties.limits.properties;
    expect(Object.keys(keys).length).toBeGreaterThan(4);
    for (const [key, { maximum }] of Object.entries(keys)) {
      // A key no package knows would be refused as LIMIT_UNKNOWN, a ConfigError.
      const composition = await compose(parseConfig({ ...roots, limits: { [key]: maximum } }, dir));
      await composition.close();
    }
  });

  it('a lowered limit reaches the tools', async () => {
    await withTools({ ...roots, limits: { linesMaxLines: 5 } }, async (c) => {
      const r = (await c.client.callTool({
        name: 'read_text',
        arguments: { workspace: 'ws', path: 'log.txt' },
      })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(JSON.stringify(r.structuredContent)).toContain('line 5');
      expect(JSON.stringify(r.structuredContent)).not.toContain('line 6\\n');
    });
  });
});

describe('compose', () => {
  it('serves only the packages a config has roots for', async () => {
    const composition = await compose(parseConfig({ docs: roots.docs }, dir));
    try {
      expect(composition.packages).toEqual(['sections']);
      expect(composition.memory).toBeUndefined();
    } finally {
      await composition.close();
    }
  });

  it('locale es keeps the memory tools, errors in Spanish, and warns about the old switch', async () => {
    const composition = await compose(parseConfig({ ...roots, locale: 'es' }, dir));
    try {
      expect(composition.names).toContain('memory_search');
      expect(composition.names).not.toContain('buscar_memoria');
      expect(composition.warnings.join('\n')).toContain('"preset": "memoria"');
      const c = await connectTools(composition.tools, composition.registerOptions);
      try {
        const e = errorOf(
          (await c.client.callTool({
            name: 'memory_search',
            arguments: { query: 'canela', source: 'otra' },
          })) as CallToolResult,
        );
        expect(e?.code).toBe('UNKNOWN_SOURCE');
        expect(e?.error).toContain('no existe');
      } finally {
        await c.close();
      }
    } finally {
      await composition.close();
    }
  });

  it('lists tools before the memory database opens; a bad database fails the calls that need it', async () => {
    const db = join(dir, 'a-file', 'memory.db');
    const composition = await compose(
      parseConfig({ docs: roots.docs, memory: { sources: roots.memory.sources, db } }, dir),
    );
    const c = await connectTools(composition.tools, composition.registerOptions);
    try {
      expect((await c.client.listTools()).tools.map((t) => t.name)).toContain('memory_search');
      const search = (await c.client.callTool({
        name: 'memory_search',
        arguments: { query: 'canela' },
      })) as CallToolResult;
      expect(errorOf(search)?.code).toBe('DB_UNAVAILABLE');
      await expect(composition.start()).rejects.toMatchObject({ code: 'DB_UNAVAILABLE' });
      // The other package is unaffected.
      const outline = (await c.client.callTool({
        name: 'docs_outline',
        arguments: {},
      })) as CallToolResult;
      expect(outline.isError, JSON.stringify(outline.content)).toBeFalsy();
    } finally {
      await c.close();
      await composition.close();
    }
  });

  it('opens the memory database on start, and not before', async () => {
    const db = join(dir, 'start', 'memory.db');
    const composition = await compose(
      parseConfig({ memory: { sources: roots.memory.sources, db } }, dir),
    );
    try {
      expect(existsSync(db)).toBe(false);
      await composition.start();
      expect(existsSync(db)).toBe(true);
    } finally {
      await composition.close();
    }
  });
});
