import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { connectTools } from '@lectern/core/testing';
import { runLintCli } from '@lectern/lint';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  type Composition,
  compose,
  configFromFlags,
  defaultConfig,
  presetConfig,
  type RootFlags,
} from './compose.js';
import {
  type Config,
  ConfigError,
  configJsonSchema,
  loadConfigFile,
  PRESET_NAMES,
  type PresetName,
} from './config.js';
import { type HttpHandle, startHttp } from './http.js';
import { createLogger, LOG_LEVELS, type Logger, type LogLevel } from './log.js';
import { createMcpServer } from './server.js';
import { VERSION } from './version.js';

const HELP: Record<string, string> = {
  main: `lectern ${VERSION}: serve Lectern MCP tools (docs sections, file lines, wiki, memory) and lint tool descriptions.

Usage: lectern <command> [options]

Commands:
  serve      Serve tools over stdio (default) or Streamable HTTP (--http)
  tools      Print the composed tool list (table, or --json for tools/list JSON)
  index      Build or refresh the memory index, with progress
  init       Write a starter lectern.config.json
  lint       Score tool descriptions on TDQS (this server's tools by default)
  diff       Changelog between two tools/list snapshots
  snapshot   Write a tools/list snapshot (this server's tools by default)

Run 'lectern <command> --help' for a command's options. 'lectern --version' prints ${VERSION}.`,
  roots: `What to serve (default: lectern.config.json in the current folder, else the bundled examples):
  --config FILE        Config file (JSON; see lectern.schema.json)
  --preset NAME        One of: ${PRESET_NAMES.join(', ')}
  --docs [ID=]DIR      Markdown docs root (repeatable)
  --workspace [ID=]DIR Project folder for line reads (repeatable)
  --wiki [ID=]DIR      Obsidian-style wiki (repeatable)
  --notes [ID=]DIR     Notes folder for the memory index (repeatable)
  --db FILE            Memory database file
  --log-level LEVEL    ${LOG_LEVELS.join(', ')} (default info; logs go to stderr)`,
  serve: `Usage: lectern serve [options]

Serves over stdio unless --http is given.
  --http               Serve Streamable HTTP at /mcp (and GET /health)
  --port N             Port (default 3000; 0 picks a free port)
  --host ADDR          Interface to bind (default 127.0.0.1)
  --token-env VAR      Require 'Authorization: Bearer <$VAR>' (default variable LECTERN_TOKEN, if set)
  --allowed-host H     Also accept this Host header (repeatable; loopback is always accepted)
  --allowed-origin O   Accept requests with this Origin header (repeatable)`,
  tools: `Usage: lectern tools [options]

  --json               Print the tools/list result as JSON instead of a table`,
  index: `Usage: lectern index [options]

Builds or refreshes the memory index of the configured notes.
  --full               Rebuild from scratch instead of updating what changed`,
  init: `Usage: lectern init [FILE] [--force]

Writes a starter config (default lectern.config.json) that serves ./docs, this folder, ./wiki and
./notes; edit it to taste. Refuses to overwrite an existing file unless --force is given.`,
};

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** The lint package's io shape over ours. */
const lintIo = (io: Io) => ({
  stdout: { write: io.stdout },
  stderr: { write: io.stderr },
  program: 'lectern',
});

const defaultIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

