import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
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
import type { HttpHandle } from './http.js';
import { closest } from './lib/closest.js';
import { setClosedPipeHandler } from './lib/exit.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from './lib/limits.js';
import { LineTransport } from './lib/stdio.js';
import { afterFirstToolsList } from './lib/warm-up.js';
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
  --db FILE|URL        Memory database: a SQLite file, or postgres://user@host:port/db (shared)
  --watch-notes        Watch the notes folders: a reindex checks only changed notes (local disks)
  --log-level LEVEL    ${LOG_LEVELS.join(', ')} (default info; logs go to stderr)`,
  serve: `Usage: lectern serve [options]

Serves over stdio unless --http is given.
  --http               Serve Streamable HTTP at /mcp (and GET /health)
  --port N             Port (default 3000; 0 picks a free port)
  --host ADDR          Interface to bind (default 127.0.0.1); any other address needs a token
  --token-env VAR      Require 'Authorization: Bearer <token>', the token(s) in $VAR, comma-separated
                       (default variable LECTERN_TOKEN, if set)
  --allow-unauthenticated  Serve a non-loopback --host without a token (trusted networks only)
  --allowed-host H     Also accept this Host header (repeatable; loopback is always accepted)
  --allowed-origin O   Accept requests with this Origin header (repeatable)
  --max-sessions N     Most HTTP sessions open at once; more get 503 (default ${DEFAULT_MAX_SESSIONS})
  --session-idle S     Close a session after S seconds without requests (default ${DEFAULT_SESSION_IDLE_MS / 1000})
  --stateless          Keep no sessions: any of several processes behind a load balancer can
                       answer any request (config: "http": { "stateless": true }); use a
                       postgres:// --db so the memory index is shared`,
  tools: `Usage: lectern tools [options]

  --json               Print the tools/list result as JSON instead of a table
  --tokens             Print what each tool costs in a model's context (o200k_base tokens of its
                       name, title, description and input schema; output schema apart) and the
                       total; with --json, the lint's context report as JSON`,
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

/**
 * The lint package, loaded only for the commands that use it (serving never needs it). Every
 * other module a command alone needs is loaded the same way: `serve` over stdio loads neither
 * the lint, nor the HTTP transport, nor the in-process client that lists tools.
 */
const loadLint = () => import('@lectern/lint');
type Lint = Awaited<ReturnType<typeof loadLint>>;

/** Every flag the lint commands and lectern's own root flags know, for "did you mean". */
const lintFlags = (usage: string) => [
  ...new Set([...usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]!)),
  ...[...ROOT_FLAGS].map((f) => f.slice(2)),
];

/**
 * The lint package's io shape over ours. An unknown-option message from the lint gets the
 * closest known flag appended.
 */
const lintIo = (io: Io, usage: string) => ({
  stdout: { write: io.stdout },
  stderr: {
    write: (s: string) => {
      const unknown = /Unknown option '(--[^'=]+)/.exec(s)?.[1];
      const near = unknown ? closest(unknown.slice(2), lintFlags(usage)) : undefined;
      io.stderr(
        near
          ? s.replace(
              /Unknown option '[^']+'\.[^\n]*/,
              `unknown option ${unknown}; did you mean --${near}?`,
            )
          : s,
      );
    },
  },
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
  'watch-notes': { type: 'boolean' },
  'log-level': { type: 'string' },
  http: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  'token-env': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'allow-unauthenticated': { type: 'boolean' },
  'max-sessions': { type: 'string' },
  'session-idle': { type: 'string' },
  stateless: { type: 'boolean' },
  json: { type: 'boolean' },
  tokens: { type: 'boolean' },
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
  const config = chooseConfig(values, cwd);
  if (values['watch-notes']) {
    if (!config.memory) {
      throw new UsageError(
        '--watch-notes watches the memory notes, and none are configured: add --notes DIR or "memory" in the config',
      );
    }
    config.memory.watch = true;
  }
  return config;
}

