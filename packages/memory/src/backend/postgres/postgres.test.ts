import { renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isToolError } from '@lectern/core';
import { bySize } from '@lectern/core/testing';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { parseQuery } from '../../lib/query.js';
import { RACY_MS } from '../../limits.js';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import { postgresForTests, recordStatements, testSchemas } from '../../test-helpers/postgres.js';
import { memoryBackendSuite } from '../../test-helpers/suite.js';
import type { MemoryStore } from '../../types.js';
import { postgresBackend } from './backend.js';
import { isPostgresUrl, loadDriverWith, poolConfig, RAISE_WORK_MEM, redactUrl } from './driver.js';
import { namesOf } from './schema.js';

// Driver and option handling: no server needed.
describe('PostgreSQL options', () => {
  test('a missing pg driver is a clear error naming the package', () => {
    let error: unknown;
    try {
      // What Node's require throws when a package is not installed.
      loadDriverWith((id) => {
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      });
    } catch (e) {
      error = e;
    }
    expect(isToolError(error) && error.code).toBe('DB_DRIVER_MISSING');
    expect((error as Error).message).toMatch(/`pg` package/);
  });

  test('URLs are recognised, and a password never appears in what is shown', () => {
    expect(isPostgresUrl('postgres://h/db')).toBe(true);
    expect(isPostgresUrl('postgresql://h/db')).toBe(true);
    expect(isPostgresUrl('/var/lib/memory.db')).toBe(false);
    const shown = redactUrl('postgres://team:s3cret-pw@db.example:5432/notes?password=x');
    expect(shown).not.toMatch(/s3cret|password=x/);
    expect(shown).toContain('team:***@db.example:5432/notes');
  });

  test('TLS options are passed through, and win over a URL sslmode', () => {
    const dir = tempDir();
    try {
      const ca = dir.write(
        'ca.pem',
        '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      );
      const config = poolConfig(
        {
          url: 'postgres://u@h/db?sslmode=disable',
          tls: { ca, rejectUnauthorized: true, servername: 'db.internal' },
        },
        'postgres://u@h/db?sslmode=disable',
      );
      expect(config.ssl).toEqual({
        ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
        rejectUnauthorized: true,
        servername: 'db.internal',
      });
      expect(config.connectionString).not.toContain('sslmode');
      const missing = (() => {
        try {
          poolConfig({ url: 'postgres://u@h/db', tls: { ca: join(dir.path, 'nope.pem') } }, 'x');
        } catch (e) {
          return e as Error;
        }
      })();
      expect(missing?.message).toMatch(/cannot read the TLS ca file/);
    } finally {
      dir.cleanup();
    }
  });

  test('the password comes from the named environment variable, and its absence is explained', () => {
    process.env.LECTERN_TEST_PW = 'from-env';
    try {
      expect(
        poolConfig({ url: 'postgres://u@h/db', passwordEnv: 'LECTERN_TEST_PW' }, 'x'),
      ).toMatchObject({
        password: 'from-env',
      });
    } finally {
      delete process.env.LECTERN_TEST_PW;
    }
    expect(() =>
      poolConfig({ url: 'postgres://u@h/db', passwordEnv: 'LECTERN_TEST_PW' }, 'x'),
    ).toThrow(/LECTERN_TEST_PW is not set/);
  });

  test('schema names are plain identifiers', () => {
    expect(() => namesOf('team_a')).not.toThrow();
    expect(() => namesOf('a"; drop table x; --')).toThrow(/not a plain name/);
  });
});

const url = postgresForTests('the memory suite on PostgreSQL');

if (url) {
  const schemas = testSchemas(url);
  afterAll(() => schemas.close());

  // The shared suite: every database of a test is a schema of its own in one database.
  memoryBackendSuite({
    name: 'PostgreSQL',
    backend: (db = 'main') => postgresBackend({ url, schema: schemas.schema(db), poolSize: 2 }),
    beforeEach: () => schemas.next(),
    afterEach: () => schemas.dropAll(),
    expressions: { prefix: '"deploy"*' },
    raw: {
      either: 'deployments | canela',
      headingOnly: 'incidents:B',
      invalid: ['&(', 'deploy &', '(canela', 'a <-> ', '!'],
    },
  });

  describe('PostgreSQL only', () => {
    let dir: TempDir;
    let stores: MemoryStore[];
    let admin: pg.Pool;

    beforeEach(() => {
      schemas.next();
      dir = tempDir();
      stores = [];
      admin = new pg.Pool({ connectionString: url, max: 2 });
    });
    afterEach(async () => {
      for (const s of stores) await s.close();
      await admin.end();
      await schemas.dropAll();
      dir.cleanup();
    });

    function open(
      options: { path?: string; machine?: string; schema?: string; id?: string } = {},
    ): MemoryStore {
      const store = createMemory({
        sources: [{ id: options.id ?? 'notes', path: options.path ?? dir.path }],
        backend: postgresBackend({
          url: url!,
          schema: options.schema ?? schemas.schema('main'),
          poolSize: 2,
          ...(options.machine ? { machine: options.machine } : {}),
        }),
      });
      stores.push(store);
      return store;
    }

    const paths = (r: { results: Array<{ path: string }> }) => r.results.map((c) => c.path).sort();

    test('no query text is ever a syntax error on the real server', async () => {
      dir.write('a.md', '# Heading\n\nsome body text with café and AND NEAR or & | ! <-> :*\n');
      const store = open();
      await store.reindex();
      const alphabet = [
        '"',
        '*',
        '-',
        '+',
        '(',
        ')',
        ':',
        '^',
        '{',
        '}',
        ' ',
        ',',
        '.',
        '&',
        '|',
        '!',
        '<',
        '>',
        '<->',
        "'",
        '\\',
        '\u0000',
        '\t',
        'AND',
        'OR',
        'NOT',
        'a',
        'é',
        'café',
        'body',
        ':A',
        ':*',
        '$$',
        ';',
        '--',
      ];
      const check = async (text: string) => {
        if (parseQuery(text).length === 0) return;
        const r = await store.search({ query: text });
        expect(r).toHaveProperty('results');
      };
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }), (parts) =>
          check(parts.join('')),
        ),
        { numRuns: bySize(150, 2000) },
      );
      await fc.assert(fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 60 }), check), {
        numRuns: bySize(150, 2000),
      });
      expect(paths(await store.search({ query: 'AND NEAR' }))).toEqual(['notes/a.md']);
      expect(paths(await store.search({ query: "<-> ! & | ' :* body:*" }))).toEqual(['notes/a.md']);
    }, 120_000);

    test('two machines with their own checkouts share one source without duplicates or ping-pong', async () => {
      const other = tempDir();
      try {
        // Written a while ago (a file younger than 2 s is re-hashed by every reindex anyway).
        const old = new Date(Date.now() - 60_000);
        for (let i = 0; i < 20; i++) {
          const text = `# Note ${i}\n\nshared walnut ${i}\n`;
          utimesSync(dir.write(`n${i}.md`, text), old, old);
          utimesSync(other.write(`n${i}.md`, text), old, old);
        }
        // A file's change time is the later of mtime and ctime, and ctime cannot be set back:
        // let the files age past the racy window instead.
        await new Promise((r) => setTimeout(r, RACY_MS + 250));
        const a = open({ machine: 'alpha' });
        const b = open({ machine: 'beta', path: other.path });
        const [ra, rb] = await Promise.all([a.reindex(), b.reindex()]);
        expect(ra.added + rb.added).toBe(20);
        expect(ra.files).toBe(20);
        expect(rb.files).toBe(20);
        // The second machine found the same content under its own stat: nothing rewritten.
        const rows = async () =>
          (
            await admin.query(
              `SELECT path, origin, indexed_at FROM "${schemas.schema('main')}".files ORDER BY path`,
            )
          ).rows;
        const before = await rows();
        expect(before).toHaveLength(20);
        for (let round = 0; round < 2; round++) {
          expect(await a.reindex()).toMatchObject({
            added: 0,
            updated: 0,
            removed: 0,
            unchanged: 20,
          });
          expect(await b.reindex()).toMatchObject({
            added: 0,
            updated: 0,
            removed: 0,
            unchanged: 20,
          });
        }
        expect(await rows()).toEqual(before);
        // Each machine judges staleness by its own files.
        for (const s of [a, b]) {
          const r = await s.search({ query: 'walnut', limit: 50 });
          expect(r.results).toHaveLength(20);
          expect(r.results.every((c) => !c.stale)).toBe(true);
          expect((await s.listSources()).sources[0]!.pending).toEqual({
            new: 0,
            changed: 0,
            deleted: 0,
          });
        }
        // An edit on one machine is seen by the other's searches (the index is shared).
        dir.write('n3.md', '# Note 3\n\nshared walnut 3 and a pecan\n');
        expect(await a.reindex()).toMatchObject({ updated: 1 });
        expect(paths(await b.search({ query: 'pecan' }))).toEqual(['notes/n3.md']);
      } finally {
        other.cleanup();
      }
    });

    test('concurrent reindexes from several stores lose nothing', async () => {
      const stores = [open({ machine: 'm1' }), open({ machine: 'm2' }), open({ machine: 'm3' })];
      let written = 0;
      for (let round = 0; round < 4; round++) {
        for (let k = 0; k < 15; k++) {
          dir.write(`r${round}/f${k}.md`, `# File ${written}\n\nmarker${written} chestnut\n`);
          written++;
        }
        const results = await Promise.all(stores.map((s) => s.reindex()));
        for (const r of results) expect(r.errors).toEqual([]);
      }
      const final = await stores[0]!.reindex();
      expect(final).toMatchObject({ files: written, chunks: written, added: 0 });
      const s = schemas.schema('main');
      const counts = (
        await admin.query(
          `SELECT (SELECT count(*) FROM "${s}".files)::int AS files,
            (SELECT count(*) FROM "${s}".chunks)::int AS chunks,
            (SELECT count(DISTINCT path) FROM "${s}".files)::int AS paths,
            (SELECT value FROM "${s}".meta WHERE key = 'chunk_count') AS recorded`,
        )
      ).rows[0];
      expect(counts).toEqual({
        files: written,
        chunks: written,
        paths: written,
        recorded: String(written),
      });
      for (let i = 0; i < written; i += 7) {
        expect((await stores[i % 3]!.search({ query: `marker${i}` })).results).toHaveLength(1);
      }
    });

    test('a search during a reindex sees every note as it was or as it is, never half', async () => {
      const FILES = 120;
      const note = (i: number, gen: string) =>
        `# Note ${i}\n\nEvery note mentions the zebra.\n\n${i < 30 ? `Marked ${gen}.` : 'Unmarked.'}\n`;
      for (let i = 0; i < FILES; i++) dir.write(`n${i}.md`, note(i, 'genone'));
      const writer = open({ machine: 'w' });
      const reader = open({ machine: 'r' });
      await writer.reindex();
      for (let i = 0; i < 30; i++) writeFileSync(join(dir.path, `n${i}.md`), note(i, 'gentwo'));
      let checked = 0;
      const r = await writer.reindex({
        full: true,
        onProgress: async () => {
          // Called at the start (after the full reindex cleared every row, uncommitted), at
          // most every 100 ms, and at the end: always inside the transaction.
          if (checked >= 5) return;
          // Inside the writer's transaction: the reader sees the committed, complete index.
          checked++;
          const one = await reader.search({ query: 'genone', limit: 50 });
          const two = await reader.search({ query: 'gentwo', limit: 50 });
          const zebra = await reader.search({ query: 'zebra', limit: 50 });
          expect(one.results).toHaveLength(30);
          expect(two.results).toHaveLength(0);
          expect(zebra.next_offset).toBe(50);
          expect((await reader.listSources()).sources[0]).toMatchObject({
            files: FILES,
            chunks: FILES,
          });
        },
      });
      expect(checked).toBeGreaterThanOrEqual(2);
      expect(r.files).toBe(FILES);
      expect((await reader.search({ query: 'gentwo', limit: 50 })).results).toHaveLength(30);
      expect((await reader.search({ query: 'genone', limit: 50 })).results).toHaveLength(0);
    });

    test('a reindex waits for another one holding the lock, and gives up with INDEX_BUSY', async () => {
      dir.write('a.md', 'apple\n');
      const s = schemas.schema('main');
      const first = open();
      await first.reindex();
      const hold = await admin.connect();
      try {
        await hold.query('BEGIN');
        const key = (
          await hold.query(
            "SELECT pg_try_advisory_xact_lock(19525, (SELECT ('x' || substr(encode(sha256($1::bytea), 'hex'), 1, 8))::bit(32)::int)) AS ok",
            [s],
          )
        ).rows[0];
        expect(key.ok).toBe(true);
        const busy = createMemory({
          sources: [{ id: 'notes', path: dir.path }],
          busyTimeoutMs: 300,
          backend: postgresBackend({ url: url!, schema: s, poolSize: 1 }),
        });
        stores.push(busy);
        const error = await busy.reindex().catch((e) => e);
        expect(error.code).toBe('INDEX_BUSY');
        const waiting = first.reindex();
        await new Promise((r) => setTimeout(r, 200));
        await hold.query('COMMIT');
        expect(await waiting).toMatchObject({ unchanged: 1 });
      } finally {
        await hold.query('ROLLBACK').catch(() => {});
        hold.release();
      }
    });

    test('the schema is versioned, and one written by a newer Lectern is refused', async () => {
      dir.write('a.md', 'apple\n');
      const s = schemas.schema('main');
      const store = open();
      await store.reindex();
      const versions = (await admin.query(`SELECT version FROM "${s}".lectern_schema`)).rows;
      expect(versions).toEqual([1, 2, 3, 4, 5, 6].map((version) => ({ version })));
      await admin.query(`INSERT INTO "${s}".lectern_schema (version) VALUES (99)`);
      const newer = open();
      const error = await newer.search({ query: 'apple' }).catch((e) => e);
      expect(error.code).toBe('DB_UNAVAILABLE');
      expect(error.message).toMatch(/version 99, written by a newer Lectern/);
    });

    test('the ranking statistics (term frequencies, totals) stay equal to the chunks through edits, renames, removals and a dropped source', async () => {
      const s = schemas.schema('main');
      const check = async () => {
        const kept = (
          await admin.query(
            `SELECT term, df FROM "${s}".term_df WHERE df > 0 ORDER BY term COLLATE "C"`,
          )
        ).rows;
        const actual = (
          await admin.query(
            `SELECT t AS term, count(*)::int AS df FROM "${s}".chunks, unnest(tsvector_to_array(terms)) t GROUP BY t ORDER BY t COLLATE "C"`,
          )
        ).rows;
        expect(kept).toEqual(actual);
        const stats = (await admin.query(`SELECT docs, title, headings, body FROM "${s}".stats`))
          .rows[0];
        const sums = (
          await admin.query(
            `SELECT count(*)::bigint AS docs, coalesce(sum(title_len), 0)::bigint AS title, coalesce(sum(headings_len), 0)::bigint AS headings, coalesce(sum(body_len), 0)::bigint AS body FROM "${s}".chunks`,
          )
        ).rows[0];
        expect(stats).toEqual(sums);
        expect(Number(stats.docs)).toBeGreaterThan(0);
      };
      for (let i = 0; i < 6; i++) {
        dir.write(
          `n${i}.md`,
          `# Note ${i}\n\nApples and pears, note ${i}.\n\n## More\n\nPears ${i}.\n`,
        );
      }
      const store = open();
      await store.reindex();
      await check();
      dir.write('n0.md', '# Changed\n\nOnly plums now.\n');
      renameSync(join(dir.path, 'n1.md'), join(dir.path, 'moved.md'));
      rmSync(join(dir.path, 'n2.md'));
      dir.write('new.md', '# New\n\nApples again, and cherries.\n');
      await store.reindex();
      await check();
      await store.reindex({ full: true });
      await check();
      const other = tempDir();
      try {
        other.write('x.md', '# Elsewhere\n\nApricots.\n');
        const both = createMemory({
          sources: [
            { id: 'notes', path: dir.path },
            { id: 'x', path: other.path },
          ],
          backend: postgresBackend({ url: url!, schema: s, poolSize: 2 }),
        });
        await both.reindex();
        await check();
        await both.close();
        await open().reindex();
        await check();
      } finally {
        other.cleanup();
      }
    });

    test('an unreachable server is DB_UNAVAILABLE, and its message never shows the password', async () => {
      dir.write('a.md', 'apple\n');
      const bad = new URL(url!);
      bad.password = 'hunter2-secret';
      bad.port = '1';
      const store = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        dbPath: bad.toString(),
      });
      stores.push(store);
      expect(store.dbPath).not.toContain('hunter2');
      expect(store.dbPath).toContain('***');
      const error = await store.search({ query: 'apple' }).catch((e) => e);
      expect(error.code).toBe('DB_UNAVAILABLE');
      expect(error.message).not.toContain('hunter2');
      expect(JSON.stringify(error.details ?? {})).not.toContain('hunter2');
    });

    test('a postgres:// dbPath selects this backend, with the schema from the URL', async () => {
      dir.write('a.md', '# Fruit\n\nmango\n');
      const s = schemas.schema('byurl');
      const u = new URL(url!);
      u.searchParams.set('schema', s);
      const store = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        dbPath: u.toString(),
      });
      stores.push(store);
      expect(paths(await store.search({ query: 'mango' }))).toEqual(['notes/a.md']);
      const n = (await admin.query(`SELECT count(*)::int AS n FROM "${s}".files`)).rows[0].n;
      expect(n).toBe(1);
    });

    /** `files` notes of `sections` headings each (one chunk per section), headed `word`. */
    function manyChunks(prefix: string, files: number, sections: number, word: string): void {
      for (let f = 0; f < files; f++) {
        const parts = [`# ${prefix} ${f}`, ''];
        for (let i = 0; i < sections; i++) parts.push(`## ${word} ${i}`, '', `body ${f} ${i}`, '');
        dir.write(`${prefix}/n${f}.md`, parts.join('\n'));
      }
    }

    const counts = async (schema: string) =>
      (
        await admin.query(
          `SELECT (SELECT count(*) FROM "${schema}".files)::int AS files, (SELECT count(*) FROM "${schema}".chunks)::int AS chunks`,
        )
      ).rows[0] as { files: number; chunks: number };

    test('a batch that fails while the next one is prepared fails the reindex, and nothing of it is committed', async () => {
      dir.write('a.md', '# Fruit\n\nmango\n');
      const s = schemas.schema('main');
      const store = open();
      await store.reindex();
      const before = await counts(s);
      // Every new chunk is refused by the server: the first batch (sent in the background once
      // 2,000 chunks are queued) fails while the indexer keeps preparing notes.
      await admin.query(`CREATE FUNCTION "${s}".refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.heading_path LIKE '%explode%' THEN RAISE EXCEPTION 'refused by the test trigger'; END IF;
          RETURN NEW;
        END $$`);
      await admin.query(
        `CREATE TRIGGER refuse BEFORE INSERT ON "${s}".chunks FOR EACH ROW EXECUTE FUNCTION "${s}".refuse()`,
      );
      manyChunks('bulk', 40, 100, 'explode');
      const error = await store.reindex().catch((e: unknown) => e);
      expect(String((error as Error).message)).toContain('refused by the test trigger');
      expect(await counts(s)).toEqual(before);
      expect(paths(await store.search({ query: 'mango' }))).toEqual(['notes/a.md']);
      // The connection went back to the pool in a clean state: the next reindex works.
      await admin.query(`DROP TRIGGER refuse ON "${s}".chunks`);
      const r = await store.reindex();
      expect(r).toMatchObject({ added: 40, files: 41 });
      expect(r.chunks).toBeGreaterThan(4000);
      expect(await counts(s)).toEqual({ files: 41, chunks: r.chunks });
    }, 180_000);

    test('a reindex cancelled while batches are on their way leaves the index as it was', async () => {
      dir.write('a.md', '# Fruit\n\nmango\n');
      const s = schemas.schema('main');
      const store = open();
      await store.reindex();
      const before = await counts(s);
      // Each batch takes a while on the server, so the cancel lands while one is in flight.
      await admin.query(`CREATE FUNCTION "${s}".slow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$`);
      await admin.query(
        `CREATE TRIGGER slow AFTER INSERT ON "${s}".chunks FOR EACH STATEMENT EXECUTE FUNCTION "${s}".slow()`,
      );
      manyChunks('bulk', 60, 100, 'section');
      const controller = new AbortController();
      const error = await store
        .reindex({
          signal: controller.signal,
          onProgress: (done) => {
            if (done >= 30) controller.abort();
          },
        })
        .catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe('CANCELLED');
      expect(await counts(s)).toEqual(before);
      await admin.query(`DROP TRIGGER slow ON "${s}".chunks`);
      expect(await store.reindex()).toMatchObject({ added: 60, files: 61 });
    }, 180_000);

    test('another writer committing is noticed: the cached file list is reloaded', async () => {
      dir.write('a.md', '# A\n\napple\n');
      dir.write('b.md', '# B\n\nbanana\n');
      const first = open();
      const second = open();
      await first.reindex();
      // Both stores now hold the committed file list in memory.
      expect(await second.reindex()).toMatchObject({ unchanged: 2, added: 0 });
      // The second store removes b.md; the first one's cached row for it is now gone from the
      // database. b.md comes back with other content: the first store must add it, not
      // rewrite the row it remembered.
      rmSync(join(dir.path, 'b.md'));
      expect(await second.reindex()).toMatchObject({ removed: 1, files: 1 });
      dir.write('b.md', '# B\n\nblueberry, a different note now\n');
      const r = await first.reindex();
      expect(r).toMatchObject({ added: 1, updated: 0, files: 2, errors: [] });
      expect(paths(await second.search({ query: 'blueberry' }))).toEqual(['notes/b.md']);
      expect((await second.search({ query: 'banana' })).results).toHaveLength(0);
      expect(await counts(schemas.schema('main'))).toEqual({ files: 2, chunks: r.chunks });
    });

    test('a one-note reindex reads the meta rows once and ends in one statement', async () => {
      for (let i = 0; i < 5; i++) dir.write(`n${i}.md`, `# Note ${i}\n\nplum ${i}\n`);
      const store = open();
      await store.reindex();
      const past = new Date(Date.now() - 60_000);
      for (let i = 0; i < 5; i++) utimesSync(join(dir.path, `n${i}.md`), past, past);
      // The ctime utimes just set counts too (change time is the later of the two): age past
      // the racy window, so the unchanged notes are not re-hashed.
      await new Promise((r) => setTimeout(r, RACY_MS + 250));
      await store.reindex();
      writeFileSync(join(dir.path, 'n3.md'), '# Note 3\n\nplum 3, and a quince now\n');
      const recorder = recordStatements();
      let r: Awaited<ReturnType<MemoryStore['reindex']>>;
      try {
        r = await store.reindex();
      } finally {
        recorder.restore();
      }
      const sent = recorder.texts;
      expect(r).toMatchObject({ updated: 1, unchanged: 4, files: 5 });
      // BEGIN, lock, meta, sources, problems, four for the changed note, the end, COMMIT.
      expect(sent).toHaveLength(11);
      expect(sent.filter((q) => /\.meta\b/.test(q))).toHaveLength(2); // read once, written once
      expect(sent.at(-1)).toBe('COMMIT');
      expect(paths(await store.search({ query: 'quince' }))).toEqual(['notes/n3.md']);
      // The generation written by the end statement is the one another store checks.
      const other = open();
      expect(await other.reindex()).toMatchObject({ unchanged: 5, updated: 0 });
    });

    test('every connection raises work_mem to 16 MB first, and never lowers a higher setting', async () => {
      const c = await admin.connect();
      try {
        const show = async () => (await c.query('SHOW work_mem')).rows[0].work_mem;
        await c.query("SET work_mem = '4MB'");
        await c.query(RAISE_WORK_MEM);
        expect(await show()).toBe('16MB');
        await c.query("SET work_mem = '64MB'");
        await c.query(RAISE_WORK_MEM);
        expect(await show()).toBe('64MB');
      } finally {
        c.release(true);
      }
      dir.write('a.md', '# Plums\n\nplum jam\n');
      const recorder = recordStatements();
      try {
        const store = open();
        await store.reindex();
        expect(paths(await store.search({ query: 'plum' }))).toEqual(['notes/a.md']);
      } finally {
        recorder.restore();
      }
      const sent = recorder.byClient;
      expect(sent.size).toBeGreaterThan(0);
      for (const list of sent.values()) expect(list[0]).toBe(RAISE_WORK_MEM);
    });

    test('a bulk reindex analyzes the tables when it commits, a rebuild vacuums them after, a small one leaves both to autovacuum', async () => {
      const counts = async () => {
        const row = (
          await admin.query(
            "SELECT analyze_count, vacuum_count FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'chunks'",
            [schemas.schema('main')],
          )
        ).rows[0];
        return {
          analyzed: Number(row?.analyze_count ?? -1),
          vacuumed: Number(row?.vacuum_count ?? -1),
        };
      };
      dir.write('first.md', '# First\n\nplum\n');
      const store = open();
      await store.reindex();
      expect(await counts()).toEqual({ analyzed: 0, vacuumed: 0 }); // one chunk: not worth it
      const note = (i: number) =>
        [1, 2, 3].map((k) => `## Part ${k} of ${i}\n\nquince ${i} ${k}\n`).join('\n');
      for (let i = 0; i < 40; i++) dir.write(`n${i}.md`, note(i));
      expect(await store.reindex()).toMatchObject({ added: 40 });
      // 120 new chunks: statistics before the reindex returns.
      expect(await counts()).toEqual({ analyzed: 1, vacuumed: 0 });
      expect(
        Number(
          (
            await admin.query(
              "SELECT count(*) AS n FROM pg_stats WHERE schemaname = $1 AND tablename = 'chunks'",
              [schemas.schema('main')],
            )
          ).rows[0].n,
        ),
      ).toBeGreaterThan(0);
      dir.write('n7.md', `${note(7)}\nmore\n`);
      expect(await store.reindex({ full: false })).toMatchObject({ updated: 1 });
      expect(await counts()).toEqual({ analyzed: 1, vacuumed: 0 }); // 6 chunk rows of 121
      // A rebuild deletes every row: vacuumed (and analyzed) once it has returned; closing the
      // store waits for that, and searches meanwhile see the new index.
      expect(await store.reindex({ full: true })).toMatchObject({ files: 41 });
      expect(paths(await store.search({ query: 'quince' }))).toHaveLength(10);
      await store.close();
      expect(await counts()).toEqual({ analyzed: 2, vacuumed: 1 });
    });
  });
}
