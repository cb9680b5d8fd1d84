import { GLOB_LIMITS } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectWiki, exampleCopy, removeDir, writeFiles } from '../test-helpers/wiki.js';

// Issue 30 #4: picomatch's backtracking regex spent over 20 s on `'*a'.repeat(16) + '*b'`
// against one 32-character name, on the server's thread. core's matcher takes pattern × path
// steps: these 60 long names answer at once (the ceiling is generous for a busy machine).
let dir: string;
let wiki: Awaited<ReturnType<typeof connectWiki>>;
beforeEach(async () => {
  dir = exampleCopy();
  const files: Record<string, string> = {};
  for (let i = 0; i < 60; i++) files[`wiki/long/${'a'.repeat(100)}${i}.md`] = `# Page ${i}\n`;
  writeFiles(dir, files);
  wiki = await connectWiki({ wikis: [{ id: 'bees', path: dir }] });
});
afterEach(async () => {
  await wiki.close();
  removeDir(dir);
});

describe('list_pages glob (issue 30 #4)', () => {
  it('answers the exponential pattern quickly and refuses one past the limits', async () => {
    const started = Date.now();
    const hostile = await wiki.call('list_pages', {
      wiki: 'bees',
      glob: `wiki/long/${'*a'.repeat(16)}*b`,
    });
    expect(hostile.isError).toBe(false);
    expect(hostile.data.total).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    const hit = await wiki.call('list_pages', { wiki: 'bees', glob: `**/${'*a'.repeat(16)}*7.md` });
    expect(hit.data.pages.map((p: { path: string }) => p.path)).toEqual([
      `wiki/long/${'a'.repeat(100)}17.md`,
      `wiki/long/${'a'.repeat(100)}27.md`,
      `wiki/long/${'a'.repeat(100)}37.md`,
      `wiki/long/${'a'.repeat(100)}47.md`,
      `wiki/long/${'a'.repeat(100)}57.md`,
      `wiki/long/${'a'.repeat(100)}7.md`,
    ]);
    const tooMany = await wiki.call('list_pages', {
      wiki: 'bees',
      glob: '?'.repeat(GLOB_LIMITS.maxWildcards + 1),
    });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.data.code).toBe('GLOB_TOO_COMPLEX');
    expect(tooMany.data.details).toMatchObject({ limit: 'maxWildcards' });
  }, 120_000);
});
