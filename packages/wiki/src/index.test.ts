import { describe, expect, it } from 'vitest';
import { connectWiki, EXAMPLE_WIKI } from './test-helpers/wiki.js';

describe('public API', () => {
  it('exports exactly these names', async () => {
    const api = await import('./index.js');
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_MAX_PAGE_BYTES",
        "LinkResolver",
        "WIKI_TOOL_NAMES",
        "WRITE_BATCH_MAX_TEXT_CHARS",
        "displayText",
        "wikiPackage",
        "wikiPresetTools",
        "wikiTools",
      ]
    `);
  });

  it('serves the seed tool surface with complete annotations and described parameters', async () => {
    const { client, close } = await connectWiki({ wikis: [{ id: 'bees', path: EXAMPLE_WIKI }] });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_wikis',
      'list_pages',
      'search_wiki',
      'read_page',
      'write_batch',
    ]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['list_wikis', 'list_pages', 'search_wiki', 'read_page']) {
      expect(byName[name]!.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
    expect(byName.write_batch!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    const read = byName.read_page!.inputSchema as {
      properties: Record<string, { description?: string; default?: unknown }>;
      required: string[];
    };
    // the seed's five parameters, and start_char to read on inside a cut line (issue 29)
    expect(Object.keys(read.properties).sort()).toEqual([
      'limit',
      'offset',
      'path',
      'raw',
      'start_char',
      'wiki',
    ]);
    expect(read.required.sort()).toEqual(['path', 'wiki']);
    expect(read.properties.raw!.default).toBe(false);
    const out = byName.read_page!.outputSchema as { properties: Record<string, unknown> };
    for (const key of ['content', 'version', 'total_lines', 'start_line', 'end_line', 'has_more']) {
      expect(out.properties).toHaveProperty(key);
    }
    // Every parameter of every tool, nested ones included, carries a description.
    const undescribed: string[] = [];
    const visit = (schema: unknown, at: string) => {
      if (!schema || typeof schema !== 'object') return;
      const s = schema as Record<string, unknown>;
      if (s.properties) {
        for (const [k, v] of Object.entries(
          s.properties as Record<string, Record<string, unknown>>,
        )) {
          if (typeof v.description !== 'string' || v.description.length < 10)
            undescribed.push(`${at}.${k}`);
          visit(v, `${at}.${k}`);
        }
      }
      for (const key of ['items', 'anyOf', 'oneOf', 'allOf']) {
        const child = s[key];
        if (Array.isArray(child)) {
          for (const [i, c] of child.entries()) visit(c, `${at}[${i}]`);
        } else visit(child, at);
      }
    };
    for (const t of tools) visit(t.inputSchema, t.name);
    expect(undescribed).toEqual([]);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(200);
      expect(t.title).toBeTruthy();
    }
    await close();
  });
});
