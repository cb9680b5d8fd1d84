import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalysedChunk } from '../../lib/analysis.js';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import { postgresForTests, recordStatements, testSchemas } from '../../test-helpers/postgres.js';
import type { MemoryStore, SearchOptions } from '../../types.js';
import { sqliteBackend } from '../sqlite/backend.js';
import { postgresBackend } from './backend.js';
import { fieldBounds, parseCombined, parseVector } from './candidates.js';
import { searchTuning } from './search.js';
import { chunkVector } from './text.js';

// The PostgreSQL search path: how many statements a search sends, that the languages it reads
// follow a reindex made elsewhere, and that it ranks exactly as the SQLite backend does: the
// same chunks, in the same order, with the same scores (one ranking, lib/rank.ts).

const url = postgresForTests('the PostgreSQL search-path tests');

if (url) {
  const schemas = testSchemas(url);
  afterAll(() => schemas.close());

  describe('PostgreSQL search path', () => {
    let dir: TempDir;
    let stores: MemoryStore[];

    beforeEach(() => {
      schemas.next();
      dir = tempDir();
      stores = [];
    });
    afterEach(async () => {
      for (const s of stores) await s.close();
      await schemas.dropAll();
      dir.cleanup();
    });

    function open(machine = 'm1'): MemoryStore {
      const store = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        backend: postgresBackend({
          url: url!,
          schema: schemas.schema('main'),
          poolSize: 2,
          machine,
        }),
      });
      stores.push(store);
      return store;
    }

    const SPANISH = (body: string) => `---\nlang: es\n---\n\n${body}\n`;

    function writeCorpus() {
      dir.write(
        'ops/deploys.md',
        '# Deploys\n\nThe deploy runbook: canary first, then the rest.\n\n## Rollback\n\nA failed deploy is rolled back with the previous image. Deploy again after the fix.\n',
      );
      dir.write(
        'ops/incidents.md',
        '# Incidents\n\nThe March incident: a deploy without a canary took the queue down.\n\n## Follow-up\n\nEvery deploy needs a canary now.\n',
      );
      dir.write(
        'team/weekly.md',
        '# Weekly\n\nNotes of the weekly meeting: canary numbers, quince jam.\n',
      );
      dir.write(
        'viajes/oaxaca.md',
        SPANISH('# Notas del viaje\n\nLas pruebas de manejo fueron largas. Una prueba más.'),
      );
      dir.write('viajes/lima.md', SPANISH('# Lima\n\nPruebas y más pruebas de comida.'));
      // In more than half of all chunks: pruned from an any-term query.
      // Each one longer than the last, so that no two score the same (ties would be ordered by
      // chunk id, which depends on the order the reindex met the files).
      for (let i = 0; i < 20; i++) {
        dir.write(`misc/n${i}.md`, `# Misc ${i}\n\ncommon words ${'and more '.repeat(i)}${i}\n`);
      }
    }

    test('a search sends three statements (totals and frequencies, candidates, the page), none in a transaction', async () => {
      writeCorpus();
      const store = open();
      await store.reindex();
      await store.search({ query: 'canary' });
      const counter = recordStatements();
      try {
        for (const options of [
          { query: 'canary' },
          { query: 'prueba' },
          { query: 'deploy', offset: 1, limit: 1 },
          { query: 'deploy', source: 'notes' },
          { query: 'quince rollback zzzz' },
          { query: 'what happened to the canary deploy in the march incident, and why' },
        ] satisfies SearchOptions[]) {
          const r = await counter.during(() => store.search(options));
          expect(r.value.results.length, JSON.stringify(options)).toBeGreaterThan(0);
          // source: one more, for the files of the source.
          expect(r.sent, JSON.stringify(options)).toHaveLength(options.source ? 4 : 3);
        }
        expect(counter.texts.filter((t) => /^\s*(BEGIN|COMMIT)/i.test(t))).toEqual([]);
        // A raw query: its matches first, all inside one transaction whose statements carry
        // the raw time budget (BEGIN and SET LOCAL in one round trip), so two more.
        const raw = await counter.during(() =>
          store.search({ query: 'deploy | canary', raw: true }),
        );
        expect(raw.value.results.length).toBeGreaterThan(0);
        expect(raw.sent).toHaveLength(7);
        expect(raw.sent[0]).toMatch(/^BEGIN .*READ ONLY; SET LOCAL statement_timeout = 2000$/);
        expect(raw.sent.at(-1)).toBe('COMMIT');
      } finally {
        counter.restore();
      }
    });

    test('the languages follow a reindex made by another store', async () => {
      dir.write(
        'english.md',
        '# Tests\n\nThe tests ran long, and the results were written down.\n',
      );
      const searcher = open('m1');
      await searcher.reindex();
      // Its first search reads English alone: the next one looks up the terms of English.
      expect((await searcher.search({ query: 'prueba' })).results).toEqual([]);
      dir.write('viaje.md', SPANISH('# Viaje\n\nLas pruebas fueron largas.'));
      const writer = open('m2');
      await writer.reindex();
      // Its upkeep after the reindex (the term index's pending list) is not the search's.
      await writer.close();
      const counter = recordStatements();
      try {
        const found = await counter.during(() => searcher.search({ query: 'prueba' }));
        expect(found.value.results.map((r) => r.path)).toEqual(['notes/viaje.md']);
        expect(found.value.results[0]!.snippet).toContain('«pruebas»');
        // Those terms were the wrong ones: the frequencies of Spanish's are read again.
        expect(found.sent).toHaveLength(4);
        const next = await counter.during(() => searcher.search({ query: 'prueba' }));
        expect(next.value.results.map((r) => r.path)).toEqual(['notes/viaje.md']);
        expect(next.sent).toHaveLength(3);
      } finally {
        counter.restore();
      }
    });

    test('ranks exactly as the SQLite backend: same chunks, same order, same scores', async () => {
      writeCorpus();
      const store = open();
      await store.reindex();
      const lite = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        backend: sqliteBackend({ path: `${dir.path}/.lectern/memory.db` }),
      });
      stores.push(lite);
      await lite.reindex();
      const shown = async (s: MemoryStore, options: SearchOptions) => {
        const r = await s.search(options);
        return {
          match: r.match,
          fts_query: options.raw ? '' : r.fts_query,
          next_offset: r.next_offset,
          results: r.results.map((c) => [c.path, c.start_line, c.end_line, c.score, c.snippet]),
        };
      };
      for (const options of [
        { query: 'deploy' },
        { query: 'deploy', offset: 1, limit: 2 },
        { query: 'canary deploy' },
        { query: 'prueba' },
        { query: 'notas prueba' },
        { query: 'quince rollback zzzz' },
        { query: 'common quince zzzz' },
        { query: 'deploy*', pathGlob: 'ops/**' },
        { query: 'roll*' },
        { query: '"failed deploy"' },
        { query: '"canary first"' },
        { query: 'how do we roll back a failed deploy when the canary breaks?' },
        { query: 'the and of' },
      ] satisfies SearchOptions[]) {
        const pg = await shown(store, options);
        expect(pg.results.length, JSON.stringify(options)).toBeGreaterThan(0);
        expect(pg, JSON.stringify(options)).toEqual(await shown(lite, options));
      }
    });

    test('a reindex committed between the statements of a search: it runs again in one snapshot', async () => {
      writeCorpus();
      const searcher = open('m1');
      await searcher.reindex();
      const writer = open('m2');
      const before = await searcher.search({ query: 'canary' });
      // Just before the page's details are read, another store rebuilds the index (new ids).
      const original = pg.Client.prototype.query;
      let moved = 0;
      const texts: string[] = [];
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const text = String((args[0] as { text?: string })?.text ?? args[0]);
        texts.push(text);
        if (moved === 0 && text.includes('AS generation') && text.includes('c.id = ANY($1')) {
          moved++;
          void writer.reindex({ full: true }).then(
            () => (original as (...a: unknown[]) => unknown).apply(this, args),
            (error) => (args[args.length - 1] as (e: unknown) => void)(error),
          );
          return undefined;
        }
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof original;
      try {
        const during = await searcher.search({ query: 'canary' });
        expect(moved).toBe(1);
        // The same notes and lines as before the rebuild, read again in one snapshot.
        expect(during.results.map((r) => [r.path, r.start_line, r.score])).toEqual(
          before.results.map((r) => [r.path, r.start_line, r.score]),
        );
        expect(texts.some((t) => t.startsWith('BEGIN ISOLATION LEVEL REPEATABLE READ'))).toBe(true);
      } finally {
        pg.Client.prototype.query = original;
      }
    });

    /** A store on SQLite over the same notes: it scores every chunk of every clause. */
    function sqlite(): MemoryStore {
      const lite = createMemory({
        sources: [{ id: 'notes', path: dir.path }],
        backend: sqliteBackend({ path: `${dir.path}/.lectern/memory.db` }),
      });
      stores.push(lite);
      return lite;
    }

    const page = async (s: MemoryStore, options: SearchOptions) => {
      const r = await s.search(options);
      return {
        match: r.match,
        fts_query: r.fts_query,
        next_offset: r.next_offset,
        results: r.results.map((c) => [c.path, c.start_line, c.score]),
      };
    };

    /** The candidate look-ups of a search (the statements reading chunks' vectors). */
    const lookups = (sent: string[], rows: Array<number | undefined>) =>
      sent.flatMap((t, i) => (/ AS (v|ab)\b/.test(t) ? [rows[i]] : []));

    test('a rare word settles the page alone: the common word of the question is never read', async () => {
      // 150 notes, 45 of them with "common" (kept: under 30% of the chunks), 12 with "zephyr",
      // twice each, so that each of its chunks outscores anything "common" alone can give.
      for (let i = 0; i < 150; i++) {
        dir.write(`f/${i}.md`, `# Filler ${i}\n\nplain text ${i} ${i < 45 ? 'common' : ''}\n`);
      }
      for (let i = 0; i < 12; i++) {
        dir.write(`r/${i}.md`, `# Rare ${i}\n\nzephyr blows, zephyr ${'again '.repeat(i)}\n`);
      }
      const store = open();
      await store.reindex();
      const lite = sqlite();
      await lite.reindex();
      await store.search({ query: 'zephyr' });
      const previous = searchTuning.firstLookupChunks;
      searchTuning.firstLookupChunks = 20;
      const counter = recordStatements();
      try {
        // The page (10) and one more fit in zephyr's 12 chunks: "common" cannot reach them.
        const pruned = await counter.during(() => store.search({ query: 'zephyr common' }));
        expect(pruned.sent).toHaveLength(3);
        expect(lookups(pruned.sent, pruned.rows)).toEqual([12]);
        expect(await page(store, { query: 'zephyr common' })).toEqual(
          await page(lite, { query: 'zephyr common' }),
        );
        // 13 needed, 12 found: the chunks of "common" are read too, those without zephyr.
        const whole = await counter.during(() =>
          store.search({ query: 'zephyr common', limit: 12 }),
        );
        expect(whole.sent).toHaveLength(4);
        expect(lookups(whole.sent, whole.rows)).toEqual([12, 45]);
        expect(await page(store, { query: 'zephyr common', limit: 12 })).toEqual(
          await page(lite, { query: 'zephyr common', limit: 12 }),
        );
        // Without pruning: one look-up of every chunk holding either word.
        searchTuning.firstLookupChunks = Number.POSITIVE_INFINITY;
        const all = await counter.during(() => store.search({ query: 'zephyr common' }));
        expect(lookups(all.sent, all.rows)).toEqual([57]);
      } finally {
        counter.restore();
        searchTuning.firstLookupChunks = previous;
      }
    });

    test("a chunk whose vector is not the writer's shape is read again, by term and position, and scores the same", async () => {
      writeCorpus();
      const store = open();
      await store.reindex();
      const questions: SearchOptions[] = [
        { query: 'deploy' },
        { query: 'rollback canary' },
        { query: 'how do we roll back a failed deploy?' },
        { query: '"failed deploy" canary' },
        { query: 'deploy*' },
      ];
      const shown = async (options: SearchOptions) => {
        const r = await store.search(options);
        return [r.match, r.fts_query, r.results.map((c) => [c.path, c.start_line, c.score])];
      };
      const split = async (options: SearchOptions) => {
        searchTuning.split = true;
        try {
          return await shown(options);
        } finally {
          searchTuning.split = false;
        }
      };
      for (const options of questions) {
        expect(await shown(options), JSON.stringify(options)).toEqual(await split(options));
      }
      // Body words of the runbook's chunks marked as title words: no longer a run from 1.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const s = `"${schemas.schema('main')}"`;
        const changed = await admin.query(
          `UPDATE ${s}.chunks SET terms = setweight(terms, 'A', ARRAY['rest', 'imag'])
            WHERE file_id = (SELECT id FROM ${s}.files WHERE path = 'ops/deploys.md')
              AND terms @@ 'rest | imag'`,
        );
        expect(changed.rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
      const counter = recordStatements();
      try {
        for (const options of questions) {
          const r = await counter.during(() => shown(options));
          expect(r.value, JSON.stringify(options)).toEqual(await split(options));
          // The chunks of the runbook are read again.
          expect(r.sent, JSON.stringify(options)).toHaveLength(4);
          expect(r.sent[2]).toMatch(/c\.id = ANY\(\$2::bigint\[\]\)/);
        }
      } finally {
        counter.restore();
      }
    });

    test('pruned or not, every page equals the full scoring of every candidate (brute force over many questions)', async () => {
      // Notes of words drawn with very unequal frequencies (as words are), so that questions
      // mix rare and common words; a tiny first look-up makes nearly every search prune.
      let seed = 7;
      const random = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const vocab = Array.from(
        { length: 40 },
        (_, i) => `w${String.fromCharCode(97 + (i % 26))}${i}x`,
      );
      const word = () => vocab[Math.floor(vocab.length * random() ** 3)]!;
      for (let i = 0; i < 120; i++) {
        const body = Array.from({ length: 5 + Math.floor(random() * 30) }, word).join(' ');
        dir.write(
          `n/${i}.md`,
          `# ${word()} ${i}\n\n${body}\n\n## ${word()}\n\n${word()} ${word()}\n`,
        );
      }
      const store = open();
      await store.reindex();
      const lite = sqlite();
      await lite.reindex();
      const questions: SearchOptions[] = [];
      for (let q = 0; q < 60; q++) {
        const words = Array.from({ length: 2 + (q % 3) }, word);
        const query = q % 7 === 0 ? `"${words[0]} ${words[1]}" ${words[2] ?? ''}` : words.join(' ');
        questions.push({ query, limit: 1 + (q % 10), offset: q % 4 === 0 ? 3 : 0 });
      }
      const previous = searchTuning.firstLookupChunks;
      const counter = recordStatements();
      let pruned = 0;
      try {
        for (const options of questions) {
          // Every clause's chunks read at once: the full scoring, on the same chunk ids.
          searchTuning.firstLookupChunks = Number.POSITIVE_INFINITY;
          const full = await page(store, options);
          // The same scores as SQLite's (chunk ids, which order ties, differ between stores).
          const lited = await page(lite, options);
          expect({ ...full, results: full.results.map((r) => r[2]) }).toEqual({
            ...lited,
            results: lited.results.map((r) => r[2]),
          });
          for (const budget of [1, 8]) {
            searchTuning.firstLookupChunks = budget;
            const r = await counter.during(() => page(store, options));
            if (budget === 1 && lookups(r.sent, r.rows).length === 1) pruned++;
            expect(r.value, `${JSON.stringify(options)} (first look-up ${budget})`).toEqual(full);
          }
        }
      } finally {
        counter.restore();
        searchTuning.firstLookupChunks = previous;
      }
      // The pruning did happen (a search that settled its page with its rarest clause alone).
      expect(pruned).toBeGreaterThan(5);
    });
  });
}

