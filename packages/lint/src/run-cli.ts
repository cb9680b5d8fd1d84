import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '@lectern/core';
import { TIER_ORDER } from './lib/arithmetic.js';
import { calibrate, formatCalibration, parseCalibrationJsonl } from './lib/calibrate.js';
import {
  diffSnapshots,
  formatSnapshot,
  renderChangelog,
  renderChangelogMarkdown,
  renderChangeset,
  type Snapshot,
  snapshotTools,
} from './lib/diff.js';
import { formatReport, REPORT_FORMATS, type ReportFormat } from './lib/formats.js';
import { lintTools } from './lib/lint.js';
import { LlmJudge } from './lib/llm-judge.js';
import { OfflineJudge } from './lib/offline-judge.js';
import { FAIL_ON_VALUES, type Thresholds, validateThresholds } from './lib/report.js';
import {
  type LoadedTools,
  loadTarget,
  parseTarget,
  type Target,
  TargetError,
} from './lib/targets.js';
import { diffContextCost, renderContextCostDiff, TOKEN_ENCODING } from './lib/tokens.js';
import type { Judge, Tier } from './lib/types.js';

/** Where {@link runLintCli} writes; defaults to the process streams. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Read for the `-` target (a tools/list JSON on standard input). */
  stdin?: NodeJS.ReadableStream;
  /** Environment for the LLM judge settings. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * The command the user typed, for usage and error messages (default `lectern-lint`); the
   * `lectern` app passes `lectern`, so `lectern lint --help` names `lectern lint`.
   */
  program?: string;
}

