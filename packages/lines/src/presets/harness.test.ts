import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numbered, serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';
import { harnessTools } from './harness.js';

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
let t: TempDir;
let s: Awaited<ReturnType<typeof serve>>;
const body = numbered(300, 'row ');
beforeAll(async () => {
  t = tempDir();
  t.write('src/main.py', body);
  t.write('src/util.py', 'def helper():\n    return 42\n');
  t.write('img.gif', Buffer.from('GIF89a\u0001\u0000'));
  t.write('long.txt', `${'L'.repeat(33 * 1024)}\n`);
  s = await serve(harnessTools({ workspaces: [{ id: 'proj', path: t.dir }] }));
});
afterAll(async () => {
  await s.close();
  t.cleanup();
});

const props = async (name: string) => {
  const { tools } = await s.client.listTools();
  const tool = tools.find((x) => x.name === name)!;
  return {
    tool,
    input: Object.keys(tool.inputSchema.properties ?? {}).sort(),
    output: Object.keys(tool.outputSchema?.properties ?? {}).sort(),
    schema: tool.inputSchema.properties as Record<
      string,
      { maximum?: number; type?: string; description?: string }
    >,
  };
};

describe('harness preset', () => {
  it('serves exactly the four seed tools, read-only, with described parameters', async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((x) => x.name)).toEqual([
      'read_project_text',
      'list_project_files',
      'search_project_text',
      'read_artifact',
    ]);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      for (const p of Object.values(tool.inputSchema.properties ?? {}) as Array<{
        description?: string;
      }>) {
        expect(p.description?.length ?? 0).toBeGreaterThan(15);
      }
      const named = tools.filter((x) => x !== tool && tool.description?.includes(x.name));
      expect(named.length, `${tool.name} names its siblings`).toBeGreaterThanOrEqual(1);
    }
  });

  it('read_project_text has the seed parameters and exactly the seed output fields', async () => {
    const { input, output, schema, tool } = await props('read_project_text');
    expect(input).toEqual([
      'expectedSha256',
      'lineCount',
      'path',
      'startLine',
      'tail',
      'workspace',
    ]);
    expect(tool.inputSchema.required?.sort()).toEqual(['path', 'workspace']);
    expect(output).toEqual(
      [
        'bom',
        'lines',
        'endLine',
        'hasMore',
        'encoding',
        'reference',
        'startLine',
        'hasEarlier',
        'totalLines',
        'sourceTrust',
        'nextStartLine',
        'outputLimited',
      ].sort(),
    );
    expect(schema.lineCount!.maximum).toBe(200);
    expect(schema.tail!.type).toBe('boolean');
    expect(tool.description).toMatch(/16 MiB/);
    expect(tool.description).toMatch(/32 KiB/);
    expect(tool.description).toMatch(/64 KiB/);
  });

  it('read_project_text reads ranges and tails with seed defaults', async () => {
    const r = await s.call('read_project_text', { workspace: 'proj', path: 'src/main.py' });
    expect(r.isError).toBe(false);
    expect(Object.keys(r.data).sort()).toEqual(
      [
        'bom',
        'encoding',
        'endLine',
        'hasEarlier',
        'hasMore',
        'lines',
        'nextStartLine',
        'outputLimited',
        'reference',
        'sourceTrust',
        'startLine',
        'totalLines',
      ].sort(),
    );
    expect(r.data).toMatchObject({
      bom: false,
      startLine: 1,
      endLine: 100,
      totalLines: 300,
      hasMore: true,
      hasEarlier: false,
      nextStartLine: 101,
      encoding: 'utf-8',
      outputLimited: false,
      sourceTrust: 'untrusted',
      reference: {
        workspace: 'proj',
        path: 'src/main.py',
        sha256: sha(body),
        size: body.length,
        lineEndings: 'lf',
      },
    });
    expect(r.data.lines[0]).toEqual({ line: 1, text: 'row 1' });
    const range = await s.call('read_project_text', {
      workspace: 'proj',
      path: 'src/main.py',
      startLine: 290,
      lineCount: 200,
    });
    expect(range.data).toMatchObject({
      startLine: 290,
      endLine: 300,
      hasMore: false,
      nextStartLine: null,
    });
    const tail = await s.call('read_project_text', {
      workspace: 'proj',
      path: 'src/main.py',
      tail: true,
      lineCount: 2,
    });
    expect(tail.data.lines).toEqual([
      { line: 299, text: 'row 299' },
      { line: 300, text: 'row 300' },
    ]);
    const tailDefault = await s.call('read_project_text', {
      workspace: 'proj',
      path: 'src/main.py',
      tail: true,
    });
    expect(tailDefault.data.startLine).toBe(201);
    const same = await s.call('read_project_text', {
      workspace: 'proj',
      path: 'src/main.py',
      expectedSha256: sha(body),
      startLine: 5,
      lineCount: 1,
    });
    expect(same.data.lines).toEqual([{ line: 5, text: 'row 5' }]);
  });

  it('read_project_text errors use the preset spelling', async () => {
    const mixed = await s.call('read_project_text', {
      workspace: 'proj',
      path: 'src/main.py',
      tail: true,
      startLine: 3,
    });
    expect(mixed.data.code).toBe('INVALID_RANGE');
    expect(mixed.data.error).toContain('startLine');
    expect(mixed.data.error).not.toContain('start_line');
    const changed = await s.call('read_project_text', {
      workspace: 'proj',
      path: 'src/main.py',
      expectedSha256: 'a'.repeat(64),
    });
    expect(changed.data.code).toBe('FILE_CHANGED');
    expect(changed.data.details).toEqual({
      expectedSha256: 'a'.repeat(64),
      currentSha256: sha(body),
    });
    expect(changed.data.error).toContain('no content was returned');
    const long = await s.call('read_project_text', { workspace: 'proj', path: 'long.txt' });
    expect(long.data.code).toBe('LINE_TOO_LONG');
    expect(long.data.error).toContain('read_artifact');
    const ws = await s.call('read_project_text', { workspace: 'prj', path: 'x' });
    expect(ws.data).toMatchObject({ code: 'WORKSPACE_NOT_FOUND', suggestions: ['proj'] });
    const schema = await s.call('read_project_text', {
      workspace: 'proj',
      path: 'src/main.py',
      lineCount: 201,
    });
    expect(schema.isError).toBe(true);
    expect(schema.text).toMatch(/lineCount/);
    const badTail = await s.call('read_project_text', {
      workspace: 'proj',
      path: 'src/main.py',
      tail: 5,
    });
    expect(badTail.isError).toBe(true);
    expect(badTail.text).toMatch(/tail/);
  });

  it('list_project_files lists with camelCase parameters and pages', async () => {
    const { input, output, schema: listSchema } = await props('list_project_files');
    expect(listSchema.limit!.maximum).toBe(1000);
    expect(listSchema.maxDepth!.maximum).toBe(64);
    expect(input).toEqual(
      [
        'cursor',
        'exclude',
        'include',
        'includeDirectories',
        'limit',
        'maxDepth',
        'path',
        'respectGitignore',
        'workspace',
      ].sort(),
    );
    expect(output).toEqual([
      'entries',
      'hasMore',
      'nextCursor',
      'path',
      'scanLimited',
      'workspace',
    ]);
    const first = await s.call('list_project_files', {
      workspace: 'proj',
      limit: 2,
      includeDirectories: true,
    });
    expect(first.data.entries.map((e: { path: string }) => e.path)).toEqual([
      'img.gif',
      'long.txt',
    ]);
    expect(first.data.hasMore).toBe(true);
    const rest = await s.call('list_project_files', {
      workspace: 'proj',
      limit: 10,
      includeDirectories: true,
      cursor: first.data.nextCursor,
    });
    expect(rest.data.entries.map((e: { path: string }) => e.path)).toEqual([
      'src',
      'src/main.py',
      'src/util.py',
    ]);
    expect(rest.data).toMatchObject({ hasMore: false, nextCursor: null, scanLimited: false });
    const bad = await s.call('list_project_files', { workspace: 'proj', path: 'src/main.py' });
    expect(bad.data.code).toBe('PATH_NOT_DIRECTORY');
    expect(bad.data.error).toContain('read_project_text');
    const mismatch = await s.call('list_project_files', {
      workspace: 'proj',
      maxDepth: 1,
      cursor: first.data.nextCursor,
    });
    expect(mismatch.data.code).toBe('CURSOR_MISMATCH');
  });

  it('search_project_text searches with camelCase parameters', async () => {
    const { input, output, schema: searchSchema } = await props('search_project_text');
    expect(searchSchema.contextLines!.maximum).toBe(10);
    expect(searchSchema.maxMatches!.maximum).toBe(500);
    expect(searchSchema.maxMatchesPerFile!.maximum).toBe(1000);
    expect(input).toEqual(
      [
        'caseSensitive',
        'contextLines',
        'cursor',
        'exclude',
        'include',
        'maxMatches',
        'maxMatchesPerFile',
        'path',
        'query',
        'regex',
        'respectGitignore',
        'wholeWord',
        'workspace',
      ].sort(),
    );
    expect(output).toEqual(
      [
        'cappedFiles',
        'filesSearched',
        'hasMore',
        'matches',
        'nextCursor',
        'outputLimited',
        'path',
        'scanLimited',
        'skipped',
        'sourceTrust',
        'timedOut',
        'timedOutPath',
        'workspace',
      ].sort(),
    );
    const r = await s.call('search_project_text', {
      workspace: 'proj',
      query: 'return \\d+',
      regex: true,
      contextLines: 1,
    });
    expect(r.data.matches).toEqual([
      {
        path: 'src/util.py',
        line: 2,
        column: 5,
        text: '    return 42',
        truncated: false,
        before: [{ line: 1, text: 'def helper():' }],
        after: [],
      },
    ]);
    expect(r.data.skipped).toEqual({
      binary: 1,
      invalidUtf8: 0,
      tooLarge: 0,
      unreadable: 0,
      invalidName: 0,
    });
    const paged = await s.call('search_project_text', {
      workspace: 'proj',
      query: 'row 1',
      maxMatches: 3,
      maxMatchesPerFile: 5,
    });
    expect(paged.data.hasMore).toBe(true);
    const more = await s.call('search_project_text', {
      workspace: 'proj',
      query: 'row 1',
      maxMatches: 3,
      maxMatchesPerFile: 5,
      cursor: paged.data.nextCursor,
    });
    expect(more.data.matches.map((m: { line: number }) => m.line)).toEqual([12, 13]);
    expect(more.data.cappedFiles).toEqual(['src/main.py']);
    const bad = await s.call('search_project_text', { workspace: 'proj', query: '[', regex: true });
    expect(bad.data.code).toBe('INVALID_REGEX');
    const tooMuch = await s.call('search_project_text', {
      workspace: 'proj',
      query: 'x',
      contextLines: 11,
    });
    expect(tooMuch.text).toMatch(/contextLines/);
  });

  it('read_artifact reads bytes with camelCase fields', async () => {
    const { input, output, schema: artifactSchema } = await props('read_artifact');
    expect(artifactSchema.length!.maximum).toBe(1024 * 1024);
    t.write('blob.bin', Buffer.alloc(100 * 1024, 1));
    const dflt = await s.call('read_artifact', { workspace: 'proj', path: 'blob.bin' });
    expect(dflt.data).toMatchObject({
      offset: 0,
      length: 64 * 1024,
      hasMore: true,
      nextOffset: 64 * 1024,
    });
    expect(input).toEqual(['expectedSha256', 'length', 'offset', 'path', 'workspace']);
    expect(output).toEqual(
      [
        'dataBase64',
        'hasMore',
        'length',
        'mediaType',
        'nextOffset',
        'offset',
        'path',
        'sha256',
        'size',
        'sourceTrust',
        'workspace',
      ].sort(),
    );
    const r = await s.call('read_artifact', {
      workspace: 'proj',
      path: 'img.gif',
      offset: 0,
      length: 6,
    });
    expect(r.data).toMatchObject({
      mediaType: 'image/gif',
      length: 6,
      hasMore: true,
      nextOffset: 6,
      size: 8,
    });
    expect(Buffer.from(r.data.dataBase64, 'base64').toString()).toBe('GIF89a');
    const past = await s.call('read_artifact', { workspace: 'proj', path: 'img.gif', offset: 9 });
    expect(past.data.code).toBe('OFFSET_OUT_OF_RANGE');
    const changed = await s.call('read_artifact', {
      workspace: 'proj',
      path: 'img.gif',
      expectedSha256: 'b'.repeat(64),
    });
    expect(changed.data.details.currentSha256).toBe(sha(Buffer.from('GIF89a\u0001\u0000')));
  });
});
