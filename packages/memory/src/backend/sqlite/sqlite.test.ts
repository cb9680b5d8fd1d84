import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isToolError } from '@lectern/core';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import { memoryBackendSuite } from '../../test-helpers/suite.js';
import type { MemoryOptions, MemoryStore } from '../../types.js';
import { sqliteBackend } from './backend.js';
import { SCHEMA_VERSION } from './schema.js';

// The shared suite: every database of a test is a file in a temporary folder of its own.
let dbDir: TempDir | undefined;
memoryBackendSuite({
  name: 'SQLite',
  backend: (db = 'main') => {
    dbDir ??= tempDir('lectern-memory-db-');
    return sqliteBackend({ path: join(dbDir.path, `${db}.db`) });
  },
  afterEach: () => {
    dbDir?.cleanup();
    dbDir = undefined;
  },
  expressions: { prefix: '"deploy"*' },
  raw: {
    either: 'deployments OR canela',
    headingOnly: 'heading_path: incidents',
    invalid: ['AND(', '"unclosed', 'nosuchcolumn: x', 'NEAR('],
  },
});

let dir: TempDir;
let stores: MemoryStore[];

beforeEach(() => {
  dir = tempDir();
  stores = [];
});
afterEach(async () => {
  for (const s of stores) await s.close();
  dir.cleanup();
});

const paths = (r: { results: Array<{ path: string }> }) => r.results.map((c) => c.path).sort();

function open(options: Partial<MemoryOptions> = {}): MemoryStore {
  const store = createMemory({ sources: [{ id: 'notes', path: dir.path }], ...options });
  stores.push(store);
  return store;
}

describe('SQLite storage', () => {
  test('the database sits under .lectern beside the first source, hidden from the walk', async () => {
    dir.write('a.md', '# A\n\nalpha\n');
    const store = open();
    expect(store.dbPath).toBe(join(dir.path, '.lectern', 'memory.db'));
    expect(existsSync(store.dbPath)).toBe(true);
    await store.reindex();
    expect((await store.listSources()).sources[0]!.files).toBe(1);
  });

  test('the index keeps no copy of the notes: snippets are read back from the files', async () => {
    const marker = 'zanzibarquokkaflamingo';
    dir.write('a.md', `# Heading kept\n\n${`filler ${marker} words `.repeat(50)}\n`);
    const store = open();
    const r = await store.search({ query: marker });
    expect(r.results[0]!.snippet).toContain(`«${marker}»`);
    await store.close();
    const db = new Database(store.dbPath);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    // FTS5 keeps each distinct term once in its vocabulary; the text itself is not stored.
    const bytes = readFileSync(store.dbPath).toString('latin1');
    expect(bytes.split(marker).length - 1).toBeLessThanOrEqual(2);
    expect(bytes).not.toContain(`filler ${marker} words`);
    expect(bytes).toContain('Heading kept');
  });

  test('another connection committing is noticed: the writer reloads what it knows', async () => {
    dir.write('a.md', 'apple\n');
    const dbPath = join(dir.path, '.lectern', 'shared.db');
    const first = open({ dbPath });
    const second = open({ dbPath });
    await first.reindex();
    // The second store loads the committed files now, then the first one changes them.
    expect(await second.reindex()).toMatchObject({ unchanged: 1, added: 0 });
    dir.write('b.md', 'banana\n');
    expect(await first.reindex()).toMatchObject({ added: 1 });
    const again = await second.reindex();
    expect(again).toMatchObject({ added: 0, unchanged: 2, files: 2, errors: [] });
    expect((await second.search({ query: 'banana' })).results).toHaveLength(1);
  });

  test('an index from the previous schema is cleared and rebuilt with a warning', async () => {
    dir.write('a.md', 'walnut\n');
    const dbPath = join(dir.path, 'old.db');
    const old = new Database(dbPath);
    old.exec(
      `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '${SCHEMA_VERSION - 1}'), ('built_at', 'x'); CREATE TABLE files (id INTEGER PRIMARY KEY, source TEXT, path TEXT);`,
    );
    old.close();
    const store = open({ dbPath });
    const listed = await store.listSources();
    expect(listed.built).toBe(false);
    expect(listed.warnings.join(' ')).toContain(
      `another version (schema ${SCHEMA_VERSION - 1}, expected ${SCHEMA_VERSION})`,
    );
    expect((await store.search({ query: 'walnut' })).results).toHaveLength(1);
  });
});

