import { join } from 'node:path';
import { GLOB_LIMITS } from '@lectern/core';
import { connectTools } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryPackage } from '../package.js';
import { errorOf, type TempDir, tempDir } from '../test-helpers/fs.js';

// Issue 30 #4: `path_glob` ran picomatch on the server's thread, and `'*a'.repeat(16) + '*b'`
// against one 32-character path kept it busy for over 20 s. core's matcher takes pattern × path
// steps; 50 hits with 100-character names answer at once (generous ceiling, busy machine).
const HOSTILE = `${'*a'.repeat(16)}*b`;

let dir: TempDir;
let set: ReturnType<typeof memoryPackage.tools>;
let conn: Awaited<ReturnType<typeof connectTools>>;
beforeAll(async () => {
  dir = tempDir();
  for (let i = 0; i < 50; i++)
    dir.write(`notes/${'a'.repeat(100)}${i}.md`, `# N${i}\n\nneedle ${i}\n`);
  set = memoryPackage.tools({
    roots: [{ id: 'notes', path: join(dir.path, 'notes') }],
    db: join(dir.path, 'index', 'memory.db'),
  });
  conn = await connectTools(set.tools);
}, 120_000);
afterAll(async () => {
  await conn?.close();
  await set?.close();
  dir?.cleanup();
});

const search = async (args: Record<string, unknown>) =>
  (await conn.client.callTool({ name: 'memory_search', arguments: args })) as CallToolResult;

describe('memory_search path_glob (issue 30 #4)', () => {
  it('answers the exponential pattern at once, and still filters', async () => {
    expect((await search({ query: 'needle' })).isError).toBeFalsy();
    const started = Date.now();
    const r = await search({ query: 'needle', path_glob: HOSTILE, limit: 50 });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { results: unknown[] }).results).toEqual([]);
    expect(Date.now() - started).toBeLessThan(30_000);
    const hit = await search({ query: 'needle', path_glob: `${'*a'.repeat(16)}*7.md`, limit: 50 });
    const paths = (hit.structuredContent as { results: Array<{ path: string }> }).results
      .map((c) => c.path)
      .sort();
    expect(paths).toEqual([
      `notes/${'a'.repeat(100)}17.md`,
      `notes/${'a'.repeat(100)}27.md`,
      `notes/${'a'.repeat(100)}37.md`,
      `notes/${'a'.repeat(100)}47.md`,
      `notes/${'a'.repeat(100)}7.md`,
    ]);
  }, 120_000);

  it('refuses a pattern past the limits with GLOB_TOO_COMPLEX naming path_glob and the limit', async () => {
    const r = await search({
      query: 'needle',
      path_glob: '*x'.repeat(GLOB_LIMITS.maxWildcards + 1),
    });
    const e = errorOf(r);
    expect(e.code).toBe('GLOB_TOO_COMPLEX');
    expect(e.details).toMatchObject({ param: 'path_glob', limit: 'maxWildcards' });
    expect(e.error).toContain('`path_glob`');
    const bad = errorOf(await search({ query: 'needle', path_glob: '+(a|b)' }));
    expect(bad.code).toBe('INVALID_GLOB');
  });
});
