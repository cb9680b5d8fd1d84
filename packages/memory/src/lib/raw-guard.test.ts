import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectTools } from '@lectern/core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryPackage } from '../package.js';
import { errorOf, type TempDir, tempDir } from '../test-helpers/fs.js';
import { isMemoryError } from './errors.js';
import { checkRawSyntax, RAW_LIMITS, timeRawQuery } from './raw-guard.js';

// Issue 30 #6: a raw `NEAR(a* a* …, 100000)` of 973 characters ran 22-27 s on 5,000 notes on
// the server's thread (better-sqlite3 is synchronous and has no interrupt). The expression is
// now bounded before it runs, and timed in a child process with its own connection (killed
// past the budget: a worker thread cannot be stopped inside SQLite).
const NOTES = 3000;
const WORDS = ['alpha', 'apple', 'anchor', 'atlas', 'axis', 'amber', 'arrow', 'aspen', 'acorn'];
const ISSUE_QUERY = `NEAR(${'a* '.repeat(320).trim()}, 100000)`;

let dir: TempDir;
let set: ReturnType<typeof memoryPackage.tools>;
let conn: Awaited<ReturnType<typeof connectTools>>;
const db = () => join(dir.path, 'index', 'memory.db');
beforeAll(async () => {
  dir = tempDir();
  mkdirSync(join(dir.path, 'notes'));
  for (let i = 0; i < NOTES; i++) {
    let text = `# Note ${i}\n\n`;
    for (let j = 0; j < 60; j++) text += `${WORDS[(i * 7 + j * 3) % WORDS.length]} `;
    writeFileSync(join(dir.path, 'notes', `n${i}.md`), `${text}\n`);
  }
  set = memoryPackage.tools({ roots: [{ id: 'notes', path: join(dir.path, 'notes') }], db: db() });
  conn = await connectTools(set.tools);
  await conn.client.callTool({ name: 'memory_reindex', arguments: {} });
}, 300_000);
afterAll(async () => {
  await conn?.close();
  await set?.close();
  dir?.cleanup();
});

const search = async (args: Record<string, unknown>) =>
  (await conn.client.callTool({ name: 'memory_search', arguments: args })) as CallToolResult;

const codeOf = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    if (isMemoryError(e)) return { code: e.code, details: e.details };
    throw e;
  }
  return undefined;
};

describe('raw full-text queries on SQLite (issue 30 #6)', () => {
  it('refuses the issue-shaped NEAR before running it, while another client is served', async () => {
    expect(ISSUE_QUERY.length).toBeGreaterThan(900);
    const started = Date.now();
    const [hostile, probe] = await Promise.all([
      search({ query: ISSUE_QUERY, raw: true }),
      conn.client.callTool({ name: 'memory_list_sources', arguments: {} }),
    ]);
    const e = errorOf(hostile);
    expect(e.code).toBe('QUERY_TOO_COMPLEX');
    expect(e.details).toMatchObject({ limit: 'maxPrefixTerms', max: RAW_LIMITS.maxPrefixTerms });
    expect((probe as CallToolResult).isError).toBeFalsy();
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 120_000);

  it('bounds prefix terms, NEAR groups, NEAR distance and phrases per group', () => {
    expect(codeOf(() => checkRawSyntax('NEAR(alpha* apple*, 50) OR atlas*'))).toBeUndefined();
    expect(codeOf(() => checkRawSyntax('"a* b*" OR c'))).toBeUndefined();
    expect(codeOf(() => checkRawSyntax('a* '.repeat(9)))?.details).toMatchObject({
      limit: 'maxPrefixTerms',
    });
    expect(codeOf(() => checkRawSyntax('NEAR(a b) NEAR(c d) NEAR(e f)'))?.details).toMatchObject({
      limit: 'maxNearGroups',
    });
    expect(codeOf(() => checkRawSyntax('NEAR(a b, 100000)'))?.details).toMatchObject({
      limit: 'maxNearDistance',
      value: 100000,
    });
    expect(codeOf(() => checkRawSyntax(`NEAR(${'w '.repeat(9)})`))?.details).toMatchObject({
      limit: 'maxNearPhrases',
    });
  });

  it('times an expression in a child process: past the budget it is killed with QUERY_TOO_SLOW, the server thread stays free', async () => {
    // The issue's expression itself (past the syntax bounds, so given straight to the timer):
    // on the server's thread it ran for seconds; here the thread keeps ticking meanwhile.
    let ticks = 0;
    let longestGap = 0;
    let last = Date.now();
    const ticker = setInterval(() => {
      const now = Date.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 20);
    const error = await timeRawQuery(db(), ISSUE_QUERY, 1000).catch((e) => e);
    clearInterval(ticker);
    expect(isMemoryError(error) && error.code).toBe('QUERY_TOO_SLOW');
    expect(error.details).toMatchObject({ budget_ms: 1000 });
    expect(ticks).toBeGreaterThan(0);
    // Generous: a blocked thread would show one gap as long as the whole query.
    expect(longestGap).toBeLessThan(5_000);
    // Bad syntax is reported as such, from the worker.
    const bad = await timeRawQuery(db(), 'NEAR(', 60_000).catch((e) => e);
    expect((bad as Error).name).toBe('RawQueryError');
    // A fast expression passes.
    await expect(timeRawQuery(db(), 'alpha', 60_000)).resolves.toBeUndefined();
  }, 180_000);

  it('answers an ordinary raw query as before, and names the syntax of a bad one', async () => {
    const ok = await search({ query: 'NEAR(alpha atlas, 5)', raw: true, limit: 3 });
    expect(ok.isError, JSON.stringify(ok.content)).toBeFalsy();
    expect((ok.structuredContent as { results: unknown[] }).results).toHaveLength(3);
    const bad = errorOf(await search({ query: 'alpha AND', raw: true }));
    expect(bad.code).toBe('INVALID_QUERY');
    expect(bad.error).toContain('not valid FTS5 syntax');
  }, 180_000);
});
