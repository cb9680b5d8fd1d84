import { join } from 'node:path';
import { connectTools } from '@lectern/core/testing';
import { atlasTools, mdChunkTools } from '@lectern/sections';
import { describe, expect, it } from 'vitest';
import { type Composition, compose, defaultConfig, presetConfig } from './compose.js';
import { PRESET_NAMES, parseConfig } from './config.js';
import { examplesDir } from './examples.js';

/** Descriptions by name, as a client sees them in tools/list. */
async function listed(composition: Composition): Promise<Record<string, string>> {
  const c = await connectTools(composition.tools, composition.registerOptions);
  try {
    const { tools } = await c.client.listTools();
    return Object.fromEntries(tools.map((t) => [t.name, t.description ?? '']));
  } finally {
    await c.close();
    await composition.close();
  }
}

// Both families open with the same words; each tool belongs to one family.
const SEARCH_LEAD = 'Other stores:';
const READ_LEAD = 'Other stores:';

function configOf(value: Record<string, unknown>) {
  const ex = examplesDir();
  const roots: Record<string, unknown> = {
    docs: [{ id: 'docs', path: join(ex, 'docs') }],
    workspaces: [{ id: 'examples', path: ex }],
    wikis: [{ id: 'examples', path: join(ex, 'wiki') }],
  };
  return parseConfig(
    Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v === true ? roots[k] : v])),
    ex,
    'test',
  );
}

describe('cross-package routing in composed servers', () => {
  it('every search and read tool of the full server names its siblings from other packages', async () => {
    const d = await listed(await compose(defaultConfig()));
    const search = ['search_text', 'docs_search', 'search_wiki', 'memory_search'];
    const read = ['read_text', 'docs_read', 'read_page', 'memory_read_fragment'];
    for (const [family, lead] of [
      [search, SEARCH_LEAD],
      [read, READ_LEAD],
    ] as const) {
      for (const name of family) {
        const text = d[name] ?? '';
        expect(text.split(lead).length - 1, `${name}: one routing sentence`).toBe(1);
        const sentence = text.slice(text.indexOf(lead));
        for (const other of family) {
          if (other === name) expect(sentence).not.toContain(other);
          else expect(sentence, `${name} names ${other}`).toContain(`${other} `);
        }
      }
    }
    // search_text, the example, points to all three other stores.
    expect(d.search_text).toContain(
      `${SEARCH_LEAD} docs_search (docs), search_wiki (wiki) or memory_search (notes).`,
    );
    // Tools outside the families are untouched.
    for (const name of ['list_files', 'docs_outline', 'write_batch', 'memory_reindex']) {
      expect(d[name]).not.toContain(SEARCH_LEAD);
      expect(d[name]).not.toContain(READ_LEAD);
    }
  });

  it('names only the siblings actually served, under the names clients see', async () => {
    const d = await listed(await compose(configOf({ docs: true, wikis: true, prefix: 'kb_' })));
    expect(d.kb_docs_search).toContain(`${SEARCH_LEAD} kb_search_wiki (wiki).`);
    expect(d.kb_search_wiki).toContain(`${SEARCH_LEAD} kb_docs_search (docs).`);
    expect(d.kb_read_page).toContain(`${READ_LEAD} kb_docs_read (docs).`);
    for (const text of Object.values(d)) {
      expect(text).not.toMatch(/search_text|memory_search|read_text|memory_read_fragment/);
    }
  });

  it('honours the tools allow-list: a sibling filtered out is not named', async () => {
    const d = await listed(
      await compose(
        configOf({ docs: true, workspaces: true, tools: ['docs_search', 'read_text'] }),
      ),
    );
    expect(Object.keys(d).sort()).toEqual(['docs_search', 'read_text']);
    expect(d.docs_search).not.toContain(SEARCH_LEAD);
    expect(d.read_text).not.toContain(READ_LEAD);
  });

  it.each([['docs'], ['workspaces'], ['wikis']])(
    'a single-package server (%s) gets no routing sentence',
    async (key) => {
      const d = await listed(await compose(configOf({ [key]: true })));
      expect(Object.keys(d).length).toBeGreaterThan(2);
      for (const text of Object.values(d)) {
        expect(text).not.toContain(SEARCH_LEAD);
        expect(text).not.toContain(READ_LEAD);
      }
    },
  );

  it.each(PRESET_NAMES)('preset %s is served exactly as its package defines it', async (p) => {
    const composition = await compose(presetConfig(p));
    const own = new Map(composition.tools.map((t) => [t.name, t.description]));
    const d = await listed(composition);
    for (const [name, text] of Object.entries(d)) {
      expect(text).toBe(own.get(name));
      expect(text).not.toContain(SEARCH_LEAD);
      expect(text).not.toContain(READ_LEAD);
    }
    if (p === 'atlas' || p === 'md-chunk') {
      const pkg = (p === 'atlas' ? atlasTools : mdChunkTools)({
        roots: [{ id: 'docs', path: join(examplesDir(), 'docs') }],
      });
      expect(Object.fromEntries(pkg.map((t) => [t.name, t.description]))).toEqual(d);
    }
  });
});
