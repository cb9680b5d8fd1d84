import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** The repository root. */
export const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** The fields of a package.json these tests read. */
export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  mcpName?: string;
  files?: string[];
  bin?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** A package that is published to npm. */
export interface Published {
  /** Absolute directory. */
  dir: string;
  /** Directory relative to the root, e.g. `packages/core`. */
  rel: string;
  pkg: PackageJson;
  /** The file name `pnpm pack` gives its tarball. */
  tarball: string;
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Every non-private package under packages/ and apps/, in directory order. */
export function publishedPackages(): Published[] {
  const out: Published[] = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      const rel = `${group}/${entry.name}`;
      const file = join(root, rel, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const pkg = readJson<PackageJson>(file);
      if (pkg.private) continue;
      const base = pkg.name.replace(/^@/, '').replace('/', '-');
      out.push({ dir: join(root, rel), rel, pkg, tarball: `${base}-${pkg.version}.tgz` });
    }
  }
  return out;
}

/** The published package named `name`. */
export function published(name: string): Published {
  const p = publishedPackages().find((x) => x.pkg.name === name);
  if (!p) throw new Error(`no published package named ${name}`);
  return p;
}

/** The lowest version a caret range like `^1.23.0` admits. */
export function lowestOf(range: string): string {
  const m = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (!m) throw new Error(`expected a caret range like ^1.2.3, got "${range}"`);
  return m[1]!;
}

/** What a finished child process left behind. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Killed after this long (a hung install must fail the test, not hang the suite). */
  timeoutMs?: number;
  /** Write standard output to this file instead of collecting it. */
  stdoutFile?: string;
}

/** Runs a command to completion; never rejects for a non-zero exit (check `code`). */
export function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const fd = options.stdoutFile === undefined ? undefined : openSync(options.stdoutFile, 'w');
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', fd ?? 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      if (fd !== undefined) closeSync(fd);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (fd !== undefined) closeSync(fd);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Throws with the command's output when it did not exit with 0. */
export function expectSuccess(what: string, r: RunResult): RunResult {
  if (r.code !== 0) {
    throw new Error(
      `${what} failed (exit ${r.code ?? r.signal}):\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`,
    );
  }
  return r;
}

let pnpmCommand: string[] | undefined;

/** How to run pnpm: the one on PATH (inside `pnpm test`), else `npx --yes pnpm@10`. */
export function pnpm(): string[] {
  if (!pnpmCommand) {
    const probe = spawnSync('pnpm', ['--version'], { stdio: 'ignore' });
    pnpmCommand = probe.status === 0 ? ['pnpm'] : ['npx', '--yes', 'pnpm@10'];
  }
  return pnpmCommand;
}

/**
 * The environment for a command run outside the workspace: without what `pnpm run` sets for
 * the script it runs (package name, lifecycle), so a consumer install sees only user settings.
 */
export function outsideEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_package_|npm_lifecycle_|PNPM_PACKAGE_NAME$|INIT_CWD$)/.test(key)) continue;
    if (key === 'npm_config_local_prefix') continue;
    env[key] = value;
  }
  return env;
}

/** One file of a tarball. */
export interface TarEntry {
  /** Path inside the package, without the leading `package/`. */
  path: string;
  data: Buffer;
}

/** The regular files of a gzipped tarball as `npm pack` and `pnpm pack` write them. */
export function readTarball(file: string): TarEntry[] {
  const tar = gunzipSync(readFileSync(file));
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(345, 155);
    const data = tar.subarray(offset + 512, offset + 512 + size);
    let name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = undefined;
    if (type === 'L') longName = data.toString('utf8').replace(/\0.*$/s, '');
    else if (type === '0' || type === '\0') {
      name = name.replace(/^package\//, '');
      entries.push({ path: name, data: Buffer.from(data) });
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}
