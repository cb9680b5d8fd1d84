import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, rawRequest } from './test-helpers/http.js';
import {
  call,
  connectStdio,
  eventually,
  type Loose,
  run,
  scratch,
  startHttpServer,
} from './test-helpers/spawn.js';

const s = scratch();
afterAll(() => s.cleanup());

describe('lectern serve with no config (the bundled examples) over stdio', () => {
  let client: Client;
  let tools: Array<{ name: string; inputSchema: Loose }>;
  beforeAll(async () => {
    ({ client } = await connectStdio([], s.dir));
    tools = (await client.listTools()).tools as typeof tools;
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  it('serves every package', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'docs_chunk',
        'docs_get_section',
        'docs_outline',
        'docs_read',
        'docs_search',
        'docs_where',
        'list_files',
        'list_pages',
        'list_wikis',
        'memory_list_sources',
        'memory_read_fragment',
        'memory_reindex',
        'memory_search',
        'read_artifact',
        'read_page',
        'read_text',
        'search_text',
        'search_wiki',
        'write_batch',
      ].sort(),
    );
  });

  it('answers every tool successfully', async () => {
    const ok = async (name: string, args: Record<string, unknown> = {}) => {
      const r = await call(client, name, args);
      expect(r.isError, `${name}: ${r.text}`).toBe(false);
      return r.data as Loose;
    };
    const found = await ok('docs_search', { query: 'lease' });
    const anchor = found.results[0].anchor;
    await ok('docs_read', { anchor });
    await ok('docs_outline', { doc_id: 'guide' });
    await ok('docs_get_section', { path: 'guide.md', heading: 'Install' });
    await ok('docs_where', { query: 'how do retries work' });
    await ok('docs_chunk', { doc_id: 'guide' });
    await ok('read_text', { workspace: 'examples', path: 'docs/faq.md', line_count: 5 });
    await ok('list_files', { workspace: 'examples' });
    await ok('search_text', { workspace: 'examples', query: 'queue' });
    await ok('read_artifact', { workspace: 'examples', path: 'docs/faq.md', length: 8 });
    await ok('list_wikis');
    const pages = await ok('list_pages', { wiki: 'examples' });
    await ok('search_wiki', { wiki: 'examples', query: 'varroa' });
    const page = pages.pages.find((p: Loose) => p.path.startsWith('wiki/'));
    const read = await ok('read_page', { wiki: 'examples', path: page.path, raw: true });
    const dry = await ok('write_batch', {
      wiki: 'examples',
      dry_run: true,
      operations: [
        {
          op: 'append',
          path: page.path,
          content: 'dry run only\n',
          expected_version: read.version,
        },
      ],
    });
    expect(dry.applied).toBe(false);
    const hits = await ok('memory_search', { query: 'postgres' });
    await ok('memory_read_fragment', { path: hits.results[0].path });
    await ok('memory_list_sources');
    await ok('memory_reindex', {});
  }, 120_000);

  it('refuses bad input on every tool with an error naming the parameter', async () => {
    for (const t of tools) {
      const props = Object.entries(t.inputSchema.properties ?? {}) as Array<[string, Loose]>;
      if (props.length === 0) continue;
      const [name, schema] = props[0]!;
      const wrong = schema.type === 'string' ? 12345 : 'not-a-valid-value';
      const r = await call(client, t.name, { [name]: wrong });
      expect(r.isError, `${t.name} accepted ${name}`).toBe(true);
      expect(r.text).toContain(name);
    }
  });

  it('refuses a path outside its root with a clear error and keeps serving', async () => {
    const r = await call(client, 'read_text', {
      workspace: 'examples',
      path: '../../../../etc/passwd',
    });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe('PATH_ESCAPES_ROOT');
    const again = await call(client, 'list_wikis');
    expect(again.isError).toBe(false);
  });
});

/** A raw initialize POST with exactly these headers. */
const rawPost = (url: string, headers: Record<string, string>) =>
  rawRequest(url, { headers, body: INITIALIZE });

