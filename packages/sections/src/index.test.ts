import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names', async () => {
    const api = await import('./index.js');
    expect(Object.keys(api).sort()).toEqual([
      'DEFAULT_MAX_DOC_BYTES',
      'DocsIndex',
      'MARKDOWN_EXTENSIONS',
      'atlasTools',
      'mdChunkTools',
      'sectionTools',
      'sectionToolsFor',
    ]);
  });

  it('sectionTools returns the six native tools', async () => {
    const { sectionTools } = await import('./index.js');
    const tools = sectionTools({
      roots: [{ id: 'docs', path: new URL('../../../examples/docs', import.meta.url).pathname }],
    });
    expect(tools.map((t) => t.name)).toEqual([
      'docs_outline',
      'docs_read',
      'docs_get_section',
      'docs_search',
      'docs_where',
      'docs_chunk',
    ]);
    for (const t of tools) {
      expect(t.annotations).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
  });
});
