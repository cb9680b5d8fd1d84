import { afterEach, describe, expect, it } from 'vitest';
import { wikiTools } from '../index.js';
import { connectWiki, exampleCopy, removeDir, tempDir, writeFiles } from '../test-helpers/wiki.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

describe('list_wikis', () => {
  it('lists every wiki with its page count and root files', async () => {
    const bees = exampleCopy();
    const bare = tempDir();
    dirs.push(bees, bare);
    writeFiles(bare, { 'notes/one.md': '# One\n', 'AGENTS.md': 'rules', '.git/x.md': 'hidden' });
    const { call, close } = await connectWiki({
      wikis: [
        { id: 'bees', path: bees, title: 'Beekeeping' },
        { id: 'bare', path: bare, schemaFile: 'AGENTS.md' },
      ],
    });
    const { data } = await call('list_wikis', {});
    expect(data.wikis).toEqual([
      {
        id: 'bees',
        title: 'Beekeeping',
        page_count: 10,
        schema_file: 'SCHEMA.md',
        root_files: { index: true, log: true, schema: true },
        last_recovery: null,
      },
      {
        id: 'bare',
        title: 'bare',
        page_count: 2,
        schema_file: 'AGENTS.md',
        root_files: { index: false, log: false, schema: true },
        last_recovery: null,
      },
    ]);
    await close();
  });

  it('refuses bad options when the tools are created', () => {
    const dir = tempDir();
    dirs.push(dir);
    const expectCode = (fn: () => unknown, code: string) =>
      expect(fn).toThrow(expect.objectContaining({ code }));
    expectCode(() => wikiTools({ wikis: [{ id: 'x', path: `${dir}/missing` }] }), 'ROOT_MISSING');
    expectCode(() => wikiTools({ wikis: [] }), 'INVALID_OPTIONS');
    expectCode(
      () =>
        wikiTools({
          wikis: [
            { id: 'x', path: dir },
            { id: 'x', path: dir },
          ],
        }),
      'INVALID_OPTIONS',
    );
    expectCode(() => wikiTools({ wikis: [{ id: 'no spaces', path: dir }] }), 'INVALID_OPTIONS');
    expectCode(
      () => wikiTools({ wikis: [{ id: 'x', path: dir }], maxPageBytes: 0 }),
      'INVALID_OPTIONS',
    );
    expectCode(
      () => wikiTools({ wikis: [{ id: 'x', path: dir }], allowedExtensions: ['md/x'] }),
      'INVALID_OPTIONS',
    );
    expectCode(
      () => wikiTools({ wikis: [{ id: 'x', path: dir, schemaFile: '.hidden.md' }] }),
      'INVALID_OPTIONS',
    );
    expectCode(
      () => wikiTools({ wikis: [{ id: 'x', path: dir, schemaFile: '../up.md' }] }),
      'PATH_ESCAPES_ROOT',
    );
  });

  it('does not create anything in a wiki that is only read', async () => {
    const dir = tempDir();
    dirs.push(dir);
    writeFiles(dir, { 'a.md': '# A\n' });
    const { call, close } = await connectWiki({ wikis: [{ id: 'w', path: dir }] });
    await call('list_wikis', {});
    await call('read_page', { wiki: 'w', path: 'a.md' });
    await call('search_wiki', { wiki: 'w', query: 'a' });
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir)).toEqual(['a.md']);
    await close();
  });
});
