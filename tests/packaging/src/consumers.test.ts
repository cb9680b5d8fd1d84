// Fresh consumers of the packed tarballs, as a user would install them: the full CLI, core +
// lines alone, and core + lines on the lowest SDK and zod the peer ranges admit. Third-party
// packages come from the registry (through pnpm's store, so repeated runs are quick); our
// packages come only from the local tarballs (pnpm overrides pin every @lectern name to them).
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PEER_RANGES } from './lib/peers.js';
import {
  expectSuccess,
  lowestOf,
  outsideEnv,
  type PackageJson,
  pnpm,
  published,
  publishedPackages,
  readJson,
  root,
  run,
} from './lib/workspace.js';

const tarballs = inject('tarballs');
const require = createRequire(import.meta.url);
const SDK = '@modelcontextprotocol/sdk';
const LINE_TOOLS = ['read_text', 'list_files', 'search_text', 'read_artifact'];
/** Installs and builds can take a while on a busy machine; a hung one still fails. */
const STEP_MS = 240_000;
const TEST_MS = 600_000;

const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const tarballOf = (name: string) => `file:${join(tarballs, published(name).tarball)}`;

/** Every @lectern package pinned to its tarball, wherever it appears in the tree. */
function overrides(): Record<string, string> {
  return Object.fromEntries(publishedPackages().map((p) => [p.pkg.name, tarballOf(p.pkg.name)]));
}

/** A new folder outside the repository with this package.json, installed with pnpm. */
async function consumer(
  label: string,
  dependencies: Record<string, string>,
  builds: string[] = [],
  installFlags: string[] = [],
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `lectern-consumer-${label}-`));
  folders.push(dir);
  const manifest = {
    name: `consumer-${label}`,
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies,
    pnpm: { overrides: overrides(), onlyBuiltDependencies: builds },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const [command, ...prefix] = pnpm();
  expectSuccess(
    `pnpm install in ${label}`,
    await run(
      command!,
      [
        ...prefix,
        'install',
        '--prefer-offline',
        '--ignore-workspace',
        '--reporter=append-only',
        ...installFlags,
      ],
      { cwd: dir, env: outsideEnv(), timeoutMs: STEP_MS },
    ),
  );
  return dir;
}

/** The package folders pnpm installed (`node_modules/.pnpm/<name>@<version>…`). */
function installed(dir: string): string[] {
  return readdirSync(join(dir, 'node_modules', '.pnpm')).filter((x) => x !== 'node_modules');
}

/** Installed versions of one package, e.g. `zod` -> ['4.0.0']. */
function versionsOf(dir: string, name: string): string[] {
  const prefix = `${name.replace('/', '+')}@`;
  return installed(dir)
    .filter((x) => x.startsWith(prefix))
    .map((x) => x.slice(prefix.length).split('_')[0]!);
}

/** Our packages in the tree all come from the tarballs, never from a registry. */
function expectOursFromTarballs(dir: string) {
  const ours = installed(dir).filter((x) => x.startsWith('@lectern+') || x.startsWith('lectern@'));
  expect(ours.length).toBeGreaterThan(0);
  for (const x of ours) expect(x).toMatch(/@file\+/);
}

/** Type-checks and compiles fixtures/core-lines/serve.ts in `dir` with the repo's TypeScript. */
async function compileServe(dir: string) {
  copyFileSync(
    fileURLToPath(new URL('../fixtures/core-lines/serve.ts', import.meta.url)),
    join(dir, 'serve.ts'),
  );
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      // Third-party declarations are not ours to check (the SDK's name optional peers).
      skipLibCheck: true,
      types: ['node'],
      outDir: 'out',
    },
    files: ['serve.ts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const tsc = require.resolve('typescript/bin/tsc');
  expectSuccess(
    'tsc in the consumer',
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, timeoutMs: STEP_MS }),
  );
}

