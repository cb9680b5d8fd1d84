import { readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectWiki, exampleCopy, removeDir, writeFiles } from '../test-helpers/wiki.js';

let dir: string;
let wiki: Awaited<ReturnType<typeof connectWiki>>;
beforeEach(async () => {
  dir = exampleCopy();
  writeFiles(dir, {
    '.obsidian/workspace.md': 'hidden',
    '.git/HEAD.md': 'hidden',
    'wiki/.lectern-tmp-colony.md.abc123': 'temp',
    'wiki/drafts/untitled.md': 'no heading here\n',
    'wiki/drafts/bad.md': new Uint8Array([0xc3, 0x28]),
    'assets/photo.png': new Uint8Array([1, 2, 3]),
  });
  symlinkSync(join(dir, 'wiki/colony.md'), join(dir, 'wiki/link.md'));
  wiki = await connectWiki({ wikis: [{ id: 'bees', path: dir }] });
});
afterEach(async () => {
  await wiki.close();
  removeDir(dir);
});

const list = (args: Record<string, unknown> = {}) =>
  wiki.call('list_pages', { wiki: 'bees', ...args });

describe('list_pages', () => {
  it('lists pages with titles, kinds and versions; hides hidden, temporary, linked and non-page files', async () => {
    const { data } = await list();
    const paths = data.pages.map((p: { path: string }) => p.path);
    expect(paths).toEqual([
      'SCHEMA.md',
      'index.md',
      'log.md',
      'wiki/colony.md',
      'wiki/drafts/bad.md',
      'wiki/drafts/untitled.md',
      'wiki/forage-calendar.md',
      'wiki/harvest/honey-harvest.md',
      'wiki/hive-inspection.md',
      'wiki/queen-bee.md',
      'wiki/swarming.md',
      'wiki/varroa-mite.md',
    ]);
    const byPath = Object.fromEntries(data.pages.map((p: { path: string }) => [p.path, p]));
    expect(byPath['wiki/colony.md']).toMatchObject({ title: 'Honey bee colony', kind: 'page' });
    expect(byPath['SCHEMA.md']).toMatchObject({
      title: 'Schema: how this wiki is kept',
      kind: 'schema',
    });
    expect(byPath['index.md'].kind).toBe('index');
    expect(byPath['log.md'].kind).toBe('log');
    expect(byPath['wiki/drafts/untitled.md'].title).toBe('untitled');
    expect(byPath['wiki/drafts/bad.md'].problem).toMatch(/not valid UTF-8/);
    expect(byPath['wiki/colony.md'].version).toBe(
      sha256(readFileSync(join(dir, 'wiki/colony.md'))),
    );
    expect(data).toMatchObject({ total: 12, offset: 0, next_offset: null, has_more: false });
  });

  it('filters by folder and glob, and pages through results', async () => {
    const folder = await list({ folder: 'wiki/drafts' });
    expect(folder.data.pages.map((p: { path: string }) => p.path)).toEqual([
      'wiki/drafts/bad.md',
      'wiki/drafts/untitled.md',
    ]);
    const glob = await list({ glob: '*.md' });
    expect(glob.data.total).toBe(3);
    const deep = await list({ glob: 'wiki/**/honey-*.md' });
    expect(deep.data.pages.map((p: { path: string }) => p.path)).toEqual([
      'wiki/harvest/honey-harvest.md',
    ]);
    const first = await list({ limit: 5 });
    expect(first.data).toMatchObject({ total: 12, next_offset: 5, has_more: true });
    const second = await list({ limit: 5, offset: 5 });
    const third = await list({ limit: 5, offset: 10 });
    expect(third.data).toMatchObject({ next_offset: null, has_more: false });
    expect([...first.data.pages, ...second.data.pages, ...third.data.pages]).toHaveLength(12);
  });

  it('sorts newest first and sees changes made outside the server', async () => {
    const past = new Date(Date.now() - 3600_000);
    const future = new Date(Math.floor(Date.now() / 1000) * 1000 + 3600_000);
    for (const p of (await list()).data.pages) utimesSync(join(dir, p.path), past, past);
    writeFileSync(join(dir, 'wiki/swarming.md'), '# Swarming\nrewritten\n');
    utimesSync(join(dir, 'wiki/swarming.md'), future, future);
    const { data } = await list({ sort: 'modified', limit: 1 });
    expect(data.pages[0]).toMatchObject({
      path: 'wiki/swarming.md',
      version: sha256('# Swarming\nrewritten\n'),
      modified: future.toISOString(),
    });
  });

  it('refuses folders that are missing, hidden or outside, and unknown wikis', async () => {
    const missing = await list({ folder: 'wiki/harvets' });
    expect(missing.data.code).toBe('FOLDER_NOT_FOUND');
    expect(missing.data.suggestions).toContain('wiki/harvest');
    expect((await list({ folder: '.obsidian' })).data.code).toBe('PATH_HIDDEN');
    expect((await list({ folder: '../..' })).data.code).toBe('PATH_ESCAPES_ROOT');
    expect((await list({ folder: 'index.md' })).data.code).toBe('FOLDER_NOT_FOUND');
    const unknown = await wiki.call('list_pages', { wiki: 'Bees' });
    expect(unknown.data).toMatchObject({ code: 'UNKNOWN_WIKI', suggestions: ['bees'] });
    const badLimit = await list({ limit: 501 });
    expect(badLimit.isError).toBe(true);
  });
});