/** The default connect and list timeout for live targets: a first `npx` run can be slow. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, belowThreshold: 1, unusable: 2 } as const;

/** The package version, read from package.json next to the build. */
export const LINT_VERSION: string = (() => {
  try {
    return (
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '0.0.0';
  }
})();

/** The `--help` text for `program` (default `lectern-lint`). */
export function usageText(program = 'lectern-lint'): string {
  const p = program;
  return `${p} ${LINT_VERSION}: TDQS scoring and schema changelogs for MCP tools

Usage:
  ${p} lint [target] [options]        score every tool and the server
  ${p} lint [options] -- <command...> score a stdio server started by <command>
  ${p} snapshot <target> [--output F]  write tools/list as canonical JSON
  ${p} diff <old> <new> [options]      schema changelog between two snapshots/targets
  ${p} calibrate <file.jsonl> [--check] compare the judge with published scores

Targets: a tools/list JSON file ({ "tools": [...] } or an array), "-" for standard input,
an http(s) URL (Streamable HTTP), or a .js/.mjs module exporting tool definitions.

Lint options:
  --format text|json|sarif|github|markdown   output format (default text)
  --output FILE          write the report to FILE instead of standard output
  --sarif FILE           also write SARIF to FILE
  --markdown FILE        also write the Markdown report to FILE (appends, e.g. $GITHUB_STEP_SUMMARY)
  --min-tdqs N           fail (exit 1) when any tool scores below N (e.g. 4.5)
  --min-tier A|B|C|D     fail when any tool's tier is below this
  --min-server N|TIER    fail when the server's overall score/tier is below this
  --fail-on LIST         fail on: ${FAIL_ON_VALUES.join(', ')}
  --max-tool-tokens N    fail when any tool costs more than N tokens in context (${TOKEN_ENCODING};
                         name, title, description and input schema)
  --max-server-tokens N  fail when all the tools together cost more than N tokens
  --judge offline|llm    stage 3 judge (default offline)
  --llm-base-url URL --llm-model NAME --llm-api-key-env VAR --llm-cache FILE
                         LLM judge settings (else LECTERN_LINT_LLM_BASE_URL, _MODEL, _API_KEY, _CACHE)
  --server-name NAME     name shown for the server
  --command "CMD ARGS"   stdio server command (alternative to "-- CMD ARGS")
  --cwd DIR              working directory of the stdio server
  --header "K: V"        HTTP header for URL targets (repeatable)
  --export NAME          module export to read (a function is called with --args)
  --args JSON            JSON array of arguments for --export
  --timeout MS           connect/list timeout for live servers (default 60000)
  --location FILE        file that SARIF/GitHub results point at (default the target file)

Diff options:
  --format text|json|markdown  --old-label V --new-label V --old-date D --new-date D
                         (the changelog ends with each tool's change in context tokens)
  --changeset PACKAGE    write a changeset with the bump and the changelog
  --changeset-dir DIR    where to write it (default .changeset)

Calibrate options:
  --format text|json     output format (default text)
  --split dev|test       only the examples of that part of the corpus
  --check                exit 1 when any example is outside ±1 per dimension, ±0.3 TDQS or its
                         tier; with --max-tdqs-mae, exit 1 when the TDQS MAE is above N instead
  --max-tdqs-mae N       the TDQS MAE --check allows
  --min-balanced-accuracy N   with --check, exit 1 when the balanced tier accuracy is below N
  --min-tier-recall T=N,...   with --check, exit 1 when a published tier's share kept in its
                         tier is below N (e.g. A=0.85,D=0.7)
  --max-tier-mae T=N,...      with --check, exit 1 when a published tier's TDQS MAE is above N
  --rows N               list only the N worst examples (default: all)
  --rules-only           score with the rules alone, without the fitted models
  --judge, --llm-*       calibrate the LLM judge instead of the offline one

Every command takes --output FILE; --help and --version print and exit 0.
Exit codes: 0 pass, 1 below a threshold, 2 unusable input or usage error.
`;
}

/** The `--help` text of the \`lectern-lint\` command. */
export const USAGE = usageText();

class UsageError extends Error {}

/** Splits a command line into words, honouring single and double quotes and backslashes. */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(ch)) {
      if (cur || has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
    }
  }
  if (quote) throw new UsageError(`unclosed ${quote} quote in --command.`);
  if (cur || has) out.push(cur);
  return out;
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const OPTIONS = {
  format: { type: 'string' },
  output: { type: 'string' },
  sarif: { type: 'string' },
  markdown: { type: 'string' },
  'min-tdqs': { type: 'string' },
  'min-tier': { type: 'string' },
  'min-server': { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  'max-tool-tokens': { type: 'string' },
  'max-server-tokens': { type: 'string' },
  judge: { type: 'string' },
  'llm-base-url': { type: 'string' },
  'llm-model': { type: 'string' },
  'llm-api-key-env': { type: 'string' },
  'llm-cache': { type: 'string' },
  'server-name': { type: 'string' },
  command: { type: 'string' },
  cwd: { type: 'string' },
  header: { type: 'string', multiple: true },
  export: { type: 'string' },
  args: { type: 'string' },
  timeout: { type: 'string' },
  location: { type: 'string' },
  'old-label': { type: 'string' },
  'new-label': { type: 'string' },
  'old-date': { type: 'string' },
  'new-date': { type: 'string' },
  changeset: { type: 'string' },
  'changeset-dir': { type: 'string' },
  check: { type: 'boolean' },
  split: { type: 'string' },
  'max-tdqs-mae': { type: 'string' },
  'min-balanced-accuracy': { type: 'string' },
  'min-tier-recall': { type: 'string' },
  'max-tier-mae': { type: 'string' },
  rows: { type: 'string' },
  'rules-only': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

function num(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n))
    throw new UsageError(`${flag} needs a number, got "${value}".`);
  return n;
}

