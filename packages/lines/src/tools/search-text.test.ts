import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineTools } from '../package.js';
import { type Called, serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

let t: TempDir;
let s: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  t = tempDir();
  t.write('.gitignore', 'ignored/\n');
  t.write(
    'src/app.ts',
    'import x from "y";\nconst Needle = 1;\n// needle in a comment\nexport { Needle };\n',
  );
  t.write('src/crlf.txt', 'first\r\nneedle here\r\nlast\r\n');
  t.write('docs/guide.md', '\uFEFFneedle on line one\n\n\u{1F600}needle after emoji\n');
  t.write('ignored/secret.txt', 'needle\n');
  t.write('bin/data.bin', Buffer.from('needle\u0000binary'));
  t.write('bin/latin1.txt', Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xe9, 0x0a]));
  t.write('many/a.txt', 'needle\n'.repeat(30));
  t.write('many/b.txt', 'needle\n'.repeat(30));
  t.symlink(t.abs('src/app.ts'), 'link.ts');
  t.mkfifo('pipe');
  t.write('evil/aaa.txt', `${'a'.repeat(40)}b\n`);
  s = await serve(lineTools({ workspaces: [{ id: 'w', path: t.dir }] }));
});
afterAll(async () => {
  await s.close();
  t.cleanup();
});

const search = (args: Record<string, unknown>) =>
  s.call('search_text', { workspace: 'w', ...args });
const where = (r: Called): string[] =>
  r.data.matches.map((m: { path: string; line: number }) => `${m.path}:${m.line}`);