/** Connects an SDK client to a stdio server command and hands it to `use`. */
async function withClient<T>(
  command: string,
  args: string[],
  cwd: string,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({ name: 'packaging-test', version: '0.0.0' });
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: outsideEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  try {
    await client.connect(transport, { timeout: STEP_MS });
    return await use(client);
  } catch (error) {
    throw new Error(`${String(error)}\nserver stderr:\n${stderr.slice(-4000)}`);
  } finally {
    await client.close();
  }
}

/** Serves the compiled consumer and checks the line tools and its own tool answer. */
async function expectServes(dir: string) {
  writeFileSync(join(dir, 'notes.txt'), 'first\nsecond\n');
  await withClient(process.execPath, ['out/serve.js', dir], dir, async (client) => {
    const { tools } = await client.listTools(undefined, { timeout: STEP_MS });
    expect(tools.map((t) => t.name)).toEqual([...LINE_TOOLS, 'shout']);
    const read = await client.callTool(
      { name: 'read_text', arguments: { workspace: 'here', path: 'notes.txt' } },
      undefined,
      { timeout: STEP_MS },
    );
    expect(read.isError).toBeFalsy();
    expect((read.structuredContent as { lines: unknown[] }).lines).toEqual([
      { line: 1, text: 'first' },
      { line: 2, text: 'second' },
    ]);
    const shout = await client.callTool({ name: 'shout', arguments: { text: 'hi' } });
    expect(shout.structuredContent).toEqual({ text: 'HI' });
  });
}

/**
 * `require()` of the packages from a CommonJS script in a fresh Node: it loads them where Node
 * can require ES modules (20.19+, 22.12+) and fails with ERR_REQUIRE_ESM elsewhere.
 */
async function expectRequire(dir: string, from: string, names: string[]) {
  const script = `
    const { createRequire } = require('node:module');
    const load = createRequire(${JSON.stringify(from)});
    const out = {};
    for (const name of ${JSON.stringify(names)}) {
      try { out[name] = Object.keys(load(name)).length; } catch (e) { out[name] = e.code ?? String(e); }
    }
    console.log(JSON.stringify(out));`;
  const r = expectSuccess(
    'require()',
    await run(process.execPath, ['-e', script], { cwd: dir, timeoutMs: STEP_MS }),
  );
  const loaded = JSON.parse(r.stdout) as Record<string, number | string>;
  const canRequireEsm = (process.features as { require_module?: boolean }).require_module === true;
  for (const name of names) {
    if (canRequireEsm) expect(loaded[name], name).toBeGreaterThan(0);
    else expect(loaded[name], name).toBe('ERR_REQUIRE_ESM');
  }
}

const devRange = (name: string) =>
  readJson<PackageJson>(join(root, 'packages/core/package.json')).devDependencies![name]!;
const typesNode = readJson<PackageJson>(join(root, 'package.json')).devDependencies![
  '@types/node'
]!;

