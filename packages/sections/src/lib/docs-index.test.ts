import { mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempTree } from '../test-helpers/mcp.js';
import { DocsIndex, type ParseEvent } from './docs-index.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function tree(files: Record<string, string>) {
  const t = tempTree(files);
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('DocsIndex cache', () => {
  it('parses each file once; a second listing and reads do no parsing', async () => {
    const dir = tree({ 'a.md': '# A\n', 'sub/b.md': '# B\n## C\n' });
    const events: ParseEvent[] = [];
    const index = new DocsIndex({
      roots: [{ id: 'd', path: dir }],
      onParse: (e) => events.push(e),
    });
    const first = await index.listDocuments();
    expect(first.docs.map((d) => d.docId)).toEqual(['a', 'sub/b']);
    expect(index.parseCount).toBe(2);
    expect(events.map((e) => [e.path, e.parser])).toEqual([
      ['a.md', 'scanner'],
      ['sub/b.md', 'scanner'],
    ]);
    await index.listDocuments();
    await index.getDocument('sub/b');
    await index.loadPath('a.md');
    expect(index.parseCount).toBe(2);
    expect(events).toHaveLength(2);
  });

  it('reparses a changed file and drops a deleted one', async () => {
    const dir = tree({ 'a.md': '# A\n', 'b.md': '# B\n' });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    await index.listDocuments();
    writeFileSync(join(dir, 'a.md'), '# A changed\n## More\n');
    // make sure mtime moves even on coarse clocks
    utimesSync(join(dir, 'a.md'), new Date(), new Date(Date.now() + 5000));
    rmSync(join(dir, 'b.md'));
    const { docs } = await index.listDocuments();
    expect(docs.map((d) => d.docId)).toEqual(['a']);
    expect(docs[0]!.model.sections.map((s) => s.heading)).toEqual(['A changed', 'More']);
    expect(index.parseCount).toBe(3);
    await expect(index.getDocument('b')).rejects.toMatchObject({ code: 'DOC_NOT_FOUND' });
  });

  it('hashes, and does not parse again, a file touched or rewritten with the same bytes', async () => {
    const text = '# A\n\nalpha\n\n## B\n\nbeta\n';
    const dir = tree({ 'a.md': text });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const one = await index.getDocument('a');
    const path = join(dir, 'a.md');
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const two = await index.getDocument('a');
    expect(index.parseCount).toBe(1);
    expect(two.version).toBe(one.version);
    expect((await two.extract(7, 7)).content).toBe('beta');
    // Saved again through a new file (a new inode), same bytes: still no parse.
    writeFileSync(`${path}.tmp`, text);
    renameSync(`${path}.tmp`, path);
    utimesSync(path, new Date(), new Date(Date.now() + 10_000));
    expect((await (await index.getDocument('a')).extract(3, 3)).content).toBe('alpha');
    expect(index.parseCount).toBe(1);
    // The stat it remembered is the new one: unchanged since, nothing is even read.
    await index.listDocuments();
    expect(index.parseCount).toBe(1);
    writeFileSync(path, text.replace('beta', 'gamma'));
    utimesSync(path, new Date(), new Date(Date.now() + 15_000));
    const three = await index.getDocument('a');
    expect(index.parseCount).toBe(2);
    expect(three.version).not.toBe(one.version);
    expect((await three.extract(7, 7)).content).toBe('gamma');
  });

  it('rereads a file whose content changed at the same size when its mtime moved', async () => {
    const dir = tree({ 'a.md': '# AAA\n' });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const one = await index.getDocument('a');
    writeFileSync(join(dir, 'a.md'), '# BBB\n');
    utimesSync(join(dir, 'a.md'), new Date(), new Date(Date.now() + 5000));
    const two = await index.getDocument('a');
    expect(two.model.sections[0]!.heading).toBe('BBB');
    expect(two.version).not.toBe(one.version);
  });

  it('rereads a file edited in place at the same size with its mtime restored (issue 30 #12)', async () => {
    const dir = tree({ 'a.md': '# AAA\n\nsaffron\n' });
    const file = join(dir, 'a.md');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(file, hourAgo, hourAgo);
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const one = await index.getDocument('a');
    expect(one.model.sections[0]!.heading).toBe('AAA');
    // cp -p, rsync --inplace -t, touch -r: same size, mtime put back; only the ctime moved.
    writeFileSync(file, '# BBB\n\npaprika\n');
    utimesSync(file, hourAgo, hourAgo);
    const two = await index.getDocument('a');
    expect(two.model.sections[0]!.heading).toBe('BBB');
    expect(two.version).not.toBe(one.version);
  });
});