const OPTIONS = {
  config: { type: 'string' },
  preset: { type: 'string' },
  docs: { type: 'string', multiple: true },
  workspace: { type: 'string', multiple: true },
  wiki: { type: 'string', multiple: true },
  notes: { type: 'string', multiple: true },
  db: { type: 'string' },
  'log-level': { type: 'string' },
  http: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  'token-env': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  json: { type: 'boolean' },
  full: { type: 'boolean' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

class UsageError extends Error {}

/** Chooses the config: --preset, --config, root flags, ./lectern.config.json, or the examples. */
export function resolveConfig(values: Values, cwd = process.cwd()): Config {
  const flags: RootFlags = {
    ...(values.docs ? { docs: values.docs } : {}),
    ...(values.workspace ? { workspaces: values.workspace } : {}),
    ...(values.wiki ? { wikis: values.wiki } : {}),
    ...(values.notes ? { notes: values.notes } : {}),
    ...(values.db ? { db: values.db } : {}),
  };
  if (values.preset !== undefined) {
    if (!(PRESET_NAMES as readonly string[]).includes(values.preset)) {
      throw new UsageError(
        `unknown preset "${values.preset}"; choose one of: ${PRESET_NAMES.join(', ')}`,
      );
    }
    if (values.config)
      throw new UsageError('--preset and --config cannot be combined; put "preset" in the config');
    return presetConfig(values.preset as PresetName, flags, cwd);
  }
  if (values.config) return loadConfigFile(resolve(cwd, values.config));
  if (Object.keys(flags).length > 0) return configFromFlags(flags, cwd);
  const local = join(cwd, 'lectern.config.json');
  if (existsSync(local)) return loadConfigFile(local);
  return defaultConfig();
}

async function listedTools(composition: Composition) {
  const c = await connectTools(composition.tools, composition.registerOptions);
  try {
    return (await c.client.listTools()).tools;
  } finally {
    await c.close();
  }
}

function flag(
  a:
    | {
        readOnlyHint?: boolean;
        destructiveHint?: boolean;
        idempotentHint?: boolean;
        openWorldHint?: boolean;
      }
    | undefined,
) {
  if (!a) return '';
  return [
    a.readOnlyHint ? 'read-only' : 'writes',
    a.destructiveHint ? 'destructive' : '',
    a.idempotentHint ? 'idempotent' : '',
    a.openWorldHint ? 'open-world' : '',
  ]
    .filter(Boolean)
    .join(', ');
}

async function cmdTools(composition: Composition, values: Values, io: Io): Promise<number> {
  const tools = await listedTools(composition);
  if (values.json) {
    io.stdout(`${JSON.stringify({ tools }, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(4, ...tools.map((t) => t.name.length));
  io.stdout(`${'TOOL'.padEnd(width)}  PARAMETERS / HINTS\n`);
  for (const t of tools) {
    const params = Object.keys((t.inputSchema.properties ?? {}) as object).join(', ');
    io.stdout(`${t.name.padEnd(width)}  (${params}) [${flag(t.annotations)}]\n`);
  }
  io.stdout(`${tools.length} tools\n`);
  return 0;
}

async function cmdIndex(composition: Composition, values: Values, io: Io): Promise<number> {
  const store = composition.memory;
  if (!store) {
    io.stderr(
      'lectern index: no memory sources are configured (use --notes DIR or "memory" in the config)\n',
    );
    return 2;
  }
  const tty = process.stderr.isTTY;
  let last = '';
  const result = await store.reindex({
    full: values.full ?? false,
    onProgress: (done: number, total: number) => {
      const width = 30;
      const filled = total > 0 ? Math.round((done / total) * width) : width;
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} files`;
      if (tty) io.stderr(`\r${line}`);
      else if (done === total || line.slice(0, 34) !== last.slice(0, 34)) io.stderr(`${line}\n`);
      last = line;
    },
  });
  if (tty) io.stderr('\n');
  io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  return 0;
}

function cmdInit(positionals: string[], values: Values, io: Io, cwd: string): number {
  const file = resolve(cwd, positionals[0] ?? 'lectern.config.json');
  if (existsSync(file) && !values.force) {
    io.stderr(`lectern init: ${file} already exists; pass --force to overwrite it\n`);
    return 1;
  }
  const starter = {
    $schema: 'https://unpkg.com/lectern/lectern.schema.json',
    name: 'my-knowledge',
    docs: [{ id: 'docs', path: './docs' }],
    workspaces: [{ id: 'project', path: '.' }],
    wikis: [{ id: 'wiki', path: './wiki', schemaFile: 'SCHEMA.md' }],
    memory: { sources: [{ id: 'notes', path: './notes' }] },
    rename: {},
    prefix: '',
    locale: 'en',
  };
  writeFileSync(file, `${JSON.stringify(starter, null, 2)}\n`);
  io.stdout(
    `wrote ${file}; create the folders it names (or edit them), then run: lectern serve --config ${file}\n`,
  );
  return 0;
}

async function cmdLintFamily(
  command: string,
  rest: string[],
  values: Values,
  io: Io,
  cwd: string,
): Promise<number> {
  // With no target, lint (or snapshot) this server's own composed tools.
  const { root, rest: passthrough } = splitRootFlags(rest);
  const hasRootFlags = root.length > 0;
  const needsSelf =
    (command === 'lint' || command === 'snapshot') && (hasRootFlags || !hasPositional(passthrough));
  if (!needsSelf) return runLintCli([command, ...passthrough], lintIo(io));
  const composition = compose(resolveConfig(values, cwd));
  const dir = mkdtempSync(join(tmpdir(), 'lectern-self-'));
  try {
    const file = join(dir, 'tools.json');
    writeFileSync(file, JSON.stringify({ tools: await listedTools(composition) }));
    return await runLintCli([command, file, ...passthrough], lintIo(io));
  } finally {
    composition.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const LINT_BOOLEAN_FLAGS = new Set(['--check', '--help', '-h', '--version', '-v']);

/** True when the lint arguments name a target: a bare word that is not an option's value. */
function hasPositional(args: string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return i + 1 < args.length;
    if (!a.startsWith('-') || a === '-') return true;
    if (!a.includes('=') && !LINT_BOOLEAN_FLAGS.has(a)) i++;
  }
  return false;
}

const ROOT_FLAGS = new Set([
  '--config',
  '--preset',
  '--docs',
  '--workspace',
  '--wiki',
  '--notes',
  '--db',
  '--log-level',
]);
/**
 * Splits lint/diff/snapshot arguments into lectern's own root flags (what to serve) and the
 * rest, which goes to the lint unchanged; everything after `--` belongs to the rest.
 */
function splitRootFlags(args: string[]): { root: string[]; rest: string[] } {
  const root: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    if (!ROOT_FLAGS.has(name)) {
      rest.push(a);
      continue;
    }
    root.push(a);
    if (!a.includes('=') && i + 1 < args.length) root.push(args[++i]!);
  }
  return { root, rest };
}

async function cmdServe(
  composition: Composition,
  values: Values,
  log: Logger,
  io: Io,
): Promise<number> {
  let closing = false;
  const shutdown = (stop: () => Promise<void>) => async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info(`${signal}: finishing ${composition.inFlight()} running call(s), then stopping`);
    await composition.idle(10_000);
    await stop();
    composition.close();
    process.exit(0);
  };
  if (values.http) {
    const port = values.port === undefined ? 3000 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`--port must be a whole number from 0 to 65535, got "${values.port}"`);
    }
    const tokenVar = values['token-env'] ?? 'LECTERN_TOKEN';
    const token = process.env[tokenVar];
    if (values['token-env'] && !token) {
      throw new UsageError(`--token-env ${tokenVar}: that environment variable is not set`);
    }
    // Signal handlers go in before the URL is announced: a client may stop us right after.
    let handle: HttpHandle | undefined;
    const stop = shutdown(async () => handle?.close());
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
    handle = await startHttp({
      createServer: () => createMcpServer(composition, log),
      host: values.host ?? '127.0.0.1',
      port,
      ...(token ? { token } : {}),
      allowedHosts: values['allowed-host'] ?? [],
      allowedOrigins: values['allowed-origin'] ?? [],
      toolCount: composition.names.length,
      log,
    });
    io.stderr(
      `lectern ${VERSION} serving ${composition.names.length} tools at ${handle.url}${token ? ' (bearer token required)' : ''}\n` +
        `  ${composition.names.join(', ')}\n` +
        `  health: ${handle.url.replace(/\/mcp$/, '/health')}\n`,
    );
    return new Promise<number>(() => {});
  }
  const server = createMcpServer(composition, log);
  const stop = shutdown(() => server.close());
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.stdin.once('end', () => void stop('stdin closed'));
  await server.connect(new StdioServerTransport());
  log.info(`serving ${composition.names.length} tools over stdio: ${composition.names.join(', ')}`);
  return new Promise<number>(() => {});
}