describe('search_text over MCP', () => {
  it('advertises its parameters and names its siblings', async () => {
    const { tools } = await s.client.listTools();
    const tool = tools.find((x) => x.name === 'search_text')!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(
      [
        'case_sensitive',
        'context_lines',
        'cursor',
        'exclude',
        'include',
        'max_matches',
        'max_matches_per_file',
        'path',
        'query',
        'regex',
        'respect_gitignore',
        'whole_word',
        'workspace',
      ].sort(),
    );
    expect(tool.description).toContain('read_text');
    expect(tool.description).toContain('list_files');
  });

  it('finds a literal case-insensitively across the workspace, skipping ignored, binary and invalid files', async () => {
    const r = await search({ query: 'needle', exclude: ['many'] });
    expect(r.isError).toBe(false);
    expect(where(r)).toEqual([
      'docs/guide.md:1',
      'docs/guide.md:3',
      'src/app.ts:2',
      'src/app.ts:3',
      'src/app.ts:4',
      'src/crlf.txt:2',
    ]);
    expect(r.data.skipped).toEqual({
      binary: 1,
      invalid_utf8: 1,
      too_large: 0,
      unreadable: 0,
      invalid_name: 0,
    });
    expect(r.data.matches[0]).toMatchObject({
      column: 1,
      text: 'needle on line one',
      truncated: false,
    });
    expect(r.data.matches[1]).toMatchObject({ column: 2, text: '\u{1F600}needle after emoji' });
    expect(r.data.matches[5]).toMatchObject({ text: 'needle here' });
    expect(r.data).toMatchObject({
      has_more: false,
      next_cursor: null,
      timed_out: false,
      source_trust: 'untrusted',
    });
    const ignored = await search({ query: 'needle', respect_gitignore: false, path: 'ignored' });
    expect(where(ignored)).toEqual(['ignored/secret.txt:1']);
  });

  it('supports case, whole word, regex, one folder or one file, and context lines', async () => {
    expect(where(await search({ query: 'Needle', case_sensitive: true }))).toEqual([
      'src/app.ts:2',
      'src/app.ts:4',
    ]);
    expect(where(await search({ query: 'need', whole_word: true }))).toEqual([]);
    expect(where(await search({ query: '^const \\w+ = \\d;$', regex: true }))).toEqual([
      'src/app.ts:2',
    ]);
    expect(where(await search({ query: 'needle', path: 'src/crlf.txt' }))).toEqual([
      'src/crlf.txt:2',
    ]);
    expect(where(await search({ query: 'needle', path: 'docs', include: ['*.md'] }))).toEqual([
      'docs/guide.md:1',
      'docs/guide.md:3',
    ]);
    const ctx = await search({ query: 'needle here', context_lines: 1 });
    expect(ctx.data.matches[0]).toMatchObject({
      before: [{ line: 1, text: 'first' }],
      after: [{ line: 3, text: 'last' }],
    });
  });

  it('caps matches per file and per page, and pages with a cursor', async () => {
    const capped = await search({ query: 'needle', path: 'many', max_matches_per_file: 3 });
    expect(where(capped)).toEqual([
      'many/a.txt:1',
      'many/a.txt:2',
      'many/a.txt:3',
      'many/b.txt:1',
      'many/b.txt:2',
      'many/b.txt:3',
    ]);
    expect(capped.data.capped_files).toEqual(['many/a.txt', 'many/b.txt']);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await search({
        query: 'needle',
        path: 'many',
        max_matches_per_file: 25,
        max_matches: 7,
        ...(cursor ? { cursor } : {}),
      });
      expect(r.isError).toBe(false);
      seen.push(...where(r));
      cursor = r.data.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 20);
    expect(seen).toEqual([
      ...Array.from({ length: 25 }, (_, i) => `many/a.txt:${i + 1}`),
      ...Array.from({ length: 25 }, (_, i) => `many/b.txt:${i + 1}`),
    ]);
    expect(pages).toBe(8);

    const first = await search({ query: 'needle', path: 'many', max_matches: 5 });
    const changed = await search({
      query: 'needles',
      path: 'many',
      cursor: first.data.next_cursor,
    });
    expect(changed.data.code).toBe('CURSOR_MISMATCH');
    const garbage = await search({ query: 'needle', path: 'many', cursor: 'e30' });
    expect(garbage.data.code).toBe('INVALID_CURSOR');
  });

  it('reports a malformed regular expression with the engine message', async () => {
    const r = await search({ query: '(open', regex: true });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('INVALID_REGEX');
    expect(r.data.error).toMatch(/Invalid regular expression.*Unterminated group/);
  });

  it('stops a catastrophic pattern at its time budget instead of hanging', async () => {
    const quick = await serve(
      lineTools({ workspaces: [{ id: 'w', path: t.dir }], limits: { regexTimeoutMs: 300 } }),
    );
    try {
      const r = await quick.call('search_text', {
        workspace: 'w',
        query: '(a+)+$',
        regex: true,
        path: 'evil',
      });
      expect(r.isError).toBe(false);
      expect(r.data).toMatchObject({
        timed_out: true,
        timed_out_path: 'evil/aaa.txt',
        has_more: true,
      });
      // The worker was replaced: an ordinary regex search on the same server still works.
      const after = await quick.call('search_text', {
        workspace: 'w',
        query: 'need(le)?',
        regex: true,
        path: 'src',
      });
      expect(after.data.timed_out).toBe(false);
      expect(after.data.matches.length).toBeGreaterThan(0);
      // Resuming after the timed-out file continues past it.
      const next = await quick.call('search_text', {
        workspace: 'w',
        query: '(a+)+$',
        regex: true,
        path: 'evil',
        cursor: r.data.next_cursor,
      });
      expect(next.data).toMatchObject({ timed_out: false, has_more: false, matches: [] });
    } finally {
      await quick.close();
    }
  });

  it('refuses bad folders and schema violations', async () => {
    expect((await search({ query: 'x', path: 'link.ts' })).data.code).toBe('PATH_SYMLINK');
    expect((await search({ query: 'x', path: 'pipe' })).data.code).toBe('PATH_NOT_REGULAR');
    expect((await search({ query: 'x', path: '../..' })).data.code).toBe('PATH_ESCAPES_ROOT');
    expect((await search({ query: 'x', path: 'missing' })).data.code).toBe('PATH_NOT_FOUND');
    const empty = await search({ query: '' });
    expect(empty.isError).toBe(true);
    expect(empty.text).toMatch(/query/);
    const ctx = await search({ query: 'x', context_lines: 11 });
    expect(ctx.text).toMatch(/context_lines/);
  });

  it('keeps a page within the output budget', async () => {
    t.write('wide/w.txt', `${`needle ${'\\'.repeat(390)}\n`.repeat(60)}`);
    const r = await search({
      query: 'needle',
      path: 'wide',
      max_matches: 200,
      max_matches_per_file: 200,
      context_lines: 2,
    });
    expect(Buffer.byteLength(JSON.stringify(r.data))).toBeLessThanOrEqual(64 * 1024);
    expect(r.data).toMatchObject({ output_limited: true, has_more: true });
    const next = await search({
      query: 'needle',
      path: 'wide',
      max_matches: 200,
      max_matches_per_file: 200,
      context_lines: 2,
      cursor: r.data.next_cursor,
    });
    expect(next.data.matches[0].line).toBe(r.data.matches.at(-1).line + 1);
  });
});
