import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_CHUNK_WORDS } from '@lectern/markdown';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { prepareFile } from '../../indexer.js';
import type { AnalysedChunk } from '../../lib/analysis.js';
import {
  admits,
  ChampionBuilder,
  type ChampionLists,
  championTuning,
  chunkLengths,
  termCounts,
  unpackCounts,
} from '../../lib/champions.js';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import { writeNotes } from '../../test-helpers/notes.js';
import { comparablePage } from '../../test-helpers/pages.js';
import { postgresForTests, recordStatements, testDatabase } from '../../test-helpers/postgres.js';
import type { MemoryStore, SearchOptions } from '../../types.js';
import { sqliteBackend } from '../sqlite/backend.js';
import { postgresBackend } from './backend.js';
import { searchTuning } from './search.js';

// The champion lists on PostgreSQL (lib/champions.ts): what a full reindex stores is what the
// shared builder makes of the chunks written; an incremental reindex keeps the lists in step
// (rows of removed chunks go, new chunks that weigh enough join); a search counts a listed
// term in its list's chunks only, with the list's counts.

const url = postgresForTests('the PostgreSQL champion-list tests');

/** Rows of a search's candidate look-ups (the statements reading chunks' vectors). */
const lookups = (sent: string[], rows: Array<number | undefined>) =>
  sent.reduce((n, t, i) => n + (/ AS (v|ab)\b/.test(t) ? (rows[i] ?? 0) : 0), 0);