describe('DocsIndex under concurrency and renames', () => {
  it('shares one parse between concurrent requests for the same file', async () => {
    const dir = tree({ 'a.md': '# A\n', 'b.md': '# B\n' });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    await Promise.all([
      index.listDocuments(),
      index.listDocuments(),
      index.getDocument('a'),
      index.loadPath('b.md'),
    ]);
    expect(index.parseCount).toBe(2);
  });

  it('lets a new .md take over a doc_id served from .mdx', async () => {
    const dir = tree({ 'x.mdx': '# from mdx\n' });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    expect((await index.getDocument('x')).model.title).toBe('from mdx');
    writeFileSync(join(dir, 'x.md'), '# from md\n');
    expect((await index.getDocument('x')).model.title).toBe('from md');
    expect((await index.getDocument('x.mdx')).docId).toBe('x.mdx');
  });
});

describe('DocsIndex doc ids and walking', () => {
  it('gives .md the bare id and keeps the extension of a clashing .mdx', async () => {
    const dir = tree({ 'x.md': '# md\n', 'x.mdx': '# mdx\n', 'y.markdown': '# y\n' });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    const { docs } = await index.listDocuments();
    expect(docs.map((d) => [d.docId, d.relPath])).toEqual([
      ['x', 'x.md'],
      ['x.mdx', 'x.mdx'],
      ['y', 'y.markdown'],
    ]);
    expect((await index.getDocument('x.mdx')).model.title).toBe('mdx');
    expect((await index.getDocument('y')).model.title).toBe('y');
  });

  it('prefixes doc ids and paths with the root id when there are several roots', async () => {
    const a = tree({ 'guide.md': '# A\n' });
    const b = tree({ 'guide.md': '# B\n' });
    const index = new DocsIndex({
      roots: [
        { id: 'one', path: a },
        { id: 'two', path: b },
      ],
    });
    const { docs } = await index.listDocuments();
    expect(docs.map((d) => [d.docId, d.displayPath])).toEqual([
      ['one/guide', 'one/guide.md'],
      ['two/guide', 'two/guide.md'],
    ]);
    expect((await index.loadPath('two/guide.md')).model.title).toBe('B');
    await expect(index.getDocument('three/guide')).rejects.toMatchObject({
      code: 'ROOT_NOT_FOUND',
    });
  });

  it('skips hidden folders, node_modules, links, non-Markdown and oversize or binary files', async () => {
    const dir = tree({
      'ok.md': '# ok\n',
      '.git/x.md': '# hidden\n',
      'node_modules/p/readme.md': '# dep\n',
      'notes.txt': '# text\n',
      'big.md': `# big\n${'x'.repeat(300)}\n`,
      'bin.md': '# bin\n\0\n',
    });
    symlinkSync(join(dir, 'ok.md'), join(dir, 'link.md'));
    mkdirSync(join(dir, 'empty'));
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }], maxFileBytes: 200 });
    const { docs, skipped } = await index.listDocuments();
    expect(docs.map((d) => d.docId)).toEqual(['ok']);
    expect(skipped.map((s) => s.path).sort()).toEqual(['big.md', 'bin.md']);
    expect(skipped.find((s) => s.path === 'bin.md')!.reason).toMatch(/NUL|binary/);
    await expect(index.loadPath('link.md')).rejects.toMatchObject({ code: 'PATH_SYMLINK' });
    await expect(index.loadPath('big.md')).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    // a non-Markdown file can still be read by path
    expect((await index.loadPath('notes.txt')).model.title).toBe('text');
  });

  it('refuses paths outside the root', async () => {
    const dir = tree({ 'a.md': '# a\n' });
    const index = new DocsIndex({ roots: [{ id: 'd', path: dir }] });
    await expect(index.loadPath('../a.md')).rejects.toMatchObject({ code: 'PATH_ESCAPES_ROOT' });
    await expect(index.loadPath('/etc/passwd')).rejects.toMatchObject({
      code: 'PATH_ABSOLUTE_OUTSIDE_ROOT',
    });
    expect((await index.loadPath(join(dir, 'a.md'))).docId).toBe('a');
  });

  it('throws at construction for a missing root or bad ids', () => {
    expect(() => new DocsIndex({ roots: [{ id: 'd', path: '/nonexistent/lectern' }] })).toThrow(
      expect.objectContaining({ code: 'ROOT_MISSING' }),
    );
    const dir = tree({ 'a.md': '# a\n' });
    expect(() => new DocsIndex({ roots: [{ id: 'a/b', path: dir }] })).toThrow(
      expect.objectContaining({ code: 'ROOT_ID_INVALID' }),
    );
    expect(
      () =>
        new DocsIndex({
          roots: [
            { id: 'x', path: dir },
            { id: 'x', path: dir },
          ],
        }),
    ).toThrow(expect.objectContaining({ code: 'ROOT_ID_DUPLICATE' }));
    expect(() => new DocsIndex({ roots: [] })).toThrow(
      expect.objectContaining({ code: 'ROOT_EMPTY' }),
    );
  });
});