/** Runs the `lectern` command line; resolves to the exit code (serve never resolves). */
export async function main(
  argv: string[],
  io: Io = defaultIo,
  cwd = process.cwd(),
): Promise<number> {
  const [command = 'help', ...rest] = argv;
  if (command === '--version' || command === '-v') {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    io.stdout(`${HELP.main}\n\n${HELP.roots}\n`);
    return 0;
  }
  if (command === 'lint' || command === 'diff' || command === 'snapshot') {
    if (rest.includes('--help') || rest.includes('-h'))
      return runLintCli([command, '--help'], lintIo(io));
    try {
      const rootArgs = splitRootFlags(rest).root;
      const { values } = parseArgs({
        args: rootArgs,
        options: OPTIONS,
        allowPositionals: true,
        strict: true,
      });
      return await cmdLintFamily(command, rest, values, io, cwd);
    } catch (e) {
      return reportError(e, io);
    }
  }
  if (!['serve', 'tools', 'index', 'init'].includes(command)) {
    io.stderr(`lectern: unknown command "${command}"\n\n${HELP.main}\n`);
    return 2;
  }
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    io.stderr(`lectern ${command}: ${(e as Error).message}\n\n${HELP[command]}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${HELP[command]}\n\n${command === 'init' ? '' : HELP.roots}\n`);
    return 0;
  }
  if (values.version) {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const level = (values['log-level'] ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    io.stderr(`lectern: --log-level must be one of ${LOG_LEVELS.join(', ')}\n`);
    return 2;
  }
  const log = createLogger(level, io.stderr);
  try {
    if (command === 'init') return cmdInit(positionals, values, io, cwd);
    const composition = compose(resolveConfig(values, cwd));
    if (command === 'tools') {
      try {
        return await cmdTools(composition, values, io);
      } finally {
        composition.close();
      }
    }
    if (command === 'index') {
      try {
        return await cmdIndex(composition, values, io);
      } finally {
        composition.close();
      }
    }
    return await cmdServe(composition, values, log, io);
  } catch (e) {
    return reportError(e, io);
  }
}

function reportError(e: unknown, io: Io): number {
  if (e instanceof ConfigError || e instanceof UsageError) {
    io.stderr(`lectern: ${e.message}\n`);
    return 2;
  }
  io.stderr(`lectern: ${(e as Error)?.stack ?? String(e)}\n`);
  return 1;
}

export { configJsonSchema };
