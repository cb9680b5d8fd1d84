import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineTools } from '../package.js';
import { serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

let t: TempDir;
let s: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  t = tempDir();
  t.write('.gitignore', 'dist/\n*.tmp\n');
  t.write('README.md', '# readme\n');
  t.write('src/index.ts', 'export {};\n');
  t.write('src/lib/util.ts', 'export const x = 1;\n');
  t.write('src/lib/.gitignore', 'generated.ts\n');
  t.write('src/lib/generated.ts', '// generated\n');
  t.write('dist/index.js', '');
  t.write('scratch.tmp', '');
  t.write('.git/HEAD', 'ref: refs/heads/main\n');
  t.symlink(t.abs('README.md'), 'readme-link.md');
  t.symlink(t.abs('src'), 'src-link');
  t.mkfifo('pipe');
  for (let i = 0; i < 25; i++) t.write(`many/f${String(i).padStart(2, '0')}.txt`, 'x'.repeat(i));
  fs.utimesSync(
    t.abs('README.md'),
    new Date('2024-01-02T03:04:05Z'),
    new Date('2024-01-02T03:04:05Z'),
  );
  s = await serve(lineTools({ workspaces: [{ id: 'repo', path: t.dir }] }));
});
afterAll(async () => {
  await s.close();
  t.cleanup();
});

const list = (args: Record<string, unknown>) =>
  s.call('list_files', { workspace: 'repo', ...args });

describe('list_files over MCP', () => {
  it('advertises its parameters', async () => {
    const { tools } = await s.client.listTools();
    const tool = tools.find((x) => x.name === 'list_files')!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(
      [
        'cursor',
        'exclude',
        'include',
        'include_directories',
        'limit',
        'max_depth',
        'path',
        'respect_gitignore',
        'workspace',
      ].sort(),
    );
    expect(tool.description).toContain('read_text');
    expect(tool.description).toContain('search_text');
  });

  it('lists files sorted, with size and mtime, honouring .gitignore, skipping links, FIFOs and .git', async () => {
    const r = await list({ exclude: ['many'] });
    expect(r.isError).toBe(false);
    expect(r.data.entries.map((e: { path: string }) => e.path)).toEqual([
      '.gitignore',
      'README.md',
      'src/index.ts',
      'src/lib/.gitignore',
      'src/lib/util.ts',
    ]);
    const readme = r.data.entries[1];
    expect(readme).toEqual({
      path: 'README.md',
      type: 'file',
      size: 9,
      modified: '2024-01-02T03:04:05.000Z',
    });
    expect(r.data).toMatchObject({ has_more: false, next_cursor: null, scan_limited: false });
  });

  it('can ignore .gitignore, include folders, limit depth and filter with globs', async () => {
    const all = await list({ respect_gitignore: false, exclude: ['many'] });
    const paths = all.data.entries.map((e: { path: string }) => e.path);
    expect(paths).toContain('dist/index.js');
    expect(paths).toContain('src/lib/generated.ts');
    expect(paths).not.toContain('.git/HEAD');
    const dirs = await list({ include_directories: true, max_depth: 1 });
    expect(
      dirs.data.entries.map((e: { path: string; type: string }) => `${e.type}:${e.path}`),
    ).toEqual(['file:.gitignore', 'file:README.md', 'directory:many', 'directory:src']);
    expect(dirs.data.entries[2].size).toBeNull();
    const ts = await list({ include: ['*.ts'], path: 'src' });
    expect(ts.data.path).toBe('src');
    expect(ts.data.entries.map((e: { path: string }) => e.path)).toEqual([
      'src/index.ts',
      'src/lib/util.ts',
    ]);
    const slash = await list({ include: ['src/lib/*'] });
    expect(slash.data.entries.map((e: { path: string }) => e.path)).toEqual([
      'src/lib/.gitignore',
      'src/lib/util.ts',
    ]);
  });

  it('pages with an opaque cursor that refuses tampering and other parameters', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await list({ path: 'many', limit: 10, ...(cursor ? { cursor } : {}) });
      expect(r.isError).toBe(false);
      seen.push(...r.data.entries.map((e: { path: string }) => e.path));
      cursor = r.data.next_cursor ?? undefined;
      expect(r.data.has_more).toBe(cursor !== undefined);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(
      Array.from({ length: 25 }, (_, i) => `many/f${String(i).padStart(2, '0')}.txt`),
    );

    const first = await list({ path: 'many', limit: 10 });
    const next = first.data.next_cursor as string;
    const bigger = await list({ path: 'many', limit: 20, cursor: next });
    expect(bigger.data.entries[0].path).toBe('many/f10.txt');
    const tampered = `${next.slice(0, -3)}${next.endsWith('A') ? 'B' : 'A'}xx`;
    const bad = await list({ path: 'many', cursor: tampered });
    expect(bad.isError).toBe(true);
    expect(bad.data.code).toBe('INVALID_CURSOR');
    const other = await list({ path: 'src', cursor: next });
    expect(other.data.code).toBe('CURSOR_MISMATCH');
  });

  it('refuses paths that are not listable folders with stable codes', async () => {
    const cases: Array<[string, string]> = [
      ['README.md', 'PATH_NOT_DIRECTORY'],
      ['src-link', 'PATH_SYMLINK'],
      ['pipe', 'PATH_NOT_REGULAR'],
      ['..', 'PATH_ESCAPES_ROOT'],
      ['/tmp', 'PATH_ABSOLUTE_OUTSIDE_ROOT'],
      ['nope', 'PATH_NOT_FOUND'],
    ];
    for (const [path, code] of cases) {
      const r = await list({ path });
      expect(r.isError, path).toBe(true);
      expect(r.data.code, path).toBe(code);
    }
    const glob = await list({ include: ['['] });
    expect(glob.isError).toBe(false); // an unclosed bracket is literal
    const limit = await list({ limit: 1001 });
    expect(limit.isError).toBe(true);
    expect(limit.text).toMatch(/limit/);
  });

  it('stops at the entry-visit budget and continues from the cursor', async () => {
    const small = await serve(
      lineTools({ workspaces: [{ id: 'repo', path: t.dir }], limits: { maxScanEntries: 5 } }),
    );
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      let calls = 0;
      do {
        const r = await small.call('list_files', {
          workspace: 'repo',
          path: 'many',
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...r.data.entries.map((e: { path: string }) => e.path));
        if (r.data.next_cursor) expect(r.data.scan_limited).toBe(true);
        cursor = r.data.next_cursor ?? undefined;
        calls++;
      } while (cursor && calls < 20);
      expect(seen).toHaveLength(25);
      expect(new Set(seen).size).toBe(25);
    } finally {
      await small.close();
    }
  });
});