describe('a fresh install of the packed tarballs', () => {
  it(
    'the full CLI: lectern tools --json lists the tools and lectern serve answers over stdio',
    async () => {
      const dir = await consumer('cli', { lectern: tarballOf('lectern') }, ['better-sqlite3']);
      expectOursFromTarballs(dir);
      const bin = join(dir, 'node_modules', '.bin', 'lectern');

      // Written to a file: what a pipe receives is another test's concern.
      const listing = join(dir, 'tools.json');
      expectSuccess(
        'lectern tools --json',
        await run(bin, ['tools', '--json'], {
          cwd: dir,
          env: outsideEnv(),
          timeoutMs: STEP_MS,
          stdoutFile: listing,
        }),
      );
      const listed = (JSON.parse(readFileSync(listing, 'utf8')) as { tools: { name: string }[] })
        .tools;
      const names = listed.map((t) => t.name);
      // One package's tools or more each: sections, lines, wiki and memory.
      for (const name of ['docs_outline', ...LINE_TOOLS, 'write_batch', 'memory_search'])
        expect(names).toContain(name);

      const served = await withClient(bin, ['serve'], dir, async (client) =>
        (await client.listTools(undefined, { timeout: STEP_MS })).tools.map((t) => t.name),
      );
      expect(served).toEqual(names);

      const app = join(dir, 'node_modules', 'lectern', 'package.json');
      await expectRequire(
        dir,
        app,
        publishedPackages().map((p) => p.pkg.name),
      );
    },
    TEST_MS,
  );

  it(
    'the CLI without optional dependencies: serves docs, and memory explains the missing module',
    async () => {
      const dir = await consumer(
        'cli-no-optional',
        { lectern: tarballOf('lectern') },
        [],
        ['--no-optional'],
      );
      expect(versionsOf(dir, 'better-sqlite3')).toEqual([]);
      const bin = join(dir, 'node_modules', '.bin', 'lectern');
      const docs = join(dir, 'docs');
      const notes = join(dir, 'notes');
      mkdirSync(docs);
      mkdirSync(notes);
      writeFileSync(join(docs, 'guide.md'), '# Guide\n\nHow to start.\n');
      writeFileSync(join(notes, 'idea.md'), '# Idea\n\nA note.\n');

      const names = await withClient(bin, ['serve', '--docs', docs], dir, async (client) => {
        const { tools } = await client.listTools(undefined, { timeout: STEP_MS });
        const outline = await client.callTool({ name: 'docs_outline', arguments: {} }, undefined, {
          timeout: STEP_MS,
        });
        expect(outline.isError).toBeFalsy();
        return tools.map((t) => t.name);
      });
      expect(names).toContain('docs_outline');

      // Without the NODE_PATH pnpm's script runner sets here: it reaches the repository's
      // hoisted packages, better-sqlite3 among them, which a user's install never sees.
      const { NODE_PATH: _, ...env } = outsideEnv();
      const memory = await run(bin, ['tools', '--notes', notes], {
        cwd: dir,
        env,
        timeoutMs: STEP_MS,
      });
      expect(memory.code).not.toBe(0);
      expect(memory.stderr).toContain('SQLITE_UNAVAILABLE');
      expect(memory.stderr).toContain('better-sqlite3');
    },
    TEST_MS,
  );

  it(
    'core + lines: no native module, one SDK and one zod, type-checks and serves',
    async () => {
      const dir = await consumer('core-lines', {
        '@lectern/core': tarballOf('@lectern/core'),
        '@lectern/lines': tarballOf('@lectern/lines'),
        [SDK]: devRange(SDK),
        zod: devRange('zod'),
        '@types/node': typesNode,
      });
      expectOursFromTarballs(dir);
      expect(installed(dir).filter((x) => /sqlite/i.test(x))).toEqual([]);
      expect(versionsOf(dir, SDK)).toHaveLength(1);
      expect(versionsOf(dir, 'zod')).toHaveLength(1);
      await compileServe(dir);
      await expectServes(dir);
      await expectRequire(dir, join(dir, 'package.json'), ['@lectern/core', '@lectern/lines']);
    },
    TEST_MS,
  );

  it(
    `core + lines on the lowest SDK and zod of the peer ranges (${Object.values(PEER_RANGES).join(', ')}): type-checks and serves`,
    async () => {
      const sdk = lowestOf(PEER_RANGES[SDK]);
      const zod = lowestOf(PEER_RANGES.zod);
      const dir = await consumer('lowest', {
        '@lectern/core': tarballOf('@lectern/core'),
        '@lectern/lines': tarballOf('@lectern/lines'),
        [SDK]: sdk,
        zod,
        '@types/node': typesNode,
      });
      expectOursFromTarballs(dir);
      expect(versionsOf(dir, SDK)).toEqual([sdk]);
      expect(versionsOf(dir, 'zod')).toEqual([zod]);
      await compileServe(dir);
      await expectServes(dir);
    },
    TEST_MS,
  );
});
