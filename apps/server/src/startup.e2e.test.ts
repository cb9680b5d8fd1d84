// What `lectern serve` loads: only the packages its config serves. A module hook in the child
// records every module Node resolves; nothing in Lectern is replaced. The command is a bundle
// (scripts/bundle.mjs): a chunk it loads stands for the modules the chunk holds, as the build's
// dist/bin-chunks.json lists them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, scratch } from './test-helpers/spawn.js';

const s = scratch();
afterAll(() => s.cleanup());

/** Serves `args`, lists and calls one tool, and returns every module URL the child resolved. */
async function loadedBy(args: string[], tool: { name: string; arguments: object }) {
  const hooks = join(s.dir, 'hooks');
  mkdirSync(hooks, { recursive: true });
  const log = join(hooks, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, '');
  writeFileSync(
    join(hooks, 'record.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.LECTERN_LOADED_LOG, result.url + '\\n');
  return result;
}\n`,
  );
  writeFileSync(
    join(hooks, 'register.mjs'),
    `import { register } from 'node:module';\nregister('./record.mjs', import.meta.url);\n`,
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', join(hooks, 'register.mjs'), BIN, 'serve', '--log-level', 'warn', ...args],
    cwd: s.dir,
    env: { ...(process.env as Record<string, string>), LECTERN_LOADED_LOG: log },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'startup-e2e', version: '0.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const r = await client.callTool({ name: tool.name, arguments: { ...tool.arguments } });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    return { names: tools.map((t) => t.name), urls: modulesOf(readFileSync(log, 'utf8')) };
  } finally {
    await client.close();
  }
}

const DIST = dirname(BIN);
/** The bundle's chunks (file names in dist) and the source modules each holds. */
const CHUNKS = JSON.parse(readFileSync(join(DIST, 'bin-chunks.json'), 'utf8')) as Record<
  string,
  string[]
>;

/**
 * Every module the child loaded: a file resolved from node_modules as itself, a chunk of the
 * bundle as the modules it holds (paths relative to the app, e.g. ../../packages/lines/dist/…).
 */
function modulesOf(log: string): string[] {
  const out: string[] = [];
  for (const url of log.split('\n')) {
    if (!url.startsWith('file:')) continue;
    const file = fileURLToPath(url);
    const held = dirname(file) === DIST ? CHUNKS[basename(file)] : undefined;
    if (held) out.push(`bundle:${basename(file)}`, ...held);
    else out.push(file);
  }
  return out;
}

const loads = (urls: string[], part: string) => urls.some((u) => u.includes(part));
/** Modules loaded from a package's own dist rather than from the bundle. */
const loadsUnbundled = (urls: string[], part: string) =>
  urls.some((u) => u.includes(part) && !u.startsWith('../'));

describe('lectern serve loads only what its config serves', () => {
  it('docs + workspace: sections and lines, never wiki, memory, SQLite, lint or HTTP', async () => {
    const { names, urls } = await loadedBy(
      ['--docs', join(s.examples, 'docs'), '--workspace', s.examples],
      { name: 'list_files', arguments: { workspace: 'project' } },
    );
    expect(names).toContain('docs_outline');
    expect(names).toContain('read_text');
    expect(loads(urls, 'bundle:bin.js')).toBe(true);
    expect(loads(urls, '/packages/sections/')).toBe(true);
    expect(loads(urls, '/packages/lines/')).toBe(true);
    // One copy of core, zod and the SDK: the bundle's (ToolError, the .describe() registry).
    expect(loads(urls, '/packages/core/')).toBe(true);
    for (const part of ['/packages/core/', '/zod/', '/@modelcontextprotocol/sdk/']) {
      expect(loadsUnbundled(urls, part), part).toBe(false);
    }
    for (const part of [
      '/packages/wiki/',
      '/packages/memory/',
      'better-sqlite3',
      '/packages/lint/',
      'streamableHttp',
    ]) {
      expect(loads(urls, part), part).toBe(false);
    }
  }, 120_000);

  it('notes: the memory package, which loads the native module only when a tool needs it', async () => {
    const { names, urls } = await loadedBy(
      ['--notes', join(s.examples, 'notes'), '--db', join(s.dir, 'm.db')],
      { name: 'memory_list_sources', arguments: {} },
    );
    expect(names).toContain('memory_search');
    expect(loads(urls, '/packages/memory/')).toBe(true);
    expect(loads(urls, '/packages/sections/')).toBe(false);
    expect(loadsUnbundled(urls, '/packages/core/')).toBe(false);
  }, 120_000);
});
