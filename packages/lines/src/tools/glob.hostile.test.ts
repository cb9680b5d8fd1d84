import { GLOB_LIMITS } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineTools } from '../package.js';
import { harnessTools } from '../presets/harness.js';
import { serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

// Issue 30 #4: `'*a'.repeat(16) + '*b'` against a 32-character name of `a`s kept picomatch's
// backtracking regex busy 11-48 s on the server's thread; against these 120-character names it
// would never end. The matcher in core walks pattern × name steps, so both calls answer at once
// and another client's call is not held up. The ceiling is generous (busy machine), and far
// below what a backtracking matcher needs for a single one of these names.
const HOSTILE = `${'*a'.repeat(16)}*b`;
const CEILING_MS = 30_000;

let t: TempDir;
let native: Awaited<ReturnType<typeof serve>>;
let harness: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  t = tempDir();
  for (let i = 0; i < 40; i++) t.write(`d${i % 4}/${'a'.repeat(120)}${i}`, `needle ${i}\n`);
  t.write('ok/plain.txt', 'needle\n');
  const workspaces = [{ id: 'repo', path: t.dir }];
  native = await serve(lineTools({ workspaces }));
  harness = await serve(harnessTools({ workspaces }));
});
afterAll(async () => {
  await native?.close();
  await harness?.close();
  t?.cleanup();
});

/** Runs `call` next to a cheap call from another client; both durations. */
async function withProbe<T>(call: () => Promise<T>) {
  const started = Date.now();
  let probeMs = -1;
  const [result] = await Promise.all([
    call().then((r) => ({ r, ms: Date.now() - started })),
    harness.call('list_project_files', { workspace: 'repo', path: 'ok' }).then(() => {
      probeMs = Date.now() - started;
    }),
  ]);
  return { result: result.r, ms: result.ms, probeMs };
}

describe('hostile globs (issue 30 #4)', () => {
  it('list_files and search_text answer the exponential pattern without holding other clients', async () => {
    const listed = await withProbe(() =>
      native.call('list_files', { workspace: 'repo', include: [HOSTILE, `d1/${HOSTILE}`] }),
    );
    expect(listed.result.isError).toBe(false);
    expect(listed.result.data.entries).toEqual([]);
    expect(listed.ms).toBeLessThan(CEILING_MS);
    expect(listed.probeMs).toBeGreaterThanOrEqual(0);
    expect(listed.probeMs).toBeLessThan(CEILING_MS);

    const searched = await withProbe(() =>
      native.call('search_text', { workspace: 'repo', query: 'needle', exclude: [HOSTILE] }),
    );
    expect(searched.result.isError).toBe(false);
    // Nothing is excluded (no name ends in b), so every file is searched.
    expect(searched.result.data.files_searched).toBe(41);
    expect(searched.ms).toBeLessThan(CEILING_MS);
    expect(searched.probeMs).toBeLessThan(CEILING_MS);

    // The same pattern ending in a name's last character does match.
    const hit = await native.call('list_files', {
      workspace: 'repo',
      include: [`${'*a'.repeat(16)}*7`],
    });
    expect(hit.data.entries.map((f: { path: string }) => f.path)).toEqual([
      `d1/${'a'.repeat(120)}17`,
      `d1/${'a'.repeat(120)}37`,
      `d3/${'a'.repeat(120)}27`,
      `d3/${'a'.repeat(120)}7`,
    ]);
  }, 120_000);

  it('refuses a glob past the limits with GLOB_TOO_COMPLEX naming the limit, also in the preset', async () => {
    const many = '*x'.repeat(GLOB_LIMITS.maxWildcards + 1);
    const r = await native.call('list_files', { workspace: 'repo', include: [many] });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('GLOB_TOO_COMPLEX');
    expect(r.data.details).toMatchObject({ limit: 'maxWildcards', max: GLOB_LIMITS.maxWildcards });
    expect(r.data.error).toContain('include glob');
    const braces = await harness.call('search_project_text', {
      workspace: 'repo',
      query: 'needle',
      exclude: ['{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}'],
    });
    expect(braces.isError).toBe(true);
    expect(braces.data.code).toBe('GLOB_TOO_COMPLEX');
    expect(braces.data.details).toMatchObject({ limit: 'maxExpansions' });
  });
});