describe('lectern serve --http', () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  const token = 'e2e-secret-token';
  beforeAll(async () => {
    server = await startHttpServer(['--preset', 'wiki', '--wiki', `garden=${s.examples}/wiki`], {
      cwd: s.dir,
      env: { LECTERN_TOKEN: token },
    });
  }, 120_000);
  afterAll(() => {
    server?.child.kill('SIGTERM');
  });

  const connect = async (withToken = true) => {
    const client = new Client({ name: 'http-e2e', version: '0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: withToken ? { headers: { authorization: `Bearer ${token}` } } : {},
    });
    await client.connect(transport);
    return client;
  };

  it('prints its URL and tools, and answers /health', async () => {
    await eventually(server.stderr, 'list_wikis');
    const health = await fetch(server.url.replace(/\/mcp$/, '/health'), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', tools: 5 });
  });

  it('serves two concurrent clients in isolated sessions', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const [ra, rb] = await Promise.all([
      call(a, 'read_page', { wiki: 'garden', path: 'index.md' }),
      call(b, 'search_wiki', { wiki: 'garden', query: 'swarm' }),
    ]);
    expect(ra.isError).toBe(false);
    expect(rb.isError).toBe(false);
    await a.close();
    // closing one session leaves the other working
    const again = await call(b, 'list_wikis');
    expect(again.isError).toBe(false);
    await b.close();
  });

  it('refuses a missing or wrong bearer token with 401', async () => {
    await expect(connect(false)).rejects.toThrow();
    const wrong = await rawPost(server.url, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const none = await rawPost(server.url, {});
    expect(none.status).toBe(401);
  });

  it('refuses a Host header that is not allowed (DNS rebinding) with 403', async () => {
    const r = await rawPost(server.url, {
      authorization: `Bearer ${token}`,
      host: 'evil.example:80',
    });
    expect(r.status).toBe(403);
    expect(r.body).toContain('evil.example');
    const origin = await rawPost(server.url, {
      authorization: `Bearer ${token}`,
      origin: 'http://evil.example',
    });
    expect(origin.status).toBe(403);
  });

  it('finishes a running call before stopping on SIGTERM', async () => {
    const notes = join(s.dir, 'many-notes');
    mkdirSync(notes);
    for (let i = 0; i < 3000; i++) {
      writeFileSync(
        join(notes, `note-${i}.md`),
        `# Note ${i}\n\n${'lorem ipsum dolor sit amet '.repeat(40)}\n`,
      );
    }
    const busy = await startHttpServer(['--notes', notes, '--db', join(s.dir, 'busy.db')], {
      cwd: s.dir,
    });
    const exited = new Promise<number | null>((resolve) =>
      busy.child.on('exit', (code) => resolve(code)),
    );
    const client = new Client({ name: 'busy', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(busy.url)));
    const running = call(client, 'memory_reindex', { full: true });
    await new Promise((r) => setTimeout(r, 150));
    busy.child.kill('SIGTERM');
    const result = await running;
    expect(result.isError, result.text).toBe(false);
    expect(result.data.added).toBe(3000);
    expect(await exited).toBe(0);
    await eventually(busy.stderr, /SIGTERM: finishing 1 running call/);
  }, 120_000);

  it('stops cleanly on SIGTERM', async () => {
    const other = await startHttpServer(['--preset', 'atlas'], { cwd: s.dir });
    const exited = new Promise<number | null>((resolve) =>
      other.child.on('exit', (code) => resolve(code)),
    );
    other.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('lectern commands', () => {
  it('prints --version and --help', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect((await run(['--version'], { cwd: s.dir })).stdout.trim()).toBe(pkg.version);
    for (const cmd of ['serve', 'tools', 'index', 'init']) {
      const r = await run([cmd, '--help'], { cwd: s.dir });
      expect(r.code, cmd).toBe(0);
      expect(r.stdout, cmd).toContain(`lectern ${cmd}`);
    }
  });

  it('fails at start with every config problem listed, before serving', async () => {
    const cfg = join(s.dir, 'broken.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        docs: [{ id: 'docs', path: './missing' }],
        wikis: [{ id: 'w', path: './broken.json' }],
      }),
    );
    const r = await run(['serve', '--config', cfg], { cwd: s.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('docs[0].path');
    expect(r.stderr).toContain('does not exist');
    expect(r.stderr).toContain('wikis[0].path');
    expect(r.stderr).toContain('is a file, not a folder');
    const tools = join(s.dir, 'tools.json');
    writeFileSync(
      tools,
      JSON.stringify({
        docs: [{ id: 'docs', path: './examples/docs' }],
        tools: ['docs_read', 'docs_raed'],
        rename: { docs_read: 'docs_search' },
        packages: ['sections'],
      }),
    );
    const t = await run(['tools', '--config', tools], { cwd: s.dir });
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('unknown tool "docs_raed"');
  });

  it('reports a duplicate tool name after renames and a limit out of range', async () => {
    const cfg = join(s.dir, 'dupe.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        docs: [{ id: 'docs', path: './examples/docs' }],
        rename: { docs_read: 'docs_search' },
      }),
    );
    const r = await run(['tools', '--config', cfg], { cwd: s.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('used twice');
    writeFileSync(
      cfg,
      JSON.stringify({
        docs: [{ id: 'docs', path: './examples/docs' }],
        limits: { linesMaxLines: 999 },
      }),
    );
    const l = await run(['tools', '--config', cfg], { cwd: s.dir });
    expect(l.code).toBe(2);
    expect(l.stderr).toContain('limits.linesMaxLines');
  });

  it('serves single tools, renamed and prefixed, from a config file', async () => {
    const cfg = join(s.dir, 'pick.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        docs: [{ id: 'docs', path: './examples/docs' }],
        workspaces: [{ id: 'ex', path: './examples' }],
        tools: ['docs_read', 'read_text'],
        rename: { docs_read: 'read_section' },
        prefix: 'kb_',
      }),
    );
    const r = await run(['tools', '--json', '--config', cfg], { cwd: s.dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).tools.map((t: Loose) => t.name)).toEqual([
      'kb_read_section',
      'kb_read_text',
    ]);
  });

  it('init writes a starter config once', async () => {
    const dir = join(s.dir, 'init');
    mkdirSync(dir);
    const first = await run(['init'], { cwd: dir });
    expect(first.code).toBe(0);
    expect(existsSync(join(dir, 'lectern.config.json'))).toBe(true);
    const again = await run(['init'], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--force');
  });

  it('index builds the memory index with progress', async () => {
    const r = await run(
      ['index', '--notes', `${s.examples}/notes`, '--db', join(s.dir, 'idx.db')],
      { cwd: s.dir },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).added).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/\d+\/\d+ files/);
  });

  it('--watch-notes serves memory with watched note folders; without notes it is refused', async () => {
    const notes = join(s.dir, 'watched-notes');
    mkdirSync(join(notes, 'sub'), { recursive: true });
    writeFileSync(join(notes, 'a.md'), '# Alpha\n\nFirst note.\n');
    const { client } = await connectStdio(
      ['--notes', notes, '--db', join(s.dir, 'watched.db'), '--watch-notes'],
      s.dir,
    );
    try {
      expect((await call(client, 'memory_reindex')).data.added).toBe(1);
      writeFileSync(join(notes, 'sub', 'b.md'), '# Beta\n\nAn axolotl.\n');
      const second = await call(client, 'memory_reindex');
      expect(second.data).toMatchObject({ added: 1, files: 2 });
      const found = await call(client, 'memory_search', { query: 'axolotl' });
      expect(found.data.results.map((r: Loose) => r.path)).toEqual(['notes/sub/b.md']);
    } finally {
      await client.close();
    }
    // The same from a config file.
    const config = join(s.dir, 'watch.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        memory: {
          sources: [{ id: 'notes', path: notes }],
          watch: true,
          db: join(s.dir, 'watched2.db'),
        },
      }),
    );
    const indexed = await run(['index', '--config', config], { cwd: s.dir });
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(JSON.parse(indexed.stdout).files).toBe(2);

    const refused = await run(['tools', '--docs', join(s.examples, 'docs'), '--watch-notes'], {
      cwd: s.dir,
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--watch-notes');
  });

  it('lint scores its own tools and diff compares snapshots', async () => {
    const lint = await run(['lint', '--preset', 'harness', '--format', 'json'], { cwd: s.dir });
    expect(lint.code, lint.stderr).toBe(0);
    const report = JSON.parse(lint.stdout);
    expect(JSON.stringify(report)).toContain('read_project_text');
    const a = join(s.dir, 'a.json');
    const b = join(s.dir, 'b.json');
    expect((await run(['snapshot', '--preset', 'atlas', '--output', a], { cwd: s.dir })).code).toBe(
      0,
    );
    expect(
      (await run(['snapshot', '--preset', 'md-chunk', '--output', b], { cwd: s.dir })).code,
    ).toBe(0);
    const diff = await run(['diff', a, b], { cwd: s.dir });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('atlas_read');
    // The diff ends with each tool's change in context tokens; the atlas tools are gone in the
    // md-chunk snapshot, so each is listed with its whole cost removed.
    expect(diff.stdout).toMatch(/Context cost \(o200k_base tokens\): \d+ -> \d+/);
    const harnessRead = report.context.tools.find(
      (t: { name: string }) => t.name === 'read_project_text',
    );
    expect(harnessRead.tokens).toBeGreaterThan(0);
    expect(diff.stdout).toMatch(/atlas_read +\d+ -> +— +−\d+/);
  });

  it('lint reports the context cost and fails past a token budget, naming the tool', async () => {
    const json = await run(['lint', '--preset', 'harness', '--format', 'json'], { cwd: s.dir });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      context: {
        encoding: string;
        tools: { name: string; tokens: number }[];
        server: { tokens: number };
      };
    };
    expect(report.context.encoding).toBe('o200k_base');
    const costs = report.context.tools.map((t) => t.tokens);
    expect(report.context.server.tokens).toBe(costs.reduce((x, y) => x + y, 0));
    const dearest = [...report.context.tools].sort((x, y) => y.tokens - x.tokens)[0]!;
    const budget = dearest.tokens - 1;
    const over = await run(['lint', '--preset', 'harness', '--max-tool-tokens', String(budget)], {
      cwd: s.dir,
    });
    expect(over.code).toBe(1);
    expect(over.stdout).toContain(
      `${dearest.name}: costs ${dearest.tokens} o200k_base tokens in context, over the budget of ${budget} (1 over) [max-tool-tokens]`,
    );
    const within = await run(
      ['lint', '--preset', 'harness', '--max-server-tokens', String(report.context.server.tokens)],
      { cwd: s.dir },
    );
    expect(within.code, within.stdout).toBe(0);
  });
});