describe('reading the vectors a search fetches', () => {
  test('the writer numbers the title from 1, then the heading path and the body each after a gap', () => {
    // What `Candidates.addCombined` and `fieldBounds` rely on to tell the fields by position.
    const text = chunkVector({
      title: { terms: ['deploy', 'the', 'app'] },
      headings: { terms: ['roll', 'back'] },
      body: { terms: ['deploy', 'again'] },
    } as unknown as AnalysedChunk);
    expect(text).toBe("'deploy':1A,8 'the':2A 'app':3A 'roll':5B 'back':6B 'again':9");
    const out = [0, 0, 0];
    expect(fieldBounds("'deploy':1A 'the':2A 'app':3A 'roll':5B 'back':6B", out)).toBe(true);
    expect(out).toEqual([3, 5, 6]);
  });

  test('tsvector text: quoted terms (quotes and backslashes doubled), positions and weights', () => {
    const seen: string[] = [];
    // As PostgreSQL prints them (weight D is not shown).
    parseVector("'a''b':1A,2 'c\\\\d':3B,5 'e f':4C 'bare'", (t, p, w) =>
      seen.push(`${t}@${p}${w}`),
    );
    expect(seen).toEqual(["a'b@1A", "a'b@2D", 'c\\d@3B', 'c\\d@5D', 'e f@4C']);
  });

  test("a candidate's one vector: query terms (weight C) with their terms, title and heading-path positions without", () => {
    const seen: string[] = [];
    const read = (text: string) => {
      seen.length = 0;
      return parseCombined(
        text,
        (t, p) => seen.push(`${t}@${p}`),
        (p, f) => seen.push(`${p}${'AB'[f]}`),
      );
    };
    expect(read("'a''b':1C,9C 'c\\\\d':2A,5B 'e:f':3A 'g':10C")).toBe(true);
    expect(seen).toEqual(["a'b@1", "a'b@9", '2A', '5B', '3A', 'g@10']);
    expect(read('')).toBe(true);
    expect(seen).toEqual([]);
    // Anything else: a body position (weight D is not shown), a term without positions.
    expect(read("'a':1C 'b':2A,7")).toBe(false);
    expect(read("'a':1C 'bare'")).toBe(false);
  });

  test('the fields of a chunk as position ranges, read from its title and heading-path entries', () => {
    const out = [0, 0, 0];
    // Title 1-3, heading path 5-6 (after the gap at 4), in any order of terms.
    expect(fieldBounds("'a':1A,3A 'b''c':2A,6B 'd\\\\e':5B", out)).toBe(true);
    expect(out).toEqual([3, 5, 6]);
    // No heading path; no title (the heading path starts after the title's gap).
    expect(fieldBounds("'a':1A 'b':2A", out)).toBe(true);
    expect(out).toEqual([2, 16383, 0]);
    expect(fieldBounds("'a':2B,3B", out)).toBe(true);
    expect(out).toEqual([0, 2, 3]);
    expect(fieldBounds('', out)).toBe(true);
    expect(out).toEqual([0, 16383, 0]);
    // Not the writer's shape: matched by term and position instead.
    for (const text of [
      "'a':1A,3A", // a hole in the title
      "'a':2A", // the title not from 1
      "'a':1A 'b':3B,5B", // a hole in the heading path
      "'a':1A 'b':16383B", // at the cap, where positions are shared
      "'a':1A,2", // a body position
      "'a'", // no positions
    ]) {
      expect(fieldBounds(text, out), text).toBe(false);
    }
  });
});
