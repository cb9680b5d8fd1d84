import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import { postgresForTests, recordStatements, testSchemas } from '../../test-helpers/postgres.js';
import type { MemoryStore, SearchOptions } from '../../types.js';
import { postgresBackend } from './backend.js';

// The PostgreSQL search path: how many statements a search sends, that the languages it caches
// follow a reindex made elsewhere, and the exact results (order, scores, snippets) of a few
// queries, pinned from the multi-statement search this one replaced.

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

    test('a search is one statement; the any-term fallback is two', async () => {
      writeCorpus();
      const store = open();
      await store.reindex();
      // The first search learns the index's languages (it may run its statement again).
      await store.search({ query: 'canary' });
      const counter = recordStatements();
      try {
        const plain = await counter.during(() => store.search({ query: 'canary' }));
        expect(plain.value.results.length).toBeGreaterThan(0);
        expect(plain.sent).toHaveLength(1);
        // Word forms (the second tier) are in the same statement.
        const forms = await counter.during(() => store.search({ query: 'prueba' }));
        expect(forms.value.results.map((r) => r.path).sort()).toEqual([
          'notes/viajes/lima.md',
          'notes/viajes/oaxaca.md',
        ]);
        expect(forms.sent).toHaveLength(1);
        // A second page, a source filter and a raw query: still one statement.
        for (const options of [
          { query: 'deploy', offset: 1, limit: 1 },
          { query: 'deploy', source: 'notes' },
          { query: 'deploy | canary', raw: true },
        ] satisfies SearchOptions[]) {
          const r = await counter.during(() => store.search(options));
          expect(r.value.results.length).toBeGreaterThan(0);
          expect(r.sent, JSON.stringify(options)).toHaveLength(1);
        }
        // No term matches everywhere together: the fallback adds one statement, and no
        // transaction is opened for either.
        const any = await counter.during(() => store.search({ query: 'quince rollback zzzz' }));
        expect(any.value.match).toBe('any');
        expect(any.value.results.map((r) => r.path).sort()).toEqual([
          'notes/ops/deploys.md',
          'notes/team/weekly.md',
        ]);
        expect(any.sent).toHaveLength(2);
        // With a word common enough to be dropped from the any-term query.
        const pruned = await counter.during(() => store.search({ query: 'common quince zzzz' }));
        expect(pruned.value.fts_query).not.toContain('common');
        expect(pruned.value.results.map((r) => r.path)).toEqual(['notes/team/weekly.md']);
        expect(pruned.sent).toHaveLength(2);
        expect(counter.texts.filter((t) => /^\s*(BEGIN|COMMIT)/i.test(t))).toEqual([]);
      } finally {
        counter.restore();
      }
    });

    test('the cached languages follow a reindex made by another store', async () => {
      dir.write('english.md', '# Tests\n\nThe tests ran long.\n');
      const searcher = open('m1');
      await searcher.reindex();
      // No note is Spanish yet: no word forms, so "prueba" finds nothing.
      expect((await searcher.search({ query: 'prueba' })).results).toEqual([]);
      // Another server indexes a Spanish note into the same index.
      dir.write('viaje.md', SPANISH('# Viaje\n\nLas pruebas fueron largas.'));
      const writer = open('m2');
      await writer.reindex();
      const counter = recordStatements();
      try {
        const found = await counter.during(() => searcher.search({ query: 'prueba' }));
        expect(found.value.results.map((r) => r.path)).toEqual(['notes/viaje.md']);
        expect(found.value.results[0]!.snippet).toContain('«pruebas»');
        // The stale list cost one more statement, once.
        expect(found.sent).toHaveLength(2);
        const again = await counter.during(() => searcher.search({ query: 'prueba' }));
        expect(again.value.results.map((r) => r.path)).toEqual(['notes/viaje.md']);
        expect(again.sent).toHaveLength(1);
      } finally {
        counter.restore();
      }
    });

    test('results, order, scores and snippets are pinned for a few queries', async () => {
      writeCorpus();
      const store = open();
      await store.reindex();
      const shown = async (options: SearchOptions) => {
        const r = await store.search(options);
        return {
          match: r.match,
          fts_query: r.fts_query,
          next_offset: r.next_offset,
          results: r.results.map((c) => [
            c.path,
            c.start_line,
            c.end_line,
            c.heading_path,
            c.score,
            c.snippet,
          ]),
        };
      };
      const pinned: Record<string, unknown> = {};
      for (const options of [
        { query: 'deploy' },
        { query: 'deploy', offset: 1, limit: 2 },
        { query: 'canary deploy' },
        { query: 'prueba' },
        { query: 'notas prueba' },
        { query: 'quince rollback zzzz' },
        { query: 'common quince zzzz' },
        { query: 'deploy*', pathGlob: 'ops/**' },
        { query: '"failed deploy"' },
      ] satisfies SearchOptions[]) {
        pinned[JSON.stringify(options)] = await shown(options);
      }
      expect(pinned).toMatchInlineSnapshot(`
        {
          "{"query":"\\"failed deploy\\""}": {
            "fts_query": "'failed' <-> 'deploy'",
            "match": "all",
            "next_offset": null,
            "results": [
              [
                "notes/ops/deploys.md",
                5,
                7,
                "Deploys > Rollback",
                0.08491,
                "## Rollback

        A «failed deploy» is rolled back with the previous image. Deploy again after the fix.",
              ],
            ],
          },
          "{"query":"canary deploy"}": {
            "fts_query": "'canary' & 'deploy'",
            "match": "all",
            "next_offset": null,
            "results": [
              [
                "notes/ops/deploys.md",
                1,
                3,
                "Deploys",
                0.05213,
                "# Deploys

        The «deploy» runbook: «canary» first, then the rest.",
              ],
              [
                "notes/ops/incidents.md",
                5,
                7,
                "Incidents > Follow-up",
                0.03354,
                "## Follow-up

        Every «deploy» needs a «canary» now.",
              ],
              [
                "notes/ops/incidents.md",
                1,
                3,
                "Incidents",
                0.03077,
                "# Incidents

        The March incident: a «deploy» without a «canary» took the queue down.",
              ],
            ],
          },
          "{"query":"common quince zzzz"}": {
            "fts_query": "'quince' | 'zzzz'",
            "match": "any",
            "next_offset": null,
            "results": [
              [
                "notes/team/weekly.md",
                1,
                3,
                "Weekly",
                0.1006,
                "# Weekly

        Notes of the weekly meeting: canary numbers, «quince» jam.",
              ],
            ],
          },
          "{"query":"deploy","offset":1,"limit":2}": {
            "fts_query": "'deploy'",
            "match": "all",
            "next_offset": 3,
            "results": [
              [
                "notes/ops/deploys.md",
                1,
                3,
                "Deploys",
                0.1043,
                "# Deploys

        The «deploy» runbook: canary first, then the rest.",
              ],
              [
                "notes/ops/incidents.md",
                5,
                7,
                "Incidents > Follow-up",
                0.1006,
                "## Follow-up

        Every «deploy» needs a canary now.",
              ],
            ],
          },
          "{"query":"deploy"}": {
            "fts_query": "'deploy'",
            "match": "all",
            "next_offset": null,
            "results": [
              [
                "notes/ops/deploys.md",
                5,
                7,
                "Deploys > Rollback",
                0.1698,
                "## Rollback

        A failed «deploy» is rolled back with the previous image. «Deploy» again after the fix.",
              ],
              [
                "notes/ops/deploys.md",
                1,
                3,
                "Deploys",
                0.1043,
                "# Deploys

        The «deploy» runbook: canary first, then the rest.",
              ],
              [
                "notes/ops/incidents.md",
                5,
                7,
                "Incidents > Follow-up",
                0.1006,
                "## Follow-up

        Every «deploy» needs a canary now.",
              ],
              [
                "notes/ops/incidents.md",
                1,
                3,
                "Incidents",
                0.09232,
                "# Incidents

        The March incident: a «deploy» without a canary took the queue down.",
              ],
            ],
          },
          "{"query":"deploy*","pathGlob":"ops/**"}": {
            "fts_query": "'deploy':*",
            "match": "all",
            "next_offset": null,
            "results": [
              [
                "notes/ops/deploys.md",
                1,
                3,
                "Deploys",
                0.6255,
                "# «Deploys»

        The «deploy» runbook: canary first, then the rest.",
              ],
              [
                "notes/ops/deploys.md",
                5,
                7,
                "Deploys > Rollback",
                0.5094,
                "## Rollback

        A failed «deploy» is rolled back with the previous image. «Deploy» again after the fix.",
              ],
              [
                "notes/ops/incidents.md",
                5,
                7,
                "Incidents > Follow-up",
                0.1006,
                "## Follow-up

        Every «deploy» needs a canary now.",
              ],
              [
                "notes/ops/incidents.md",
                1,
                3,
                "Incidents",
                0.09232,
                "# Incidents

        The March incident: a «deploy» without a canary took the queue down.",
              ],
            ],
          },
          "{"query":"notas prueba"}": {
            "fts_query": "'notas' & 'prueba'",
            "match": "all",
            "next_offset": null,
            "results": [
              [
                "notes/viajes/oaxaca.md",
                5,
                7,
                "Notas del viaje",
                0.009017,
                "# «Notas» del viaje

        Las pruebas de manejo fueron largas. Una «prueba» más.",
              ],
            ],
          },
          "{"query":"prueba"}": {
            "fts_query": "'prueba'",
            "match": "all",
            "next_offset": null,
            "results": [
              [
                "notes/viajes/oaxaca.md",
                5,
                7,
                "Notas del viaje",
                0.09017,
                "# Notas del viaje

        Las «pruebas» de manejo fueron largas. Una «prueba» más.",
              ],
              [
                "notes/viajes/lima.md",
                5,
                7,
                "Lima",
                0.08927,
                "# Lima

        «Pruebas» y más «pruebas» de comida.",
              ],
            ],
          },
          "{"query":"quince rollback zzzz"}": {
            "fts_query": "'quince' | 'rollback' | 'zzzz'",
            "match": "any",
            "next_offset": null,
            "results": [
              [
                "notes/ops/deploys.md",
                5,
                7,
                "Deploys > Rollback",
                0.4245,
                "## «Rollback»

        A failed deploy is rolled back with the previous image. Deploy again after the fix.",
              ],
              [
                "notes/team/weekly.md",
                1,
                3,
                "Weekly",
                0.1006,
                "# Weekly

        Notes of the weekly meeting: canary numbers, «quince» jam.",
              ],
            ],
          },
        }
      `);
    });
  });
}
