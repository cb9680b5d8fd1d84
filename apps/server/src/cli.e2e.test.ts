import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, run, scratch } from './test-helpers/spawn.js';

const s = scratch();
afterAll(() => s.cleanup());

/**
 * Runs `lectern <args> | node <reader>` in a shell: lectern's stdout is an OS pipe (64 KiB of
 * buffer) into a second process that reads all of it and reports how many bytes arrived and
 * whether they parse as JSON. (Node's own `stdio: 'pipe'` is a socket with a larger buffer,
 * which hides the bug this guards against.)
 */
function throughPipe(
  args: string[],
): Promise<{ bytes: number; parsed: boolean; code: number | null }> {
  const reader = join(s.dir, 'reader.cjs');
  writeFileSync(
    reader,
    `const b = [];
process.stdin.on('data', (d) => b.push(d)).on('end', () => {
  const text = Buffer.concat(b).toString('utf8');
  let parsed = true;
  try { JSON.parse(text); } catch { parsed = false; }
  process.stdout.write(JSON.stringify({ bytes: Buffer.byteLength(text), parsed }));
});
`,
  );
  const q = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
  const line = `${q(process.execPath)} ${q(BIN)} ${args.map(q).join(' ')}; echo $? > ${q(join(s.dir, 'code'))}`;
  const pipeline = `( ${line} ) | ${q(process.execPath)} ${q(reader)}`;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', pipeline], {
      cwd: s.dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.on('error', reject);
    child.on('close', () => {
      try {
        const code = Number(readFileSync(join(s.dir, 'code'), 'utf8').trim());
        resolve({ ...JSON.parse(out), code });
      } catch (e) {
        reject(e);
      }
    });
  });
}

describe('output through a pipe', () => {
  it.each([
    [['tools', '--json'], 100_000],
    [['lint', '--format', 'json'], 60_000],
    [['snapshot'], 60_000],
  ])(
    'lectern %j writes all of it (more than the 64 KiB a pipe holds)',
    async (args, atLeast) => {
      const r = await throughPipe(args);
      expect(r.parsed).toBe(true);
      expect(r.bytes).toBeGreaterThan(atLeast);
      expect(r.code).toBe(0);
    },
    120_000,
  );

  it('exits quietly when the reader stops early (| head)', async () => {
    const r = await new Promise<{ stderr: string }>((resolve) => {
      const child = spawn(
        'sh',
        ['-c', `"${process.execPath}" "${BIN}" tools --json | head -c 10`],
        {
          cwd: s.dir,
        },
      );
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += String(d);
      });
      child.on('close', () => resolve({ stderr }));
    });
    expect(r.stderr).toBe('');
  }, 120_000);
});

describe('mistakes get a "did you mean"', () => {
  it('suggests the command for a typo', async () => {
    const r = await run(['srve'], { cwd: s.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "srve"; did you mean "serve"?');
  });

  it('suggests the flag for a typo, in lectern and in the lint commands', async () => {
    const serve = await run(['serve', '--prot', '3000'], { cwd: s.dir });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('unknown option --prot; did you mean --port?');
    const lint = await run(['lint', '--formt', 'json'], { cwd: s.dir });
    expect(lint.code).toBe(2);
    expect(lint.stderr).toContain('unknown option --formt; did you mean --format?');
  });

  it('suggests the config key for a typo, at any depth', async () => {
    const cfg = join(s.dir, 'typo.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        docs: [{ id: 'docs', path: './examples/docs' }],
        limts: { linesMaxLines: 50 },
        memory: { sources: [{ id: 'n', path: './examples/notes', exclud: [] }] },
      }),
    );
    const r = await run(['tools', '--config', cfg], { cwd: s.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('limts: unknown key; did you mean "limits"?');
    expect(r.stderr).toContain('memory.sources[0].exclud: unknown key; did you mean "exclude"?');
  });

  it('names the line and column of a JSON syntax error in the config', async () => {
    const cfg = join(s.dir, 'syntax.json');
    writeFileSync(
      cfg,
      '{\n  "docs": [\n    { "id": "docs", "path": "./examples/docs" },\n  ]\n}\n',
    );
    const r = await run(['tools', '--config', cfg], { cwd: s.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not valid JSON at line 4, column 3');
  });
});

describe('lectern tools', () => {
  it('writes nothing into the folders it lists (no memory database)', async () => {
    const dir = join(s.dir, 'listing');
    mkdirSync(join(dir, 'notes'), { recursive: true });
    writeFileSync(join(dir, 'notes', 'a.md'), '# A note\n');
    for (const args of [
      ['tools', '--notes', 'notes'],
      ['tools', '--json', '--preset', 'memoria', '--notes', 'notes'],
      ['snapshot', '--notes', 'notes'],
    ]) {
      const r = await run(args, { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(dir).sort(), args.join(' ')).toEqual(['notes']);
      expect(readdirSync(join(dir, 'notes')), args.join(' ')).toEqual(['a.md']);
    }
  });

  it('--tokens counts each served tool and the total; the 19 native tools stay within 24,000 characters', async () => {
    const r = await run(['tools', '--tokens', '--json'], { cwd: s.dir });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      encoding: string;
      tools: { name: string; tokens: number; chars: number }[];
      server: { toolCount: number; tokens: number; chars: number };
    };
    expect(report.encoding).toBe('o200k_base');
    expect(report.server.toolCount).toBe(19);
    expect(report.tools.reduce((a, t) => a + t.tokens, 0)).toBe(report.server.tokens);
    for (const t of report.tools) expect(t.tokens, t.name).toBeGreaterThan(50);
    // Issue 29: the native tool list (names, titles, descriptions, input schemas as compact JSON)
    // was 40,870 characters; 27,794 before the last cuts, 21,910 now.
    expect(report.server.chars).toBeLessThanOrEqual(22_500);
    // The issue's own measure: the tools/list entries as a client gets them (name, title,
    // description, input schema and annotations; output schemas apart) at most 24,000 characters.
    const listed = await run(['tools', '--json'], { cwd: s.dir });
    expect(listed.code, listed.stderr).toBe(0);
    const tools = (JSON.parse(listed.stdout) as { tools: Record<string, unknown>[] }).tools;
    expect(tools).toHaveLength(19);
    const entries = tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations,
    }));
    const chars = entries.reduce((sum, e) => sum + JSON.stringify(e).length, 0);
    expect(chars).toBeLessThanOrEqual(24_000);
    const table = await run(['tools', '--tokens'], { cwd: s.dir });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^TOOL +TOKENS +OUTPUT SCHEMA +CHARS$/m);
    expect(table.stdout).toMatch(new RegExp(`^TOTAL +${report.server.tokens} `, 'm'));
    expect(table.stdout).toContain('19 tools, o200k_base tokens');
  }, 60_000);
});
