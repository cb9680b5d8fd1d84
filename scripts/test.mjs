// The repository's test command: builds, typechecks, lints and runs every test through turbo,
// then prints one plain summary line `N passed, N failed` from vitest's JSON reports.
// Exits non-zero when any test or any check failed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const workspaces = [
  ...['packages', 'apps', 'tests'].flatMap((dir) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { withFileTypes: true })
          .filter((e) => e.isDirectory() && existsSync(join(root, dir, e.name, 'package.json')))
          .map((e) => join(root, dir, e.name))
      : [],
  ),
  ...(existsSync(join(root, 'bench', 'package.json')) ? [join(root, 'bench')] : []),
];
for (const ws of workspaces) rmSync(join(ws, '.reports'), { recursive: true, force: true });

const tasks = ['build', 'typecheck', 'lint:repo', 'test'];
// `--deep` runs property and torture tests at release size (see bySize in @lectern/core/testing).
const deep = process.argv.includes('--deep');
const extra = process.argv.slice(2).filter((a) => a !== '--deep');
// Two tasks at a time on any machine: suites that start servers and child processes stay well
// inside their timeouts even when other work keeps the cores busy.
const turbo = spawnSync(
  'turbo',
  ['run', ...tasks, '--continue', '--output-logs=errors-only', '--concurrency=2', ...extra],
  {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
    env: { ...process.env, ...(deep ? { LECTERN_TEST_DEPTH: 'deep' } : {}) },
  },
);

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const ws of workspaces) {
  const pkg = JSON.parse(readFileSync(join(ws, 'package.json'), 'utf8'));
  if (!pkg.scripts?.test) continue;
  const report = join(ws, '.reports', 'vitest.json');
  if (!existsSync(report)) {
    missing.push(pkg.name);
    continue;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A suite that failed to load (syntax error, missing import) has no failed tests but failed.
  for (const file of r.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
      console.error(`test file failed to run: ${file.name}: ${file.message ?? ''}`);
      failed += 1;
    }
  }
}
// Changesets must keep their front matter (a formatter once turned it into a heading).
const names = new Set(
  workspaces.map((ws) => JSON.parse(readFileSync(join(ws, 'package.json'), 'utf8')).name),
);
const changesetDir = join(root, '.changeset');
for (const file of existsSync(changesetDir) ? readdirSync(changesetDir) : []) {
  if (!file.endsWith('.md') || file === 'README.md') continue;
  const text = readFileSync(join(changesetDir, file), 'utf8');
  const m = /^---\r?\n((?:"[^"]+": (?:major|minor|patch)\r?\n)+)---\r?\n\s*\S/.exec(text);
  const unknown = m
    ? [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]).filter((n) => !names.has(n))
    : [];
  if (!m || unknown.length) {
    const why = m
      ? `names unknown package(s) ${unknown.join(', ')}`
      : 'has no front matter of the form ---, "package": bump, --- followed by a summary';
    console.error(`.changeset/${file} ${why}`);
    failed += 1;
  }
}
if (missing.length)
  console.error(`no test report from: ${missing.join(', ')} (its build or tests did not run)`);
failed += missing.length;
const checksFailed = turbo.status !== 0 && failed === 0;
if (checksFailed) {
  console.error('a build, typecheck or lint task failed (see the output above)');
  failed += 1;
}
if (skipped) console.log(`${skipped} skipped`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(turbo.status === 0 && failed === 0 ? 0 : 1);