describe('corrupted database', () => {
  test('garbage bytes are detected on open, moved aside and rebuilt with a warning', async () => {
    dir.write('a.md', 'hazelnut\n');
    const dbPath = join(dir.path, '.lectern', 'memory.db');
    mkdirSync(join(dir.path, '.lectern'));
    writeFileSync(
      dbPath,
      Buffer.from('this is not a sqlite database at all, just garbage bytes'.repeat(100)),
    );
    const store = open();
    const listed = await store.listSources();
    expect(listed.warnings.join(' ')).toMatch(/damaged/);
    expect(listed.warnings.join(' ')).toContain(`${dbPath}.corrupt`);
    expect(existsSync(`${dbPath}.corrupt`)).toBe(true);
    const r = await store.search({ query: 'hazelnut' });
    expect(r.results).toHaveLength(1);
    expect(r.warnings.join(' ')).toMatch(/damaged/);
    // Once rebuilt, the warning is gone.
    expect((await store.listSources()).warnings).toEqual([]);
  });

  test('damaged pages inside a real database are caught by quick_check', async () => {
    for (let i = 0; i < 40; i++)
      dir.write(`n${i}.md`, `# Note ${i}\n\n${'filler words '.repeat(200)}\n`);
    const first = open();
    await first.reindex();
    const dbPath = first.dbPath;
    first.close();
    stores = [];
    // Make sure everything is in the main file, then overwrite pages past the header.
    const db = new Database(dbPath);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const bytes = readFileSync(dbPath);
    expect(bytes.length).toBeGreaterThan(16 * 4096);
    for (let i = 4096 * 2; i < bytes.length - 4096; i += 4096 * 3) bytes.fill(0xa5, i, i + 4096);
    writeFileSync(dbPath, bytes);
    const store = open();
    const listed = await store.listSources();
    expect(listed.warnings.join(' ')).toMatch(/damaged/);
    const r = await store.reindex();
    expect(r.added).toBe(40);
    expect((await store.search({ query: 'filler' })).results.length).toBe(10);
  });

  test('damage inside the full-text index is reported when a search meets it, and the next open rebuilds', async () => {
    for (let i = 0; i < 40; i++)
      dir.write(`n${i}.md`, `# Note ${i}\n\n${'filler words '.repeat(200)} pecan${i}\n`);
    const first = open();
    await first.reindex();
    const dbPath = first.dbPath;
    await first.close();
    stores = [];
    // Every doclist block garbled, while each table's pages stay well-formed b-tree pages.
    const raw = new Database(dbPath);
    raw.unsafeMode(true);
    raw
      .prepare(
        "UPDATE chunks_fts_data SET block = unhex(replace(hex(zeroblob(length(block))), '00', 'A5')) WHERE id > 10",
      )
      .run();
    raw.close();

    // Opening checks every table's pages, not each doclist: this one opens without a warning.
    const second = open();
    expect((await second.listSources()).warnings).toEqual([]);
    let code = 'no error';
    let message = '';
    try {
      await second.search({ query: 'filler' });
    } catch (error) {
      if (!isToolError(error)) throw error;
      code = error.code;
      message = error.message;
    }
    expect(code).toBe('INDEX_CORRUPT');
    expect(message).toMatch(/Restart the server/);
    expect(readFileSync(`${dbPath}.damaged`, 'utf8')).toMatch(/fts5: corruption|malformed/);
    await second.close();
    stores = [];

    // The restart the error asks for: the file is moved aside, the marker cleared, all rebuilt.
    const third = open();
    const listed = await third.listSources();
    expect(listed.warnings.join(' ')).toMatch(/damaged \(damage was met while it was in use/);
    expect(existsSync(`${dbPath}.corrupt`)).toBe(true);
    expect(existsSync(`${dbPath}.damaged`)).toBe(false);
    expect((await third.reindex()).added).toBe(40);
    expect(paths(await third.search({ query: 'pecan7' }))).toEqual(['notes/n7.md']);
    expect((await third.listSources()).warnings).toEqual([]);
  });

  test('a damage marker left behind by a deleted database does not touch the new one', async () => {
    dir.write('a.md', 'hazelnut\n');
    const dbPath = join(dir.path, '.lectern', 'memory.db');
    mkdirSync(join(dir.path, '.lectern'));
    writeFileSync(`${dbPath}.damaged`, 'an old reason\n');
    const store = open();
    expect((await store.listSources()).warnings).toEqual([]);
    expect(existsSync(`${dbPath}.damaged`)).toBe(false);
    expect(existsSync(`${dbPath}.corrupt`)).toBe(false);
    expect(paths(await store.search({ query: 'hazelnut' }))).toEqual(['notes/a.md']);
  });

  test('an unusable database location is a clear DB_UNAVAILABLE error, never a deletion', () => {
    const blocker = dir.write('.lectern', 'a file where a folder should be');
    expect(() =>
      createMemory({ sources: [{ id: 'n', path: dir.path }], dbPath: join(blocker, 'memory.db') }),
    ).toThrow(/cannot create the folder/);
    expect(readFileSync(blocker, 'utf8')).toBe('a file where a folder should be');
  });
});

describe('database location', () => {
  const codeOfSync = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      if (isToolError(e)) return e.code;
      throw e;
    }
    return 'no error';
  };

  test('a db path naming a note inside a source is refused and the note is left as it was', () => {
    const note = dir.write('todo.md', '# Todo\n\nbuy seeds\n');
    expect(codeOfSync(() => open({ dbPath: note }))).toBe('DB_PATH_INVALID');
    expect(readFileSync(note, 'utf8')).toBe('# Todo\n\nbuy seeds\n');
    expect(existsSync(`${note}.corrupt`)).toBe(false);
    // a new file among the notes is refused too; Lectern's own folder is not
    expect(codeOfSync(() => open({ dbPath: join(dir.path, 'sub', 'index.db') }))).toBe(
      'DB_PATH_INVALID',
    );
    expect(existsSync(join(dir.path, 'sub'))).toBe(false);
    expect(codeOfSync(() => open({ dbPath: join(dir.path, '.lectern', 'other.db') }))).toBe(
      'no error',
    );
  });

  test('an existing Lectern index inside a source is accepted where it is', async () => {
    dir.write('a.md', 'apricot\n');
    const first = createMemory({
      sources: [{ id: 'notes', path: dir.path }],
      dbPath: join(dir.path, '.lectern', 'm.db'),
    });
    await first.reindex();
    await first.close();
    renameSync(join(dir.path, '.lectern', 'm.db'), join(dir.path, 'kept.db'));
    const again = open({ dbPath: join(dir.path, 'kept.db') });
    expect(paths(await again.search({ query: 'apricot' }))).toEqual(['notes/a.md']);
  });
});