if (url) {
  const { schemas, admin } = testDatabase(url);

  describe('PostgreSQL champion lists', () => {
    let dir: TempDir;
    let stores: MemoryStore[];
    const tuning = { ...championTuning };

    beforeEach(() => {
      schemas.next();
      dir = tempDir();
      stores = [];
      championTuning.minDf = 6;
      championTuning.size = 4;
    });
    afterEach(async () => {
      Object.assign(championTuning, tuning);
      for (const s of stores) await s.close();
      await schemas.dropAll();
      dir.cleanup();
    });

    function open(): { store: MemoryStore; schema: string } {
      const schema = schemas.schema('main');
      const store = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        backend: postgresBackend({ url: url!, schema, poolSize: 2 }),
      });
      stores.push(store);
      return { store, schema };
    }

    /** Each stored chunk, in id order, analysed again from its note (as the indexer does). */
    async function storedChunks(schema: string) {
      const rows = (
        await admin.query(
          `SELECT c.id, f.path, c.start_line FROM "${schema}".chunks c JOIN "${schema}".files f ON f.id = c.file_id ORDER BY c.id`,
        )
      ).rows as Array<{ id: string; path: string; start_line: number }>;
      const byFile = new Map<string, Map<number, AnalysedChunk>>();
      return rows.map((r) => {
        let chunks = byFile.get(r.path);
        if (!chunks) {
          const bytes = readFileSync(join(dir.path, r.path));
          const prepared = prepareFile(
            r.path,
            bytes,
            bytes.toString('utf8'),
            false,
            'en',
            DEFAULT_MAX_CHUNK_WORDS,
          );
          chunks = new Map(prepared.chunks.map((c) => [c.startLine, c.fields]));
          byFile.set(r.path, chunks);
        }
        return { id: Number(r.id), fields: chunks.get(r.start_line)! };
      });
    }

    /** The lists as stored: per term its floor and chunks with counts, and the averages. */
    async function storedLists(schema: string) {
      const rows = (
        await admin.query(
          `SELECT term, floor, chunk_ids, counts FROM "${schema}".champions ORDER BY term`,
        )
      ).rows as Array<{ term: string; floor: number; chunk_ids: string[]; counts: string[] }>;
      const averages = (
        await admin.query(`SELECT value FROM "${schema}".meta WHERE key = 'champion_averages'`)
      ).rows[0]?.value as string | undefined;
      const lists = new Map<string, Array<[number, number, number, number]>>();
      const floors = new Map<string, number>();
      for (const r of rows) {
        floors.set(r.term, r.floor);
        if (r.chunk_ids.length === 0) continue;
        const list = r.chunk_ids.map(
          (id, k) =>
            [Number(id), ...unpackCounts(Number(r.counts[k]))] as [number, number, number, number],
        );
        lists.set(
          r.term,
          list.sort((a, b) => a[0] - b[0]),
        );
      }
      return {
        lists,
        floors,
        averages: averages ? (JSON.parse(averages) as number[]) : undefined,
      };
    }

    function expected(built: ChampionLists) {
      return {
        lists: new Map(
          built.lists.map((l) => [
            l.term,
            l.entries
              .map(
                (e) => [e.chunk, e.title, e.headings, e.body] as [number, number, number, number],
              )
              .sort((a, b) => a[0] - b[0]),
          ]),
        ),
        floors: new Map(built.lists.map((l) => [l.term, l.floor])),
        averages: [...built.averages],
      };
    }

    async function builderOn(schema: string) {
      const b = new ChampionBuilder();
      for (const c of await storedChunks(schema)) b.add(c.id, c.fields);
      return b.finish();
    }

    test('a full reindex stores the lists the shared builder makes of its chunks (and the first build)', async () => {
      writeNotes(dir, 60);
      const { store, schema } = open();
      // The first build of an index makes them as a full reindex does.
      await store.reindex();
      const first = expected(await builderOn(schema));
      expect(first.lists.size).toBeGreaterThan(3);
      expect(await storedLists(schema)).toEqual(first);
      writeNotes(dir, 80, 12);
      await store.reindex({ full: true });
      const again = expected(await builderOn(schema));
      expect(await storedLists(schema)).toEqual(again);
      // New chunk ids: the old lists are gone with their chunks.
      expect([...again.lists.values()][0]![0]![0]).toBeGreaterThan(
        Math.max(...[...first.lists.values()].flat().map((e) => e[0])),
      );
    });

    /** `term_df` as stored (terms at 0 left out), and counted again from the chunks' vectors. */
    async function frequencies(schema: string) {
      const read = async (sql: string) =>
        new Map(
          (await admin.query(sql)).rows.map((r: { term: string; df: string }) => [
            r.term,
            Number(r.df),
          ]),
        );
      return {
        stored: await read(`SELECT term, df FROM "${schema}".term_df WHERE df > 0`),
        counted: await read(
          `SELECT t AS term, count(*) AS df FROM "${schema}".chunks, unnest(tsvector_to_array(terms)) t GROUP BY t`,
        ),
      };
    }

    test("a rebuild stores each term's document frequency as its builder counted it: the chunks' vectors counted", async () => {
      writeNotes(dir, 60);
      // Folded, accented and ideographic words: the builder's terms are the vectors' lexemes.
      dir.write('u.md', '# Café crème\n\nÑandú über Straße, 東京の café; l’été «déjà»\n');
      const { store, schema } = open();
      await store.reindex();
      const first = await frequencies(schema);
      expect(first.stored.size).toBeGreaterThan(30);
      expect(first.stored.get('cafe')).toBe(1);
      expect(first.stored).toEqual(first.counted);
      writeNotes(dir, 80, 12);
      await store.reindex({ full: true });
      const full = await frequencies(schema);
      expect(full.stored).toEqual(full.counted);
      expect(full.stored).not.toEqual(first.stored);
      // An incremental reindex after it moves them batch by batch, as before.
      rmSync(join(dir.path, 'u.md'));
      dir.write('n/new.md', '# va0q fresh\n\nvb1q va0q fresh words\n');
      expect(await store.reindex()).toMatchObject({ added: 1, removed: 1 });
      const after = await frequencies(schema);
      expect(after.stored).toEqual(after.counted);
      expect(after.stored.get('fresh')).toBe(1);
      expect(after.stored.has('cafe')).toBe(false);
    });

    test('a rebuild that removes a chunk it wrote counts the document frequencies again from the chunks', async () => {
      writeNotes(dir, 20);
      const { store, schema } = open();
      await store.reindex();
      const backend = postgresBackend({ url: url!, schema, poolSize: 1 })({
        sources: [{ id: 'notes', root: dir.path }],
        dbPath: undefined,
        language: 'en',
      });
      const file = (path: string, text: string) => {
        const prepared = prepareFile(path, Buffer.from(text), text, false, 'en', 250);
        const record = {
          source: 'notes',
          path,
          size: text.length,
          mtime: 1,
          ino: 0,
          sha256: path,
          indexedAt: new Date(0).toISOString(),
          racy: false,
          language: prepared.language,
        };
        return [record, prepared.chunks] as const;
      };
      try {
        await backend.update(
          async (w) => {
            await w.clear();
            const gone = await w.addFile(...file('a.md', '# alpha\n\nalpha beta only here\n'));
            await w.addFile(...file('b.md', '# beta\n\nbeta gamma\n'));
            await w.removeFile(gone);
            await w.finish({
              sources: [{ id: 'notes', root: dir.path }],
              indexedAt: new Date(0).toISOString(),
              full: true,
              language: 'en',
            });
          },
          { busyTimeoutMs: 10_000 },
        );
      } finally {
        await backend.close();
      }
      const { stored, counted } = await frequencies(schema);
      expect(stored).toEqual(counted);
      expect(stored).toEqual(
        new Map([
          ['beta', 1],
          ['gamma', 1],
        ]),
      );
    });

    test('an incremental reindex drops the rows of removed chunks and admits new chunks that weigh enough', async () => {
      writeNotes(dir, 60);
      const { store, schema } = open();
      await store.reindex({ full: true });
      const before = await storedLists(schema);
      const [term, list] = [...before.lists].sort((a, b) => b[1].length - a[1].length)[0]!;
      // A note of the listed term only: it weighs most; one mentioning it once among many
      // other words: it weighs least.
      dir.write('heavy.md', `# ${term} ${term}\n\n${`${term} `.repeat(12)}\n`);
      dir.write('light.md', `# other\n\n${term} ${'filler words here '.repeat(30)}\n`);
      // A note in the list is removed; another in the list is changed to lose the term.
      const ids = (
        await admin.query(
          `SELECT c.id, f.path FROM "${schema}".chunks c JOIN "${schema}".files f ON f.id = c.file_id`,
        )
      ).rows as Array<{ id: string; path: string }>;
      const pathOf = new Map(ids.map((r) => [Number(r.id), r.path]));
      const listed = [...new Set(list.map((e) => pathOf.get(e[0])!))];
      expect(listed.length).toBeGreaterThan(1);
      rmSync(join(dir.path, listed[0]!));
      dir.write(listed[1]!, '# replaced\n\nnothing of it\n');
      const r = await store.reindex();
      expect(r).toMatchObject({ added: 2, removed: 1, updated: 1 });
      const after = await storedLists(schema);
      // Floors and averages are those of the build.
      expect(after.floors).toEqual(before.floors);
      expect(after.averages).toEqual(before.averages);
      // No row of a chunk that is gone.
      const orphans = await admin.query(
        `SELECT count(*)::int AS n FROM "${schema}".champions ch, unnest(ch.chunk_ids) AS x (id) WHERE NOT EXISTS (SELECT 1 FROM "${schema}".chunks c WHERE c.id = x.id)`,
      );
      expect(orphans.rows[0].n).toBe(0);
      // The new chunks: in a list exactly when `admits` says so, with their counts.
      const freshPaths = new Map(
        (
          await admin.query(
            `SELECT c.id, f.path FROM "${schema}".chunks c JOIN "${schema}".files f ON f.id = c.file_id WHERE f.path IN ('heavy.md', 'light.md')`,
          )
        ).rows.map((x: { id: string; path: string }) => [Number(x.id), x.path]),
      );
      const fresh = (await storedChunks(schema)).filter((c) => freshPaths.has(c.id));
      expect(fresh).toHaveLength(2);
      let admitted = 0;
      for (const c of fresh) {
        const lengths = chunkLengths(c.fields);
        for (const [t, counts] of termCounts(c.fields)) {
          const floor = before.floors.get(t);
          const row = after.lists.get(t)?.find((e) => e[0] === c.id);
          if (floor !== undefined && admits(floor, counts, lengths, before.averages as never)) {
            admitted++;
            expect(row, `${t} in ${freshPaths.get(c.id)}`).toEqual([c.id, ...counts]);
          } else {
            expect(row, `${t} in ${freshPaths.get(c.id)}`).toBeUndefined();
          }
        }
      }
      expect(after.lists.get(term)?.some((e) => freshPaths.get(e[0]) === 'heavy.md')).toBe(true);
      expect(after.lists.get(term)?.some((e) => freshPaths.get(e[0]) === 'light.md')).toBe(false);
      expect(admitted).toBeGreaterThan(0);
    });

    test("a listed word counts in its list only, with the list counts; its prefix in the list and the other terms' chunks", async () => {
      writeNotes(dir, 60);
      const { store, schema } = open();
      await store.reindex({ full: true });
      const { lists } = await storedLists(schema);
      const [term, list] = [...lists].sort((a, b) => b[1].length - a[1].length)[0]!;
      const df = Number(
        (await admin.query(`SELECT df FROM "${schema}".term_df WHERE term = $1`, [term])).rows[0]
          .df,
      );
      expect(df).toBeGreaterThan(list.length);
      const chunkIds = async (options: SearchOptions) => {
        const r = await store.search({ limit: 50, ...options });
        const out: number[] = [];
        for (const h of r.results) {
          const row = await admin.query(
            `SELECT c.id FROM "${schema}".chunks c JOIN "${schema}".files f ON f.id = c.file_id WHERE f.path = $1 AND c.start_line = $2`,
            [h.path.replace(/^notes\//, ''), h.start_line],
          );
          out.push(Number(row.rows[0].id));
        }
        return out;
      };
      // The term alone: exactly its list's chunks, whatever else holds it.
      expect((await chunkIds({ query: term })).sort((a, b) => a - b)).toEqual(
        list.map((e) => e[0]),
      );
      // Its prefix, with the term the only listed one of the terms it stands for: the list,
      // plus the chunks of the others.
      const prefix = await chunkIds({ query: `${term.slice(0, -1)}*` });
      for (const e of list) expect(prefix).toContain(e[0]);
      expect(prefix.length).toBeLessThan(df);
    });

    /** The notes' vocabulary (`writeNotes`'s words) in the schema's `term_df`, sorted. */
    const vocabulary = async (schema: string) =>
      (
        await admin.query(
          `SELECT term FROM "${schema}".term_df WHERE term LIKE 'v%q' ORDER BY term`,
        )
      ).rows.map((r: { term: string }) => r.term);
    /** A search's page as [path, line, score] rows. */
    const pageOf = (store: MemoryStore) => async (options: SearchOptions) => {
      const r = await store.search(options);
      return r.results.map((h) => [h.path, h.start_line, h.score]);
    };

    test('pruned or not, pages with listed terms equal the full scoring (brute force over many questions)', async () => {
      writeNotes(dir, 90);
      const { store, schema } = open();
      await store.reindex({ full: true });
      const { lists } = await storedLists(schema);
      const listed = [...lists.keys()];
      expect(listed.length).toBeGreaterThan(3);
      const vocab = await vocabulary(schema);
      const questions: SearchOptions[] = [];
      for (let q = 0; q < 40; q++) {
        const a = listed[q % listed.length]!;
        const b = vocab[(q * 7) % vocab.length]!;
        const c = vocab[(q * 13 + 5) % vocab.length]!;
        const query =
          q % 4 === 0 ? `"${a} ${b}"` : q % 4 === 1 ? `${a.slice(0, 2)}* ${c}` : `${a} ${b} ${c}`;
        questions.push({ query, limit: 1 + (q % 10) });
      }
      const page = pageOf(store);
      const previous = searchTuning.firstLookupChunks;
      try {
        let hits = 0;
        for (const options of questions) {
          searchTuning.firstLookupChunks = Number.POSITIVE_INFINITY;
          const full = await page(options);
          hits += full.length;
          for (const budget of [1, 8]) {
            searchTuning.firstLookupChunks = budget;
            expect(await page(options), `${JSON.stringify(options)} (budget ${budget})`).toEqual(
              full,
            );
          }
        }
        expect(hits).toBeGreaterThan(40);
      } finally {
        searchTuning.firstLookupChunks = previous;
      }
    });

    test('a word read in full is looked up in its list only when its floor cannot reach the page: pages equal the full scoring, also after the averages moved', async () => {
      writeNotes(dir, 90);
      const { store, schema } = open();
      await store.reindex({ full: true });
      const { lists } = await storedLists(schema);
      const listed = [...lists.keys()];
      const vocab = await vocabulary(schema);
      const questions: SearchOptions[] = [];
      for (let q = 0; q < 40; q++) {
        const a = listed[q % listed.length]!;
        const b = vocab[(q * 7 + 3) % vocab.length]!;
        const c = vocab[(q * 11 + 1) % vocab.length]!;
        questions.push({ query: q % 2 === 0 ? `${b} ${a}` : `${a} ${b} ${c}`, limit: 1 + (q % 6) });
      }
      const page = pageOf(store);
      const previous = searchTuning.firstLookupChunks;
      const counter = recordStatements();
      /** Every question pruned (small first look-ups) against the full scoring; rows read. */
      const compare = async () => {
        let pruned = 0;
        let full = 0;
        for (const options of questions) {
          searchTuning.firstLookupChunks = Number.POSITIVE_INFINITY;
          const whole = await counter.during(() => page(options));
          full += lookups(whole.sent, whole.rows);
          for (const budget of [1, 8]) {
            searchTuning.firstLookupChunks = budget;
            const r = await counter.during(() => page(options));
            expect(r.value, `${JSON.stringify(options)} (budget ${budget})`).toEqual(whole.value);
            if (budget === 1) pruned += lookups(r.sent, r.rows);
          }
        }
        return { pruned, full };
      };
      try {
        const builtLists = await storedLists(schema);
        const bodyBefore = Number(
          (await admin.query(`SELECT body / docs AS a FROM "${schema}".stats`)).rows[0].a,
        );
        const built = await compare();
        // The lists spare reading: fewer candidates than the full scoring reads.
        expect(built.pruned).toBeLessThan(built.full);
        // Longer titles and bodies of other words (averages up), a note gone: lists and
        // floors stay those of the build, and a chunk outside a list may now weigh more.
        for (let i = 0; i < 40; i++) {
          dir.write(
            `long/${i}.md`,
            `# ${'title words of filler '.repeat(3)}${i}\n\n${'filler body text '.repeat(40)}\n`,
          );
        }
        rmSync(join(dir.path, 'n/000.md'));
        await store.reindex();
        expect((await storedLists(schema)).averages).toEqual(builtLists.averages);
        const bodyAverage = async () =>
          Number((await admin.query(`SELECT body / docs AS a FROM "${schema}".stats`)).rows[0].a);
        expect(await bodyAverage()).toBeGreaterThan(1.5 * bodyBefore);
        await compare();
      } finally {
        searchTuning.firstLookupChunks = previous;
        counter.restore();
      }
    });

    test('words, prefixes and phrases of listed terms rank exactly as on SQLite (same lists, same scores)', async () => {
      writeNotes(dir, 90);
      // Phrases of listed words in titles and headings, and in bodies in and out of the lists
      // (under the phrase cap: a capped phrase keeps the newest chunks, whose ids differ).
      dir.write('p/title.md', '# va0q vb1q\n\nnothing else here\n\n## vb1q va0q\n\nmore text\n');
      dir.write('p/body.md', `# plain\n\n${'va0q vb1q '.repeat(5)}\n`);
      dir.write('p/once.md', '# plain again\n\none va0q vb1q among other words of a longer body\n');
      const { store, schema } = open();
      await store.reindex({ full: true });
      const lite = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        backend: sqliteBackend({ path: `${dir.path}/.lectern/memory.db` }),
      });
      stores.push(lite);
      await lite.reindex({ full: true });
      const { lists } = await storedLists(schema);
      const listed = [...lists.keys()];
      expect(listed).toEqual(expect.arrayContaining(['va0q', 'vb1q']));
      // Scores in order, chunks of a score as a set (see `comparablePage`).
      const shown = comparablePage;
      const queries = [
        ...listed.slice(0, 6),
        `${listed[0]} ${listed[1]}`,
        `${listed[0]} vz25q`,
        'va*',
        'v*',
        'vb1*',
        '"va0q vb1q"',
        // once.md is found by "longer", its phrase counts there as in every chunk holding it.
        '"va0q vb1q" longer',
        '"vb1q va0q"',
        `"${listed[2]} ${listed[3]}"`,
        `"va0q vz25q"`,
        'what is va0q in vb1q and vc2q?',
      ];
      let found = 0;
      for (const query of queries) {
        const pg = await shown(store, { query });
        if (pg.scores.length > 0) found++;
        expect(pg, query).toEqual(await shown(lite, { query }));
      }
      expect(found).toBeGreaterThanOrEqual(queries.length - 2);
    });
  });
}