function thresholdsFrom(v: Values): Thresholds {
  const t: Thresholds = {};
  const minTdqs = num(v['min-tdqs'], '--min-tdqs');
  if (minTdqs !== undefined) t.minTdqs = minTdqs;
  if (v['min-tier'] !== undefined) t.minTier = v['min-tier'].toUpperCase() as Tier;
  if (v['min-server'] !== undefined) {
    const raw = v['min-server'];
    t.minServer = TIER_ORDER.includes(raw.toUpperCase() as Tier)
      ? (raw.toUpperCase() as Tier)
      : (num(raw, '--min-server') as number);
  }
  for (const [flag, key] of [
    ['--max-tool-tokens', 'maxToolTokens'],
    ['--max-server-tokens', 'maxServerTokens'],
  ] as const) {
    const n = num(v[flag.slice(2) as 'max-tool-tokens' | 'max-server-tokens'], flag);
    if (n === undefined) continue;
    if (!Number.isInteger(n) || n < 0)
      throw new UsageError(`${flag} needs a whole number of tokens (0 or more), got "${n}".`);
    t[key] = n;
  }
  if (v['fail-on'])
    t.failOn = v['fail-on']
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
  try {
    validateThresholds(t);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return t;
}

function judgeFrom(v: Values, env: NodeJS.ProcessEnv): Judge {
  const kind = v.judge ?? 'offline';
  if (kind === 'offline') return new OfflineJudge();
  if (kind !== 'llm') throw new UsageError(`--judge must be "offline" or "llm", got "${kind}".`);
  const keyEnv = v['llm-api-key-env'];
  try {
    return LlmJudge.fromEnv(env, {
      ...(v['llm-base-url'] ? { baseUrl: v['llm-base-url'] } : {}),
      ...(v['llm-model'] ? { model: v['llm-model'] } : {}),
      ...(keyEnv ? { apiKey: env[keyEnv] ?? '' } : {}),
      ...(v['llm-cache'] ? { cacheFile: resolve(v['llm-cache']) } : {}),
    });
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message} Set --llm-base-url and --llm-model (or LECTERN_LINT_LLM_BASE_URL / LECTERN_LINT_LLM_MODEL).`,
    );
  }
}

function targetFrom(spec: string | undefined, command: string[] | undefined, v: Values): Target {
  if (command && command.length > 0) {
    const [cmd, ...args] = command;
    return { kind: 'stdio', command: cmd as string, args, ...(v.cwd ? { cwd: v.cwd } : {}) };
  }
  if (spec === undefined) {
    throw new UsageError(
      'no target: pass a tools/list JSON file, "-", a URL, a module, or a server command after "--".',
    );
  }
  const target = parseTarget(spec);
  if (target.kind === 'url' && v.header) {
    const headers: Record<string, string> = {};
    for (const h of v.header) {
      const i = h.indexOf(':');
      if (i <= 0) throw new UsageError(`--header must look like "Name: value", got "${h}".`);
      headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
    }
    target.headers = headers;
  }
  if (target.kind === 'module') {
    if (v.export) target.exportName = v.export;
    if (v.args) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(v.args);
      } catch {
        throw new UsageError('--args must be a JSON array, e.g. \'[{"root":"docs"}]\'.');
      }
      if (!Array.isArray(parsed)) throw new UsageError('--args must be a JSON array.');
      target.args = parsed;
    }
  }
  return target;
}

async function load(target: Target, v: Values, io: CliIo): Promise<LoadedTools> {
  return loadTarget(target, {
    timeoutMs: num(v.timeout, '--timeout') ?? DEFAULT_TIMEOUT_MS,
    timeoutHint: 'raise it with --timeout MS',
    readStdin: () => readStream(io.stdin ?? process.stdin),
  });
}

async function emit(text: string, output: string | undefined, io: CliIo): Promise<void> {
  if (output) await writeFileAtomic(resolve(output), text);
  else io.stdout.write(text);
}

async function cmdLint(
  positionals: string[],
  command: string[] | undefined,
  v: Values,
  io: CliIo,
): Promise<number> {
  const format = (v.format ?? 'text') as ReportFormat;
  if (!REPORT_FORMATS.includes(format)) {
    throw new UsageError(`--format must be one of ${REPORT_FORMATS.join(', ')}, got "${format}".`);
  }
  if (positionals.length > 1)
    throw new UsageError(
      `lint takes one target, got ${positionals.length}: ${positionals.join(' ')}.`,
    );
  const thresholds = thresholdsFrom(v);
  const judge = judgeFrom(v, io.env ?? process.env);
  const target = targetFrom(positionals[0], command, v);
  const loaded = await load(target, v, io);
  if (loaded.tools.length === 0) throw new TargetError(`${loaded.source} lists no tools.`);
  const report = await lintTools(loaded.tools, {
    judge,
    thresholds,
    serverName: v['server-name'] ?? loaded.serverName ?? 'server',
    target: loaded.source,
    ...(loaded.file ? { file: loaded.file } : {}),
  });
  const located = v.location ?? loaded.file;
  const uri =
    located &&
    !isAbsolute(relative(process.cwd(), located)) &&
    !relative(process.cwd(), located).startsWith('..')
      ? relative(process.cwd(), located)
      : located;
  let source: string | undefined;
  if (located) source = await readFile(located, 'utf8').catch(() => undefined);
  const loc = { ...(uri ? { uri } : {}), ...(source ? { source } : {}), version: LINT_VERSION };
  await emit(formatReport(report, format, loc), v.output, io);
  if (v.sarif) await writeFileAtomic(resolve(v.sarif), formatReport(report, 'sarif', loc));
  if (v.markdown) await appendFile(resolve(v.markdown), formatReport(report, 'markdown', loc));
  if (!report.thresholds.passed && format !== 'text') {
    io.stderr.write(
      `${io.program ?? 'lectern-lint'}: ${report.thresholds.failures.length} threshold violation(s)\n`,
    );
  }
  return report.thresholds.passed ? EXIT.ok : EXIT.belowThreshold;
}

async function cmdSnapshot(
  positionals: string[],
  command: string[] | undefined,
  v: Values,
  io: CliIo,
): Promise<number> {
  if (positionals.length > 1) throw new UsageError('snapshot takes one target.');
  const loaded = await load(targetFrom(positionals[0], command, v), v, io);
  const snap = snapshotTools(loaded.tools, {
    name: loaded.serverName,
    version: loaded.serverVersion,
  });
  await emit(formatSnapshot(snap), v.output, io);
  return EXIT.ok;
}

async function snapshotOf(spec: string, v: Values, io: CliIo): Promise<Snapshot> {
  const loaded = await load(
    targetFrom(spec, undefined, { ...v, export: undefined, args: undefined }),
    v,
    io,
  );
  return snapshotTools(loaded.tools, { name: loaded.serverName, version: loaded.serverVersion });
}

async function cmdDiff(positionals: string[], v: Values, io: CliIo): Promise<number> {
  if (positionals.length !== 2) throw new UsageError('diff needs two targets: <old> <new>.');
  const format = v.format ?? 'text';
  if (!['text', 'json', 'markdown'].includes(format)) {
    throw new UsageError(`diff --format must be text, json or markdown, got "${format}".`);
  }
  const [a, b] = await Promise.all([
    snapshotOf(positionals[0] as string, v, io),
    snapshotOf(positionals[1] as string, v, io),
  ]);
  // Two snapshots that report the same version (or none) are told apart by their file names.
  const sameVersion = (a.server?.version ?? null) === (b.server?.version ?? null);
  const fileLabel = (spec: string) =>
    /^https?:\/\//i.test(spec) || spec === '-' ? undefined : basename(spec);
  const oldAuto = sameVersion ? fileLabel(positionals[0] as string) : undefined;
  const newAuto = sameVersion ? fileLabel(positionals[1] as string) : undefined;
  const distinct = oldAuto && newAuto && oldAuto !== newAuto;
  const oldLabel = v['old-label'] ?? (distinct ? oldAuto : undefined);
  const newLabel = v['new-label'] ?? (distinct ? newAuto : undefined);
  const diff = diffSnapshots(a, b, {
    ...(oldLabel ? { oldLabel } : {}),
    ...(newLabel ? { newLabel } : {}),
  });
  const dates = {
    ...(v['old-date'] ? { oldDate: v['old-date'] } : {}),
    ...(v['new-date'] ? { newDate: v['new-date'] } : {}),
  };
  const cost = diffContextCost(a.tools, b.tools);
  const text =
    format === 'json'
      ? `${JSON.stringify({ ...diff, contextCost: cost }, null, 2)}\n`
      : format === 'markdown'
        ? `${renderChangelogMarkdown(diff, dates)}\n${renderContextCostDiff(cost, true)}`
        : `${renderChangelog(diff, dates)}\n${renderContextCostDiff(cost)}`;
  await emit(text, v.output, io);
  if (v.changeset) {
    let body: string | null;
    try {
      body = renderChangeset(diff, v.changeset, dates);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (body === null) {
      io.stderr.write(
        `${io.program ?? 'lectern-lint'}: no schema changes; no changeset written.\n`,
      );
    } else {
      const dir = resolve(v['changeset-dir'] ?? '.changeset');
      mkdirSync(dir, { recursive: true });
      const slug = v.changeset
        .replace(/^@/, '')
        .replace(/[^a-z0-9]+/gi, '-')
        .toLowerCase();
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 8);
      const file = join(dir, `schema-${slug}-${hash}.md`);
      await writeFileAtomic(file, body);
      io.stderr.write(`${io.program ?? 'lectern-lint'}: wrote ${file} (${diff.bump})\n`);
    }
  }
  return EXIT.ok;
}

/** Parses "A=0.85,D=0.7" into per-tier bounds. */
function tierBounds(value: string | undefined, flag: string): Map<Tier, number> {
  const out = new Map<Tier, number>();
  if (value === undefined) return out;
  for (const part of value.split(',')) {
    const m = /^\s*([A-Fa-f])\s*=\s*([0-9.]+)\s*$/.exec(part);
    const n = m ? Number(m[2]) : Number.NaN;
    if (!m || !Number.isFinite(n))
      throw new UsageError(`${flag} needs TIER=NUMBER pairs like A=0.85,D=0.7, got "${part}".`);
    out.set((m[1] as string).toUpperCase() as Tier, n);
  }
  return out;
}

async function cmdCalibrate(positionals: string[], v: Values, io: CliIo): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('calibrate needs one JSONL file.');
  const file = positionals[0] as string;
  const split = v.split;
  if (split !== undefined && split !== 'dev' && split !== 'test') {
    throw new UsageError(`--split must be dev or test, got "${split}".`);
  }
  const maxMae = num(v['max-tdqs-mae'], '--max-tdqs-mae');
  const minBalanced = num(v['min-balanced-accuracy'], '--min-balanced-accuracy');
  const minRecall = tierBounds(v['min-tier-recall'], '--min-tier-recall');
  const maxTierMae = tierBounds(v['max-tier-mae'], '--max-tier-mae');
  const rows = num(v.rows, '--rows');
  if (rows !== undefined && (!Number.isInteger(rows) || rows < 0)) {
    throw new UsageError('--rows needs a whole number of examples.');
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new TargetError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let examples: ReturnType<typeof parseCalibrationJsonl>;
  try {
    examples = parseCalibrationJsonl(text);
  } catch (error) {
    throw new TargetError(`${file}: ${(error as Error).message}`);
  }
  if (split) {
    examples = examples.filter((e) => e.split === split);
    if (examples.length === 0)
      throw new TargetError(`${file} has no examples in the ${split} part.`);
  }
  const judge = v['rules-only']
    ? (() => {
        if (v.judge && v.judge !== 'offline')
          throw new UsageError('--rules-only applies to the offline judge only.');
        return new OfflineJudge({ weights: null });
      })()
    : judgeFrom(v, io.env ?? process.env);
  const result = await calibrate(examples, { judge });
  const format = v.format ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError('calibrate --format must be text or json.');
  let out =
    format === 'json'
      ? `${JSON.stringify(result, null, 2)}\n`
      : formatCalibration(result, rows !== undefined ? { maxRows: rows } : {});
  let failed = false;
  const gates: string[] = [];
  const tierGates = minBalanced !== undefined || minRecall.size > 0 || maxTierMae.size > 0;
  if (v.check && tierGates) {
    if (minBalanced !== undefined) {
      const b = result.balancedTierAccuracy;
      const bad = b === null || b < minBalanced - 1e-9;
      if (bad) failed = true;
      gates.push(
        `check: balanced tier accuracy ${b === null ? 'unknown' : b.toFixed(3)} ${bad ? 'is below' : 'is at least'} ${minBalanced.toFixed(3)}`,
      );
    }
    for (const [t, bound] of minRecall) {
      const r = result.tiers[t]?.recall;
      const bad = r === undefined || r < bound - 1e-9;
      if (bad) failed = true;
      gates.push(
        `check: tier ${t} kept ${r === undefined ? 'unknown (no example)' : r.toFixed(3)} ${bad ? 'is below' : 'is at least'} ${bound.toFixed(3)}`,
      );
    }
    for (const [t, bound] of maxTierMae) {
      const m = result.tiers[t]?.mae;
      const bad = m === undefined || m === null || m > bound + 1e-9;
      if (bad) failed = true;
      gates.push(
        `check: tier ${t} TDQS MAE ${m === undefined || m === null ? 'unknown (no example)' : m.toFixed(3)} ${bad ? 'is above' : 'is within'} ${bound.toFixed(3)}`,
      );
    }
  }
  if (v.check && maxMae !== undefined) {
    if (result.tdqsMae === null) {
      throw new TargetError(
        `${file}: no example shows a published TDQS, so --max-tdqs-mae cannot be checked.`,
      );
    }
    failed = result.tdqsMae > maxMae + 1e-9;
    if (format === 'text') {
      out += `check: TDQS MAE ${result.tdqsMae.toFixed(3)} ${failed ? 'is above' : 'is within'} the allowed ${maxMae.toFixed(3)}\n`;
    }
  } else if (v.check && !tierGates) {
    failed = !result.allWithinBounds;
  }
  if (format === 'text' && gates.length) out += `${gates.join('\n')}\n`;
  await emit(out, v.output, io);
  return failed ? EXIT.belowThreshold : EXIT.ok;
}

/**
 * Runs the lint CLI with `argv` (without the node and script paths) and resolves to the exit
 * code: 0 pass, 1 below a threshold, 2 unusable input or a usage error (with a message on
 * stderr). Never calls `process.exit`, so the `lectern` app can delegate `lint`, `diff`,
 * `snapshot` and `calibrate` to it.
 */
export async function runLintCli(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const program = io.program ?? 'lectern-lint';
  const dash = argv.indexOf('--');
  const head = dash >= 0 ? argv.slice(0, dash) : [...argv];
  const command = dash >= 0 ? argv.slice(dash + 1) : undefined;
  try {
    let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
    try {
      parsed = parseArgs({ args: head, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    const [sub, ...rest] = positionals;
    if (values.version) {
      io.stdout.write(`${LINT_VERSION}\n`);
      return EXIT.ok;
    }
    if (values.help || sub === undefined || sub === 'help') {
      io.stdout.write(usageText(program));
      return sub === undefined && !values.help ? EXIT.unusable : EXIT.ok;
    }
    let cmd = command;
    if (values.command) {
      if (cmd)
        throw new UsageError(
          'give the server command either with --command or after "--", not both.',
        );
      cmd = splitCommand(values.command);
      if (cmd.length === 0) throw new UsageError('--command is empty.');
    }
    switch (sub) {
      case 'lint':
        return await cmdLint(rest, cmd, values, io);
      case 'snapshot':
        return await cmdSnapshot(rest, cmd, values, io);
      case 'diff':
        return await cmdDiff(rest, values, io);
      case 'calibrate':
        return await cmdCalibrate(rest, values, io);
      default:
        throw new UsageError(`unknown command "${sub}"; use lint, snapshot, diff or calibrate.`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${program}: ${error.message}\nRun "${program} --help" for usage.\n`);
      return EXIT.unusable;
    }
    if (error instanceof TargetError) {
      io.stderr.write(`${program}: ${error.message}\n`);
      return EXIT.unusable;
    }
    io.stderr.write(`${program}: ${(error as Error).message ?? String(error)}\n`);
    return EXIT.unusable;
  }
}
