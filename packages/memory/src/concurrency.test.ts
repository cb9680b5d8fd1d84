import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMemory } from './store.js';
import { type TempDir, tempDir } from './test-helpers/fs.js';
import { postgresForTests, testSchemas } from './test-helpers/postgres.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const FILES = 300;
const MARKED = 30;

let dir: TempDir;

beforeAll(() => {
  // The child imports the built package: build it from the current sources first.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: packageRoot });
  dir = tempDir();
}, 120_000);
afterAll(() => dir.cleanup());

const note = (i: number, generation: string) =>
  `# Note ${i}\n\nEvery note mentions the zebra crossing.\n\n${i < MARKED ? `Marked ${generation}.` : 'Unmarked.'}\n`;

// The same test with the index in a SQLite file and in PostgreSQL (one schema of its own).
const targets: Array<{ name: string; dbPath: () => string; done?: () => Promise<void> }> = [
  { name: 'SQLite', dbPath: () => join(dir.path, '.lectern', 'memory.db') },
];
const url = postgresForTests('the two-process reindex test on PostgreSQL');
if (url) {
  const schemas = testSchemas(url);
  targets.push({
    name: 'PostgreSQL',
    dbPath: () => {
      const u = new URL(url);
      u.searchParams.set('schema', schemas.schema('twoprocs'));
      return u.toString();
    },
    done: () => schemas.close(),
  });
}

describe.each(targets)('on $name', (target) => {
  afterAll(async () => {
    await target.done?.();
  });
  test('searches in this process keep a complete index while another process rebuilds it', async () => {
    await searchDuringChildReindex(target.dbPath());
  }, 60_000);
});

async function searchDuringChildReindex(dbPath: string): Promise<void> {
  for (let i = 0; i < FILES; i++) dir.write(`n${String(i).padStart(3, '0')}.md`, note(i, 'genone'));
  const store = createMemory({ sources: [{ id: 'notes', path: dir.path }], dbPath });
  try {
    expect((await store.reindex()).files).toBe(FILES);
    // New content on disk; the child's full reindex will switch marker words atomically.
    for (let i = 0; i < MARKED; i++) {
      writeFileSync(join(dir.path, `n${String(i).padStart(3, '0')}.md`), note(i, 'gentwo'));
    }

    const child = spawn(
      process.execPath,
      [join(packageRoot, 'fixtures', 'reindex-child.mjs'), dir.path, dbPath, '60'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let inTransaction = false;
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('IN_TRANSACTION')) inTransaction = true;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number>((resolve) =>
      child.on('close', (code) => resolve(code ?? -1)),
    );
    let running = true;
    void exited.then(() => {
      running = false;
    });

    // A reindex started here while the child holds the write lock waits for it, then succeeds.
    let ownReindex: Promise<unknown> | undefined;
    let duringChild = 0;
    const seen = new Set<string>();
    while (running) {
      const snapshotInTransaction = inTransaction;
      const listed = await store.listSources();
      const zebra = await store.search({ query: 'zebra', limit: 50 });
      const one = await store.search({ query: 'genone', limit: 50 });
      const two = await store.search({ query: 'gentwo', limit: 50 });
      // Never a half-built index: all files, full pages, marker counts all-or-nothing.
      expect(listed.sources[0]!.files).toBe(FILES);
      expect(listed.sources[0]!.chunks).toBe(FILES);
      expect(zebra.results).toHaveLength(50);
      expect(zebra.next_offset).toBe(50);
      expect([0, MARKED]).toContain(one.results.length);
      expect([0, MARKED]).toContain(two.results.length);
      seen.add(`${one.results.length}/${two.results.length}`);
      if (snapshotInTransaction && running) {
        duringChild++;
        ownReindex ??= store.reindex();
        // Enough searches inside the child's transaction: let it commit.
        if (duringChild === 5) child.stdin.end('go\n');
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await exited, stderr).toBe(0);
    expect(stdout).toMatch(/DONE \{/);
    const childResult = JSON.parse(stdout.slice(stdout.indexOf('DONE ') + 5).trim());
    expect(childResult).toMatchObject({ full: true, files: FILES });
    // The searches really overlapped the child's transaction.
    expect(duringChild).toBeGreaterThanOrEqual(5);
    expect(seen.has(`${MARKED}/0`)).toBe(true);

    expect(ownReindex).toBeDefined();
    const own = (await ownReindex) as { unchanged: number; errors: unknown[] };
    expect(own.errors).toEqual([]);
    expect(own.unchanged).toBe(FILES);
    // After the child committed, the new generation is what everyone sees.
    expect((await store.search({ query: 'gentwo', limit: 50 })).results).toHaveLength(MARKED);
    expect((await store.search({ query: 'genone', limit: 50 })).results).toHaveLength(0);
  } finally {
    await store.close();
  }
}

describe('a store watching its notes', () => {
  test.each(['close', 'open'])(
    'lets its process end on its own (store %s at the end)',
    async (mode) => {
      const notes = mkdtempSync(join(tmpdir(), 'lectern-watch-child-'));
      try {
        writeFileSync(join(notes, 'a.md'), '# Alpha\n');
        const child = spawn(
          process.execPath,
          [
            join(packageRoot, 'fixtures', 'watch-child.mjs'),
            notes,
            join(notes, '.lectern', 'memory.db'),
            mode,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => {
          stdout += d;
        });
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        // Killed only if it hangs: an open watcher would keep it alive until then.
        const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
        const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
          (resolve) => child.on('close', (c, s) => resolve([c, s])),
        );
        clearTimeout(timer);
        expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
        const report = JSON.parse(stdout.split('\n')[0]!);
        expect(report).toEqual({ added: 1, walk: 'watched', watching: 1 });
        if (mode === 'close') expect(stdout).toContain('closed 0');
      } finally {
        rmSync(notes, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
