import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countTokens } from './lib/tokens.js';
import { runLintCli, splitCommand } from './run-cli.js';

const fixtures = fileURLToPath(new URL('../test-fixtures/', import.meta.url));
const calibration = fileURLToPath(new URL('../calibration/seeds.jsonl', import.meta.url));
let dir: string;

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runLintCli(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: {},
  });
  return { code, stdout, stderr };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lectern-lint-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const weak = {
  tools: [
    {
      name: 'fetch_doc',
      description: 'Fetch doc.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
    { name: 'list_docs', description: null },
  ],
};

describe('lectern-lint lint', () => {
  it('prints a text table worst first with fixes, and passes a module of good Lectern tools', async () => {
    const r = await run(
      'lint',
      join(fixtures, 'lectern-tools.mjs'),
      '--min-tdqs',
      '4.5',
      '--min-server',
      'A',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/TDQS {2}tier {2}tool/);
    const rows = r.stdout.split('\n').filter((l) => /^ \d\.\d {2}[A-F]/.test(l));
    const values = rows.map((l) => Number(l.slice(0, 4)));
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(values.every((v) => v >= 4.5)).toBe(true);
    expect(r.stdout).toContain('Result: PASS');
  });

  it('exits 1 below a threshold and lists every violation', async () => {
    const file = join(dir, 'tools.json');
    writeFileSync(file, JSON.stringify(weak));
    const r = await run(
      'lint',
      file,
      '--min-tdqs',
      '3',
      '--min-tier',
      'B',
      '--fail-on',
      'no-description,smell',
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Result: FAIL');
    expect(r.stdout).toMatch(/list_docs: TDQS 1\.0 is below 3 \[min-tdqs\]/);
    expect(r.stdout).toContain('[fail-on:no-description]');
    expect(r.stdout.indexOf('list_docs ·')).toBeLessThan(r.stdout.indexOf('fetch_doc ·'));
  });

  it('writes json, sarif, github and markdown formats', async () => {
    const file = join(dir, 'tools.json');
    writeFileSync(
      file,
      `{\n  "tools": [\n    ${JSON.stringify(weak.tools[0])},\n    ${JSON.stringify(weak.tools[1])}\n  ]\n}\n`,
    );
    const json = await run('lint', file, '--format', 'json', '--min-tdqs', '3');
    const report = JSON.parse(json.stdout);
    expect(report.tools[0]).toHaveProperty('contextSignals.inputHash');
    expect(report.server).toHaveProperty('overallScore');
    expect(report.thresholds.passed).toBe(false);
    expect(json.code).toBe(1);

    const sarifFile = join(dir, 'out.sarif');
    const gh = await run(
      'lint',
      file,
      '--format',
      'github',
      '--min-tdqs',
      '3',
      '--sarif',
      sarifFile,
    );
    expect(gh.stdout).toMatch(
      /^::error file=.*tools\.json,line=4,title=TDQS tdqs\/threshold list_docs::list_docs: TDQS 1\.0 is below 3\./m,
    );
    expect(gh.stdout).toMatch(/^::notice title=TDQS summary::/m);
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# Job\n');
    await run('lint', file, '--format', 'json', '--markdown', summary);
    expect(readFileSync(summary, 'utf8')).toMatch(/^# Job\n## TDQS · server/);
    const sarif = JSON.parse(readFileSync(sarifFile, 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    const result = sarif.runs[0].results.find(
      (x: { ruleId: string }) => x.ruleId === 'tdqs/flag/no-description',
    );
    expect(result.level).toBe('error');
    expect(result.locations[0].physicalLocation.region.startLine).toBe(4);
    expect(result.locations[0].logicalLocations[0].name).toBe('list_docs');

    const md = await run('lint', file, '--format', 'markdown', '--output', join(dir, 'report.md'));
    expect(md.stdout).toBe('');
    const text = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(text).toMatch(/^## TDQS · server · overall/);
    expect(text).toContain('| `list_docs` | 1.0 | D |');
  });

  it("reports each tool's context cost in every format and fails past a token budget", async () => {
    const file = join(dir, 'tools.json');
    writeFileSync(file, JSON.stringify(weak));
    // Counted by hand with the o200k_base encoder over the compact canonical JSON of name,
    // description and input schema (the null description leaves only name and schema).
    const fetchCost = countTokens(
      '{"description":"Fetch doc.","inputSchema":{"properties":{"id":{"type":"string"}},"required":["id"],"type":"object"},"name":"fetch_doc"}',
    );
    const listCost = countTokens('{"inputSchema":{"type":"object"},"name":"list_docs"}');
    expect([fetchCost, listCost]).toEqual([33, 14]);

    const json = await run('lint', file, '--format', 'json');
    const report = JSON.parse(json.stdout);
    expect(report.context.encoding).toBe('o200k_base');
    expect(report.context.tools).toEqual([
      { name: 'fetch_doc', tokens: 33, outputSchemaTokens: 0, chars: 135 },
      { name: 'list_docs', tokens: 14, outputSchemaTokens: 0, chars: 52 },
    ]);
    expect(report.context.server).toEqual({
      toolCount: 2,
      tokens: 47,
      outputSchemaTokens: 0,
      chars: 187,
    });
    expect(json.code).toBe(0);

    const text = await run('lint', file);
    expect(text.stdout).toMatch(/TDQS {2}tier {2}tool .* tokens {2}flags/);
    expect(text.stdout).toMatch(/fetch_doc +\d( +\d){5} +33/);
    expect(text.stdout).toContain('fetch_doc · TDQS');
    expect(text.stdout).toContain('· 33 tokens ·');
    expect(text.stdout).toContain('context cost: 47 o200k_base tokens for 2 tools');

    const tool = await run('lint', file, '--max-tool-tokens', '20');
    expect(tool.code).toBe(1);
    expect(tool.stdout).toContain(
      'fetch_doc: costs 33 o200k_base tokens in context, over the budget of 20 (13 over) [max-tool-tokens]',
    );
    expect(tool.stdout).not.toMatch(/list_docs: costs/);
    expect((await run('lint', file, '--max-tool-tokens', '33')).code).toBe(0);

    const server = await run('lint', file, '--max-server-tokens', '46', '--format', 'github');
    expect(server.code).toBe(1);
    expect(server.stdout).toMatch(
      /^::error file=[^,]*tools\.json,line=1,title=TDQS context\/budget::server: the 2 tools cost 47 o200k_base tokens in context, over the budget of 46 \(1 over; largest: fetch_doc 33, list_docs 14\)\./m,
    );
    expect(server.stdout).toMatch(
      /^::notice title=TDQS summary::.*context 47 o200k_base tokens \(largest fetch_doc 33\)/m,
    );
    expect((await run('lint', file, '--max-server-tokens', '47')).code).toBe(0);

    const sarifFile = join(dir, 'budget.sarif');
    const md = await run(
      'lint',
      file,
      '--format',
      'markdown',
      '--max-tool-tokens',
      '20',
      '--sarif',
      sarifFile,
    );
    expect(md.stdout).toContain('Context cost: 47 o200k_base tokens for 2 tools');
    expect(md.stdout).toMatch(/\| Tokens \| Flags \/ smells \|/);
    expect(md.stdout).toMatch(/\| `fetch_doc` \| [\d.]+ \| [A-F] \|( \d \|){6} 33 \|/);
    const sarif = JSON.parse(readFileSync(sarifFile, 'utf8'));
    const run0 = sarif.runs[0];
    expect(run0.properties.contextCost).toMatchObject({
      encoding: 'o200k_base',
      tokens: 47,
      tools: { fetch_doc: { tokens: 33, outputSchemaTokens: 0 } },
    });
    const budget = run0.results.find((x: { ruleId: string }) => x.ruleId === 'context/budget');
    expect(budget.level).toBe('error');
    expect(budget.message.text).toContain('fetch_doc: costs 33 o200k_base tokens');
    expect(run0.tool.driver.rules.map((r: { id: string }) => r.id)).toContain('context/budget');

    for (const bad of ['-1', '2.5', 'many']) {
      const r = await run('lint', file, `--max-tool-tokens=${bad}`);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--max-tool-tokens needs a (whole number of tokens|number)/);
    }
  });

  it('exits 2 with a clear message for unusable input and bad usage', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"tools": [ {"name": ');
    expect(await run('lint', bad)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/bad\.json is not valid JSON/),
    });
    expect(await run('lint', join(dir, 'missing.json'))).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/does not exist/),
    });
    writeFileSync(bad, '{"tools": []}');
    expect(await run('lint', bad)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/lists no tools/),
    });
    expect(await run('lint')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/no target/),
    });
    expect(await run('lint', bad, '--bogus')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Unknown option '--bogus'/),
    });
    expect(await run('lint', bad, '--min-tier', 'Z')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/min tier must be one of/),
    });
    expect(await run('lint', bad, '--fail-on', 'nonsense')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown --fail-on value/),
    });
    expect(await run('lint', bad, '--judge', 'llm')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/base URL/),
    });
    expect(await run('frobnicate')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown command/),
    });
    expect(
      await run('lint', '--timeout', '30000', '--', process.execPath, '-e', 'process.exit(1)'),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/did not start or answer/),
    });
    expect((await run()).code).toBe(2);
    expect((await run('--help')).stdout).toContain(
      'Exit codes: 0 pass, 1 below a threshold, 2 unusable input',
    );
  });

  it('exits 2 with a clear message for a URL that does not answer or never replies', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await run('lint', `http://127.0.0.1:${port}/mcp`, '--timeout', '30000');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^lectern-lint: http:\/\/127\.0\.0\.1:\d+\/mcp did not answer as an MCP Streamable HTTP server: .*ECONNREFUSED/m,
    );
    expect(refused.stdout).toBe('');

    // A server that accepts the request and never replies hits the timeout instead of hanging.
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
      const hung = await run('lint', url, '--timeout', '500');
      expect(hung.code).toBe(2);
      expect(hung.stderr).toContain('did not complete the MCP handshake within 500 ms');
      // The message says how to wait longer.
      expect(hung.stderr).toContain('--timeout');
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }

    // A web page that is not an MCP endpoint.
    const page = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not here</h1>');
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/mcp`;
      const notMcp = await run('lint', url, '--timeout', '30000');
      expect(notMcp.code).toBe(2);
      expect(notMcp.stderr).toMatch(/did not answer as an MCP Streamable HTTP server/);
    } finally {
      page.closeAllConnections();
      await new Promise<void>((r) => page.close(() => r()));
    }
  });

  it('lints a stdio server given after -- or with --command', async () => {
    const server = join(fixtures, 'stdio-server.mjs');
    const a = await run('lint', '--format', 'json', '--', process.execPath, server);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout).server.serverName).toBe('fixture-notes');
    const b = await run(
      'lint',
      '--format',
      'json',
      '--command',
      `"${process.execPath}" "${server}"`,
    );
    expect(JSON.parse(b.stdout).tools).toHaveLength(3);
    // A live server has no file: SARIF results carry a logical location only...
    const sarif = JSON.parse(
      (await run('lint', '--format', 'sarif', '--min-tdqs', '5', '--', process.execPath, server))
        .stdout,
    );
    const locations = sarif.runs[0].results.flatMap((r: { locations: unknown[] }) => r.locations);
    expect(locations.length).toBeGreaterThan(0);
    for (const l of locations) {
      expect(l).not.toHaveProperty('physicalLocation');
      expect(l).toHaveProperty('logicalLocations');
    }
    // ...unless --location names a file.
    const located = JSON.parse(
      (
        await run(
          'lint',
          '--format',
          'sarif',
          '--min-tdqs',
          '5',
          '--location',
          'src/server.ts',
          '--',
          process.execPath,
          server,
        )
      ).stdout,
    );
    expect(located.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe(
      'src/server.ts',
    );
  });

  it('names the command the user typed in help and errors', async () => {
    let out = '';
    let err = '';
    const io = {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      program: 'lectern',
    };
    expect(await runLintCli(['lint', '--help'], io)).toBe(0);
    expect(out).toContain('lectern lint [target] [options]');
    expect(out).not.toContain('lectern-lint');
    expect(await runLintCli(['lint', '--bogus'], io)).toBe(2);
    expect(err).toMatch(/^lectern: /);
    expect(err).toContain('Run "lectern --help"');
    expect((await run('--help')).stdout).toContain('lectern-lint lint [target]');
  });
});

describe('lectern-lint snapshot, diff and calibrate', () => {
  it('snapshots a target and diffs two snapshots into a changeset', async () => {
    const oldFile = join(dir, 'old.json');
    const snap = await run('snapshot', join(fixtures, 'lectern-tools.mjs'), '--output', oldFile);
    expect(snap.code).toBe(0);
    const old = JSON.parse(readFileSync(oldFile, 'utf8'));
    expect(old.tools.map((t: { name: string }) => t.name)).toEqual([
      'notes_outline',
      'notes_read',
      'notes_search',
    ]);
    const next = structuredClone(old);
    next.tools[1].description = 'Read one section.';
    next.tools.pop();
    const newFile = join(dir, 'new.json');
    writeFileSync(newFile, JSON.stringify(next));
    const csDir = join(dir, '.changeset');
    const r = await run(
      'diff',
      oldFile,
      newFile,
      '--old-label',
      'v1.0.0',
      '--new-label',
      'v1.1.0',
      '--new-date',
      'Jan 2, 2027',
      '--changeset',
      '@lectern/notes',
      '--changeset-dir',
      csDir,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Changed 1 schema field changed v1.1.0 Jan 2, 2027');
    expect(r.stdout).toContain('changed Description');
    expect(r.stdout).toContain('Removed v1.1.0');
    expect(r.stdout).toMatch(/Context cost \(o200k_base tokens\): \d+ -> \d+ \(−\d+\)/);
    expect(r.stdout).toMatch(/notes_read +\d+ -> +\d+ +−\d+/);
    expect(r.stdout).toMatch(/notes_search +\d+ -> +— +−\d+ +\(output schema −\d+\)/);
    expect(r.stdout).not.toMatch(/^ +notes_outline /m);
    const files = readdirSync(csDir);
    expect(files).toHaveLength(1);
    expect(readFileSync(join(csDir, files[0]!), 'utf8')).toMatch(
      /^---\n"@lectern\/notes": major\n---/,
    );
    const same = await run(
      'diff',
      oldFile,
      oldFile,
      '--changeset',
      '@lectern/notes',
      '--changeset-dir',
      join(dir, 'none'),
      '--format',
      'json',
    );
    expect(JSON.parse(same.stdout).bump).toBe('none');
    expect(JSON.parse(same.stdout).contextCost.delta).toBe(0);
    const jsonDiff = JSON.parse((await run('diff', oldFile, newFile, '--format', 'json')).stdout);
    const readChange = jsonDiff.contextCost.tools.find(
      (t: { name: string }) => t.name === 'notes_read',
    );
    expect(readChange.after.tokens - readChange.before.tokens).toBe(readChange.delta);
    expect(readChange.delta).toBeLessThan(0);
    expect(jsonDiff.contextCost.delta).toBe(
      jsonDiff.contextCost.after.tokens - jsonDiff.contextCost.before.tokens,
    );
    const mdDiff = await run('diff', oldFile, newFile, '--format', 'markdown');
    expect(mdDiff.stdout).toMatch(/### Context cost \(o200k_base tokens\)/);
    expect(mdDiff.stdout).toMatch(/\| `notes_read` \| \d+ \| \d+ \| −\d+ \| ±0 \|/);
    expect(same.stderr).toContain('no changeset written');
    expect(existsSync(join(dir, 'none'))).toBe(false);
    expect((await run('diff', oldFile)).code).toBe(2);
  });

  it('reproduces the seed 000 changelog from the CLI', async () => {
    const r = await run(
      'diff',
      join(fixtures, 'seed-000/v0.1.0.json'),
      join(fixtures, 'seed-000/v0.1.1.json'),
      '--new-date',
      'Nov 6, 2026',
      '--old-date',
      'Nov 5, 2026',
    );
    expect(r.stdout).toContain('Changed 7 schema fields changed v0.1.1 Nov 6, 2026');
    expect(r.stdout).toContain('First observed v0.1.0 Nov 5, 2026');
  });

  it('tells two snapshots of the same version apart by their file names', async () => {
    const a = join(dir, 'before.json');
    const b = join(dir, 'after.json');
    const tools = (description: string) => ({
      server: { name: 'x', version: '0.2.0' },
      tools: [{ name: 't', description, inputSchema: { type: 'object', properties: {} } }],
    });
    writeFileSync(a, JSON.stringify(tools('Read one note.')));
    writeFileSync(b, JSON.stringify(tools('Read one note by id.')));
    const r = await run('diff', a, b);
    expect(r.stdout).toContain('Schema changelog before.json -> after.json');
    expect(r.stdout).not.toContain('v0.2.0 -> v0.2.0');
    const md = await run('diff', a, b, '--format', 'markdown', '--old-label', 'v0.2.0');
    expect(md.stdout).toContain('v0.2.0 → after.json');
  });

  it('prints calibration tables and checks the bounds', async () => {
    const r = await run('calibrate', calibration, '--check');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/purpose_clarity\s+5\s+\d\/5/);
    expect(r.stdout).toContain('all examples within bounds');
    const json = JSON.parse((await run('calibrate', calibration, '--format', 'json')).stdout);
    expect(json.count).toBe(5);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"id": "x"}\n');
    expect(await run('calibrate', bad)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/line 1: tool/),
    });
  });

  it('splits quoted command lines', () => {
    expect(splitCommand(`node "my server.js" --root 'a b' x\\ y`)).toEqual([
      'node',
      'my server.js',
      '--root',
      'a b',
      'x y',
    ]);
    expect(() => splitCommand('node "open')).toThrow(/unclosed/);
  });
});
