import { isToolError } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as api from './index.js';
import { tempDir } from './test-helpers/fixtures.js';

describe('public API', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'DEFAULT_LINE_LIMITS',
      'closeSearchWorkers',
      'harnessTools',
      'lineTools',
      'linesPackage',
      'readLines',
      'resolveLimits',
    ]);
  });

  it('lineTools returns the four native tools in order', () => {
    const t = tempDir();
    try {
      const tools = api.lineTools({ workspaces: [{ id: 'w', path: t.dir }] });
      expect(tools.map((x) => x.name)).toEqual([
        'read_text',
        'list_files',
        'search_text',
        'read_artifact',
      ]);
      for (const tool of tools) {
        expect(tool.annotations).toEqual({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        });
        const sentences = tool.description.split(/(?<=\.)\s+/).length;
        expect(sentences).toBeGreaterThanOrEqual(3);
        expect(sentences).toBeLessThanOrEqual(6);
      }
      const limited = api.lineTools({
        workspaces: [{ id: 'w', path: t.dir }],
        limits: { maxLines: 50, maxTextBytes: 8 * 1024 },
      });
      const json = z.toJSONSchema(limited[0]!.inputSchema) as {
        properties: Record<string, { maximum?: number }>;
      };
      expect(json.properties.line_count?.maximum).toBe(50);
      // The description states the configured budgets, not the schema's own range.
      expect(limited[0]!.description).toContain('within 8 KiB;');
    } finally {
      t.cleanup();
    }
  });

  it('refuses bad options synchronously with ToolError codes', () => {
    const t = tempDir();
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return isToolError(e) ? e.code : 'OTHER';
      }
      return undefined;
    };
    try {
      expect(
        code(() => api.lineTools({ workspaces: [{ id: 'w', path: `${t.dir}/missing` }] })),
      ).toBe('ROOT_MISSING');
      expect(code(() => api.lineTools({ workspaces: [{ id: 'w', path: '' }] }))).toBe('ROOT_EMPTY');
      t.write('file.txt', 'x');
      expect(
        code(() => api.lineTools({ workspaces: [{ id: 'w', path: t.abs('file.txt') }] })),
      ).toBe('ROOT_NOT_DIRECTORY');
      expect(code(() => api.lineTools({ workspaces: [] }))).toBe('WORKSPACES_EMPTY');
      expect(code(() => api.lineTools({ workspaces: [{ id: 'bad id', path: t.dir }] }))).toBe(
        'WORKSPACE_ID_INVALID',
      );
      expect(
        code(() =>
          api.lineTools({
            workspaces: [
              { id: 'w', path: t.dir },
              { id: 'w', path: t.dir },
            ],
          }),
        ),
      ).toBe('WORKSPACE_DUPLICATE');
      expect(
        code(() =>
          api.lineTools({ workspaces: [{ id: 'w', path: t.dir }], limits: { maxLines: 999 } }),
        ),
      ).toBe('LIMIT_INVALID');
      expect(
        code(() => api.harnessTools({ workspaces: [{ id: 'w', path: `${t.dir}/nope` }] })),
      ).toBe('ROOT_MISSING');
    } finally {
      t.cleanup();
    }
  });

  it('readLines works outside MCP', async () => {
    const t = tempDir();
    try {
      t.write('a.txt', 'one\ntwo\n');
      const r = await api.readLines(t.dir, { path: 'a.txt', tail: 1 });
      expect(r.lines).toEqual([{ line: 2, text: 'two' }]);
    } finally {
      t.cleanup();
    }
  });
});