function chooseConfig(values: Values, cwd: string): Config {
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

/** The tools a composition serves, as `tools/list` answers (loads the in-process client). */
async function servedTools(composition: Composition) {
  const { listServedTools } = await import('./list-tools.js');
  return listServedTools(composition);
}

async function cmdTools(composition: Composition, values: Values, io: Io): Promise<number> {
  const tools = await servedTools(composition);
  if (values.tokens) return printTokens(tools, values, io);
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

/** `lectern tools --tokens`: the lint's context report of the served tools, per tool and total. */
async function printTokens(
  tools: Awaited<ReturnType<typeof servedTools>>,
  values: Values,
  io: Io,
): Promise<number> {
  const { contextReport } = await loadLint();
  const report = contextReport(tools as Parameters<typeof contextReport>[0]);
  if (values.json) {
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(5, ...report.tools.map((t) => t.name.length));
  const row = (name: string, tokens: number, output: number, chars: number) =>
    `${name.padEnd(width)}  ${String(tokens).padStart(7)}  ${String(output).padStart(13)}  ${String(chars).padStart(7)}\n`;
  io.stdout(
    `${'TOOL'.padEnd(width)}  ${'TOKENS'.padStart(7)}  ${'OUTPUT SCHEMA'.padStart(13)}  ${'CHARS'.padStart(7)}\n`,
  );
  for (const t of report.tools) io.stdout(row(t.name, t.tokens, t.outputSchemaTokens, t.chars));
  const s = report.server;
  io.stdout(row('TOTAL', s.tokens, s.outputSchemaTokens, s.chars));
  io.stdout(
    `${s.toolCount} tools, ${report.encoding} tokens of name, title, description and input schema (compact JSON); output schemas apart\n`,
  );
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
  lint: Lint,
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
  if (!needsSelf) return lint.runLintCli([command, ...passthrough], lintIo(io, lint.USAGE));
  const composition = await compose(resolveConfig(values, cwd));
  const dir = mkdtempSync(join(tmpdir(), 'lectern-self-'));
  try {
    const file = join(dir, 'tools.json');
    writeFileSync(file, JSON.stringify({ tools: await servedTools(composition) }));
    return await lint.runLintCli([command, file, ...passthrough], lintIo(io, lint.USAGE));
  } finally {
    await composition.close();
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

/** A whole number from a flag, or a usage error naming the flag and the valid range. */
function intFlag(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/** The bearer tokens in an environment variable: one, or several separated by commas. */
function tokensFrom(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** Starts the composition's slow set-up; a failure is logged (the tools concerned report it). */
function warmUp(composition: Composition, log: Logger): void {
  const t0 = performance.now();
  composition.start().then(
    () => log.debug(`set-up finished in ${Math.round(performance.now() - t0)} ms`),
    (e: unknown) =>
      log.error(
        `set-up failed; the tools that need it answer with this error until it succeeds: ${(e as Error)?.message ?? String(e)}`,
      ),
  );
}

async function cmdServe(
  composition: Composition,
  values: Values,
  log: Logger,
  io: Io,
  statelessByConfig = false,
): Promise<number> {
  if (values.stateless && !values.http) {
    throw new UsageError('--stateless applies to HTTP: add --http (stdio has no sessions to drop)');
  }
  const stateless = values.http === true && (values.stateless === true || statelessByConfig);
  if (stateless && (values['max-sessions'] || values['session-idle'])) {
    throw new UsageError(
      '--max-sessions and --session-idle limit sessions; a --stateless server keeps none, so remove them',
    );
  }
  let closing = false;
  const shutdown = (stop: () => Promise<void>) => async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info(`${signal}: finishing ${composition.inFlight()} running call(s), then stopping`);
    await composition.idle(10_000);
    await stop();
    await composition.close();
    process.exit(0);
  };
  if (values.http) {
    const port = intFlag('port', values.port, 0, 65535) ?? 3000;
    const maxSessions = intFlag('max-sessions', values['max-sessions'], 1, 100_000);
    const idle = intFlag('session-idle', values['session-idle'], 1, 7 * 24 * 3600);
    const tokenVar = values['token-env'] ?? 'LECTERN_TOKEN';
    const tokens = tokensFrom(process.env[tokenVar]);
    if (values['token-env'] && tokens.length === 0) {
      throw new UsageError(`--token-env ${tokenVar}: that environment variable is not set`);
    }
    // Signal handlers go in before the URL is announced: a client may stop us right after.
    let handle: HttpHandle | undefined;
    const stop = shutdown(async () => handle?.close());
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
    const { startHttp } = await import('./http.js');
    handle = await startHttp({
      createServer: () => createMcpServer(composition, log),
      host: values.host ?? '127.0.0.1',
      port,
      tokens,
      allowUnauthenticated: values['allow-unauthenticated'] ?? false,
      allowedHosts: values['allowed-host'] ?? [],
      allowedOrigins: values['allowed-origin'] ?? [],
      toolCount: composition.names.length,
      ...(maxSessions === undefined ? {} : { maxSessions }),
      ...(idle === undefined ? {} : { sessionIdleMs: idle * 1000 }),
      ...(stateless ? { stateless: true } : {}),
      log,
    });
    const wildcard = handle.host === '0.0.0.0' || handle.host === '::';
    const notes: string[] = [];
    if (wildcard) {
      notes.push(
        `  listening on every ${handle.host === '::' ? '' : 'IPv4 '}interface; remote clients must use a Host you allow with --allowed-host`,
      );
    }
    if (handle.exposed && tokens.length === 0) {
      notes.push(
        '  WARNING: no bearer token; anyone who can reach this address can use every tool',
      );
    }
    io.stderr(
      `lectern ${VERSION} serving ${composition.names.length} tools at ${handle.url}${tokens.length ? ' (bearer token required)' : ''}${stateless ? ' (stateless: no sessions)' : ''}\n` +
        notes.map((n) => `${n}\n`).join('') +
        `  ${composition.names.join(', ')}\n` +
        `  health: ${handle.url.replace(/\/mcp$/, '/health')}\n`,
    );
    // Listening and announced: open databases now (a request meanwhile waits for it).
    setImmediate(() => warmUp(composition, log));
    return new Promise<number>(() => {});
  }
  const server = createMcpServer(composition, log);
  const stop = shutdown(() => server.close());
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.stdin.once('end', () => void stop('stdin closed'));
  setClosedPipeHandler(() => void stop('stdout closed'));
  const transport = new LineTransport({ log });
  await server.connect(transport);
  // Databases open once the client has its tool list (or when a tool first needs one).
  afterFirstToolsList(transport, () => warmUp(composition, log));
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
    const lint = await loadLint();
    if (rest.includes('--help') || rest.includes('-h'))
      return lint.runLintCli([command, '--help'], lintIo(io, lint.USAGE));
    try {
      const rootArgs = splitRootFlags(rest).root;
      const { values } = parseArgs({
        args: rootArgs,
        options: OPTIONS,
        allowPositionals: true,
        strict: true,
      });
      return await cmdLintFamily(lint, command, rest, values, io, cwd);
    } catch (e) {
      if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
        io.stderr(`lectern ${command}: ${explainArgError(e as Error)}\n`);
        return 2;
      }
      return reportError(e, io);
    }
  }
  if (!['serve', 'tools', 'index', 'init'].includes(command)) {
    const near = closest(command, COMMANDS);
    io.stderr(
      `lectern: unknown command "${command}"${near ? `; did you mean "${near}"?` : ''}\n\n${HELP.main}\n`,
    );
    return 2;
  }
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    io.stderr(`lectern ${command}: ${explainArgError(e as Error)}\n\n${HELP[command]}\n`);
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
    // Composing opens no database (stores open on first use): `lectern tools` writes nothing.
    const config = resolveConfig(values, cwd);
    const composition = await compose(config);
    for (const warning of composition.warnings) log.warn(warning);
    if (command === 'tools') {
      try {
        return await cmdTools(composition, values, io);
      } finally {
        await composition.close();
      }
    }
    if (command === 'index') {
      try {
        return await cmdIndex(composition, values, io);
      } finally {
        await composition.close();
      }
    }
    return await cmdServe(composition, values, log, io, config.http?.stateless === true);
  } catch (e) {
    return reportError(e, io);
  }
}

const COMMANDS = ['serve', 'tools', 'index', 'init', 'lint', 'diff', 'snapshot', 'help'];

/** A parseArgs error in words, with the closest known flag for an unknown one. */
function explainArgError(e: Error): string {
  const unknown = /Unknown option '([^']+)'/.exec(e.message)?.[1];
  if (unknown === undefined) return e.message;
  const name = unknown.replace(/^-+/, '').split('=')[0] ?? '';
  const near = closest(name, Object.keys(OPTIONS));
  return `unknown option ${unknown}${near ? `; did you mean --${near}?` : ''}`;
}

function reportError(e: unknown, io: Io): number {
  if (e instanceof ConfigError || e instanceof UsageError) {
    io.stderr(`lectern: ${e.message}\n`);
    return 2;
  }
  // The HTTP module is loaded only for --http: its refusal to start is known by name.
  if (e instanceof Error && e.name === 'HttpStartError') {
    io.stderr(`lectern: ${e.message}\n`);
    return 1;
  }
  io.stderr(`lectern: ${(e as Error)?.stack ?? String(e)}\n`);
  return 1;
}

export { configJsonSchema };
