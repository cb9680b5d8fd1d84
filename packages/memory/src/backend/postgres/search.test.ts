import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import { postgresForTests, recordStatements, testSchemas } from '../../test-helpers/postgres.js';
import type { MemoryStore, SearchOptions } from '../../types.js';
import { sqliteBackend } from '../sqlite/backend.js';
import { postgresBackend } from './backend.js';

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

    test('a search sends four statements (totals, frequencies, candidates, the page), none in a transaction', async () => {
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
          expect(r.sent, JSON.stringify(options)).toHaveLength(options.source ? 5 : 4);
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
      dir.write('viaje.md', SPANISH('# Viaje\n\nLas pruebas fueron largas.'));
      const writer = open('m2');
      await writer.reindex();
      const found = await searcher.search({ query: 'prueba' });
      expect(found.results.map((r) => r.path)).toEqual(['notes/viaje.md']);
      expect(found.results[0]!.snippet).toContain('«pruebas»');
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
  });
}
