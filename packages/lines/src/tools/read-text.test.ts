import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineTools } from '../package.js';
import { numbered, serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

let t: TempDir;
let other: TempDir;
let s: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  t = tempDir();
  other = tempDir();
  t.write('notes/todo.md', numbered(250, 'item '));
  t.write('crlf.txt', 'a\r\nb\r\n');
  t.write('bin.dat', Buffer.from([1, 2, 0, 3]));
  t.write('long.txt', `${'w'.repeat(40 * 1024)}\n`);
  t.symlink(t.abs('crlf.txt'), 'alias.txt');
  t.mkfifo('pipe');
  other.write('x.txt', 'other workspace\n');
  s = await serve(
    lineTools({
      workspaces: [
        { id: 'project', path: t.dir },
        { id: 'docs', path: other.dir },
      ],
    }),
  );
});
afterAll(async () => {
  await s.close();
  t.cleanup();
  other.cleanup();
});

describe('read_text over MCP', () => {
  it('advertises its schema: names, limits and annotations', async () => {
    const { tools } = await s.client.listTools();
    const tool = tools.find((x) => x.name === 'read_text')!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(
      ['expected_sha256', 'line_count', 'path', 'start_line', 'tail', 'workspace'].sort(),
    );
    expect(tool.inputSchema.required?.sort()).toEqual(['path', 'workspace']);
    const props = tool.inputSchema.properties as Record<
      string,
      { maximum?: number; description?: string }
    >;
    expect(props.line_count!.maximum).toBe(200);
    expect(props.tail!.maximum).toBe(200);
    for (const p of Object.values(props)) expect(p.description?.length).toBeGreaterThan(20);
    expect(Object.keys(tool.outputSchema?.properties ?? {}).sort()).toEqual(
      [
        'bom',
        'encoding',
        'end_line',
        'has_earlier',
        'has_more',
        'line_endings',
        'lines',
        'next_start_line',
        'output_limited',
        'path',
        'sha256',
        'size',
        'source_trust',
        'start_line',
        'total_lines',
        'workspace',
      ].sort(),
    );
    expect(tool.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    for (const name of ['list_files', 'search_text', 'read_artifact']) {
      expect(tool.description).toContain(name);
    }
  });

  it('reads a default window, then continues from next_start_line', async () => {
    const first = await s.call('read_text', { workspace: 'project', path: 'notes/todo.md' });
    expect(first.isError).toBe(false);
    expect(first.data.lines).toHaveLength(100);
    expect(first.data).toMatchObject({
      workspace: 'project',
      path: 'notes/todo.md',
      total_lines: 250,
      next_start_line: 101,
      has_more: true,
      source_trust: 'untrusted',
    });
    expect(JSON.parse(first.text)).toEqual(first.data);
    const last = await s.call('read_text', {
      workspace: 'project',
      path: 'notes/todo.md',
      start_line: 201,
      line_count: 200,
    });
    expect(last.data.lines).toHaveLength(50);
    expect(last.data).toMatchObject({ end_line: 250, has_more: false, next_start_line: null });
    const tail = await s.call('read_text', {
      workspace: 'project',
      path: 'notes/todo.md',
      tail: 2,
    });
    expect(tail.data.lines).toEqual([
      { line: 249, text: 'item 249' },
      { line: 250, text: 'item 250' },
    ]);
  });

  it('keeps workspaces apart and suggests the closest id for an unknown one', async () => {
    const r = await s.call('read_text', { workspace: 'docs', path: 'x.txt' });
    expect(r.data.lines).toEqual([{ line: 1, text: 'other workspace' }]);
    const miss = await s.call('read_text', { workspace: 'projct', path: 'x.txt' });
    expect(miss.isError).toBe(true);
    expect(miss.data.code).toBe('WORKSPACE_NOT_FOUND');
    expect(miss.data.suggestions[0]).toBe('project');
    expect(miss.data.error).toContain('project, docs');
    const wrong = await s.call('read_text', { workspace: 'project', path: 'x.txt' });
    expect(wrong.data.code).toBe('PATH_NOT_FOUND');
  });

  it('returns stable error codes with messages naming the rule', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ path: 'notes/todo.md', tail: 5, start_line: 2 }, 'INVALID_RANGE', /cannot be combined/],
      [{ path: 'notes/todo.md', start_line: 999 }, 'LINE_OUT_OF_RANGE', /250 lines/],
      [{ path: 'bin.dat' }, 'BINARY_CONTENT', /NUL byte at byte offset 2/],
      [{ path: 'long.txt' }, 'LINE_TOO_LONG', /read_artifact/],
      [{ path: 'alias.txt' }, 'PATH_SYMLINK', /symbolic link/],
      [{ path: 'pipe' }, 'PATH_NOT_REGULAR', /FIFO/],
      [{ path: '../outside.txt' }, 'PATH_ESCAPES_ROOT', /climbs out/],
      [{ path: '/etc/hostname' }, 'PATH_ABSOLUTE_OUTSIDE_ROOT', /outside the root/],
      [{ path: 'notes' }, 'PATH_IS_DIRECTORY', /directory/],
    ];
    for (const [args, code, message] of cases) {
      const r = await s.call('read_text', { workspace: 'project', ...args });
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.data.code, JSON.stringify(args)).toBe(code);
      expect(r.data.error).toMatch(message);
    }
  });

  it('rejects schema violations before the handler runs', async () => {
    for (const args of [
      { path: 'crlf.txt', line_count: 201 },
      { path: 'crlf.txt', start_line: 0 },
      { path: 'crlf.txt', expected_sha256: 'xyz' },
      { path: 'crlf.txt', tail: 1.5 },
      { path: '' },
    ]) {
      const r = await s.call('read_text', { workspace: 'project', ...args });
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.text).toMatch(/Input validation error/);
    }
  });

  it('detects a change between two calls through expected_sha256', async () => {
    t.write('live.txt', 'before\n');
    const one = await s.call('read_text', { workspace: 'project', path: 'live.txt' });
    t.write('live.txt', 'after!\n');
    const two = await s.call('read_text', {
      workspace: 'project',
      path: 'live.txt',
      expected_sha256: one.data.sha256,
    });
    expect(two.isError).toBe(true);
    expect(two.data.code).toBe('FILE_CHANGED');
    expect(two.data.details.current_sha256).not.toBe(one.data.sha256);
    expect(two.text).not.toContain('after!');
  });
});
