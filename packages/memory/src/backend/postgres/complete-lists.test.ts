import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { championTuning, unpackCounts } from '../../lib/champions.js';
import { createMemory } from '../../store.js';
import type { TempDir } from '../../test-helpers/fs.js';
import { writeNotes } from '../../test-helpers/notes.js';
import { comparablePage } from '../../test-helpers/pages.js';
import { postgresForTests, testDatabase, testStores } from '../../test-helpers/postgres.js';
import type { MemoryStore, SearchOptions } from '../../types.js';
import { sqliteBackend } from '../sqlite/backend.js';
import { postgresBackend } from './backend.js';
import { pgListTuning } from './champions.js';
import { searchTuning } from './search.js';

// PostgreSQL's complete lists (`pgListTuning`): a term in more chunks than `completeMinDf` and
// too few for a champion list keeps every chunk holding it, floor 0. A search reads them
// instead of cutting each chunk's vector; the ranking is the one SQLite gives, before and
// after incremental reindexes (removed chunks' ids stay in the lists and are never found).

const url = postgresForTests('the PostgreSQL complete-list tests');

if (url) {
  const { schemas, admin } = testDatabase(url);

  describe('PostgreSQL complete lists', () => {
    const per = testStores(schemas);
    const champions = { ...championTuning };
    const complete = { ...pgListTuning };
    let dir: TempDir;
    let stores: MemoryStore[];

    beforeEach(() => {
      ({ dir, stores } = per);
      championTuning.minDf = 40;
      championTuning.size = 6;
      pgListTuning.completeMinDf = 2;
    });
    afterEach(() => {
      Object.assign(championTuning, champions);
      Object.assign(pgListTuning, complete);
    });

    function open(): { store: MemoryStore; lite: MemoryStore; schema: string } {
      const schema = schemas.schema('main');
      const store = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        backend: postgresBackend({ url: url!, schema, poolSize: 2 }),
      });
      const lite = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        backend: sqliteBackend({ path: `${dir.path}/.lectern/memory.db` }),
      });
      stores.push(store, lite);
      return { store, lite, schema };
    }

    /**
     * Per term: its list's floor and chunks with counts (ascending ids; with the rows of
     * `champions_added`), and its `term_df`.
     */
    async function lists(schema: string) {
      const rows = (
        await admin.query(
          `SELECT ch.term, ch.floor, ch.chunk_ids || coalesce(a.ids, '{}') AS chunk_ids,
              ch.counts || coalesce(a.counts, '{}') AS counts, d.df
            FROM "${schema}".champions ch JOIN "${schema}".term_df d ON d.term = ch.term
            LEFT JOIN (SELECT term, array_agg(chunk_id) AS ids, array_agg(counts) AS counts
              FROM "${schema}".champions_added GROUP BY term) a ON a.term = ch.term
            ORDER BY ch.term`,
        )
      ).rows as Array<{
        term: string;
        floor: number;
        chunk_ids: string[];
        counts: string[];
        df: number;
      }>;
      return new Map(
        rows.map((r) => [
          r.term,
          {
            floor: r.floor,
            df: r.df,
            entries: r.chunk_ids
              .map((id, k) => [Number(id), ...unpackCounts(Number(r.counts[k]))])
              .sort((a, b) => a[0]! - b[0]!),
          },
        ]),
      );
    }

    /** Every chunk holding `term`, with its title, heading-path and body counts, from its vector. */
    async function holding(schema: string, term: string) {
      const rows = (
        await admin.query(
          `SELECT c.id, u.weights FROM "${schema}".chunks c, unnest(c.terms) u
            WHERE c.terms @@ to_tsquery('simple', quote_literal($1)) AND u.lexeme = $1 ORDER BY c.id`,
          [term],
        )
      ).rows as Array<{ id: string; weights: string[] }>;
      return rows.map((r) => {
        const w = r.weights;
        const n = (x: string) => w.filter((y) => y === x).length;
        return [Number(r.id), n('A'), n('B'), n('D')];
      });
    }

    const shown = (s: MemoryStore, options: SearchOptions) => comparablePage(s, options, 15);

    /** Words of every kind of list, their prefixes, phrases and a question. */
    function questions(terms: Map<string, { floor: number }>): string[] {
      const full = [...terms].filter(([, l]) => l.floor === 0).map(([t]) => t);
      const best = [...terms].filter(([, l]) => l.floor > 0).map(([t]) => t);
      expect(full.length).toBeGreaterThan(5);
      expect(best.length).toBeGreaterThan(1);
      return [
        ...full.slice(0, 4),
        `${full[0]} ${full[1]}`,
        `${full[2]} ${best[0]}`,
        'v*',
        'vb*',
        `${full[3]!.slice(0, 3)}*`,
        `${full[4]!.slice(0, 2)}* ${full[5]}`,
        `"${full[0]} ${best[0]}"`,
        `what is ${full[1]} in ${full[2]} and ${best[1]}?`,
      ];
    }

    test('a full reindex keeps every chunk of a term below the champion lists, with its counts, floor 0', async () => {
      writeNotes(dir, 90);
      const { store, schema } = open();
      await store.reindex({ full: true });
      const stored = await lists(schema);
      let complete = 0;
      for (const [term, list] of stored) {
        if (list.df > championTuning.minDf) {
          expect(list.floor, term).toBeGreaterThan(0);
          expect(list.entries.length, term).toBe(championTuning.size);
          continue;
        }
        complete++;
        expect(list.floor, term).toBe(0);
        expect(list.df, term).toBeGreaterThan(pgListTuning.completeMinDf);
        expect(list.entries, term).toEqual(await holding(schema, term));
      }
      expect(complete).toBeGreaterThan(5);
      // Terms in two chunks or fewer have no list.
      const small = await admin.query(
        `SELECT count(*)::int AS n FROM "${schema}".term_df d WHERE d.df BETWEEN 1 AND 2
          AND EXISTS (SELECT 1 FROM "${schema}".champions ch WHERE ch.term = d.term)`,
      );
      expect(small.rows[0].n).toBe(0);
    });

    test.each([
      ['kept as rows', 50_000],
      ['folded into the lists', 1],
    ])(
      'pages read from complete lists equal SQLite and the full scoring, before and after an incremental reindex (new chunks %s)',
      async (_, foldAt) => {
        pgListTuning.foldAt = foldAt;
        writeNotes(dir, 90);
        const { store, lite, schema } = open();
        await store.reindex({ full: true });
        await lite.reindex({ full: true });
        const queries = questions(await lists(schema));
        const check = async () => {
          let found = 0;
          for (const query of queries) {
            const onPg = await shown(store, { query });
            if (onPg.scores.length > 0) found++;
            expect(onPg, query).toEqual(await shown(lite, { query }));
            // Pruned or not: the same page as a search that looks every clause up at once.
            const previous = searchTuning.firstLookupChunks;
            try {
              searchTuning.firstLookupChunks = 1;
              const pruned = await shown(store, { query });
              searchTuning.firstLookupChunks = Number.POSITIVE_INFINITY;
              expect(pruned, query).toEqual(await shown(store, { query }));
            } finally {
              searchTuning.firstLookupChunks = previous;
            }
          }
          expect(found).toBeGreaterThanOrEqual(queries.length - 2);
        };
        await check();

        // Remove a note, empty another, add two: the lists keep the removed chunks' ids and
        // gain the new chunks holding their terms.
        const before = await lists(schema);
        const [term] = [...before].find(([, l]) => l.floor === 0 && l.entries.length > 3)!;
        const paths = (
          await admin.query(
            `SELECT DISTINCT f.path FROM "${schema}".chunks c JOIN "${schema}".files f ON f.id = c.file_id
            WHERE c.id = ANY($1::bigint[]) ORDER BY f.path`,
            [before.get(term)!.entries.map((e) => e[0])],
          )
        ).rows.map((r: { path: string }) => r.path);
        rmSync(join(dir.path, paths[0]!));
        dir.write(paths[1]!, '# emptied\n\nnothing of it\n');
        dir.write('new/one.md', `# ${term} again\n\n${term} ${term} and more words\n`);
        dir.write('new/two.md', `# other\n\nonce ${term} among others\n`);
        expect(await store.reindex()).toMatchObject({ added: 2, removed: 1, updated: 1 });
        await lite.reindex();
        const added = Number(
          (await admin.query(`SELECT count(*) AS n FROM "${schema}".champions_added`)).rows[0].n,
        );
        // The meta row counts the rows; past `foldAt` they were moved into the arrays.
        const counted = (
          await admin.query(`SELECT value FROM "${schema}".meta WHERE key = 'champions_added'`)
        ).rows[0]?.value;
        expect(Number(counted)).toBe(added);
        // At least the two new chunks holding `term`.
        if (foldAt > 1000) expect(added).toBeGreaterThanOrEqual(2);
        else expect(added).toBe(0);
        const after = await lists(schema);
        const now = await holding(schema, term);
        const live = new Set(now.map((e) => e[0]));
        const kept = after.get(term)!.entries;
        // Every chunk holding the term is in, with its counts; the others are removed chunks.
        for (const e of now) expect(kept).toContainEqual(e);
        const stale = kept.filter((e) => !live.has(e[0]!));
        expect(stale.length).toBeGreaterThan(0);
        const gone = await admin.query(
          `SELECT count(*)::int AS n FROM "${schema}".chunks WHERE id = ANY($1::bigint[])`,
          [stale.map((e) => e[0])],
        );
        expect(gone.rows[0].n).toBe(0);
        queries.push(term, `${term.slice(0, 3)}*`);
        await check();
        const r = await store.search({ query: term, limit: 50 });
        expect(r.results.map((h) => h.path)).not.toContain(`notes/${paths[0]}`);
        expect(r.results.map((h) => h.path)).toEqual(
          expect.arrayContaining(['notes/new/one.md', 'notes/new/two.md']),
        );
      },
    );

    test("phrases of common words are checked in their pairs' chunks: the pairs hold every chunk with the words adjacent, and pages equal SQLite before and after an incremental reindex", async () => {
      writeNotes(dir, 90);
      const { store, lite, schema } = open();
      await store.reindex({ full: true });
      await lite.reindex({ full: true });
      /** Each pair's chunks as stored (with the added rows), and as the vectors give them. */
      const pairs = async () => {
        const rows = (
          await admin.query(
            `SELECT p.pair, p.chunk_ids || coalesce(a.ids, '{}') AS ids FROM "${schema}".phrase_pairs p
              LEFT JOIN (SELECT pair, array_agg(chunk_id) AS ids FROM "${schema}".phrase_pairs_added
                GROUP BY pair) a ON a.pair = p.pair ORDER BY p.pair`,
          )
        ).rows as Array<{ pair: string; ids: string[] }>;
        return rows.map((r) => ({ pair: r.pair, ids: r.ids.map(Number).sort((a, b) => a - b) }));
      };
      const holders = async (pair: string) => {
        const [a, b] = pair.split(' ');
        const rows = (
          await admin.query(
            `SELECT id FROM "${schema}".chunks WHERE terms @@ to_tsquery('simple', $1) ORDER BY id`,
            [`${a} <-> ${b}`],
          )
        ).rows as Array<{ id: string }>;
        return rows.map((r) => Number(r.id));
      };
      const stored = await pairs();
      expect(stored.length).toBeGreaterThan(10);
      for (const { pair, ids } of stored.slice(0, 12))
        expect(ids, pair).toEqual(await holders(pair));
      const queries = stored
        .filter((_, k) => k % Math.ceil(stored.length / 8) === 0)
        .map(({ pair }) => `"${pair}"`);
      queries.push(`"${stored[0]!.pair}" ${stored[1]!.pair.split(' ')[0]}`);
      const check = async () => {
        for (const query of queries) {
          expect(await shown(store, { query }), query).toEqual(await shown(lite, { query }));
        }
      };
      await check();
      // A note of one pair, another pair's notes removed: the new chunk joins, the removed stay.
      const [first, second] = [stored[0]!, stored[1]!];
      const paths = (
        await admin.query(
          `SELECT DISTINCT f.path FROM "${schema}".chunks c JOIN "${schema}".files f ON f.id = c.file_id
            WHERE c.id = ANY($1::bigint[]) ORDER BY f.path`,
          [second.ids],
        )
      ).rows.map((r: { path: string }) => r.path);
      rmSync(join(dir.path, paths[0]!));
      dir.write('new/pair.md', `# fresh\n\nsome ${first.pair} here\n`);
      await store.reindex();
      await lite.reindex();
      const after = new Map((await pairs()).map((p) => [p.pair, p.ids]));
      const live = await holders(first.pair);
      const fresh = live.filter((id) => !first.ids.includes(id));
      expect(fresh).toHaveLength(1);
      for (const id of live) expect(after.get(first.pair)).toContain(id);
      expect(after.get(second.pair)!.length).toBe(second.ids.length);
      await check();
      const r = await store.search({ query: `"${first.pair}" fresh`, limit: 5 });
      expect(r.results[0]?.path).toBe('notes/new/pair.md');
    });

    test("a reindex leaves nothing in the term index's pending list (a small one soon after it returns)", async () => {
      writeNotes(dir, 90);
      const { store, schema } = open();
      const pending = async () =>
        (
          await admin.query('SELECT gin_clean_pending_list($1::regclass)::int AS n', [
            `"${schema}".chunks_terms`,
          ])
        ).rows[0].n as number;
      await store.reindex();
      expect(await pending()).toBe(0);
      // A small change (its entries would stay pending until a vacuum): moved in the
      // background; closing the store waits for its upkeep.
      dir.write('n/extra.md', `# extra\n\n${'va0q vb1q vc2q '.repeat(40)}\n`);
      expect(await store.reindex()).toMatchObject({ added: 1 });
      await store.close();
      expect(await pending()).toBe(0);
    });
  });
}
