import { expect, test } from 'vitest';
import { storeFixture } from './fixture.js';
import type { BackendUnderTest } from './target.js';

/** Word forms: plurals and other forms found through Snowball stems, exact words ranked first. */
export function formsTests(target: BackendUnderTest): void {
  const fx = storeFixture(target);
  const open = fx.make;

  const paths = (r: { results: Array<{ path: string }> }) => r.results.map((c) => c.path);

  const SPANISH = (body: string) => `---\nlang: es\n---\n\n${body}\n`;

  test('a Spanish note (front matter lang: es) is found by other forms of its words', async () => {
    fx.dir.write('viaje.md', SPANISH('# Notas del viaje\n\nLas pruebas de manejo fueron largas.'));
    fx.dir.write('otra.md', '# Other\n\nNothing to see here.\n');
    const store = open();
    expect(paths(await store.search({ query: 'prueba' }))).toEqual(['notes/viaje.md']);
    expect(paths(await store.search({ query: 'nota' }))).toEqual(['notes/viaje.md']);
    expect(paths(await store.search({ query: 'NOTA prueba' }))).toEqual(['notes/viaje.md']);
    const hit = (await store.search({ query: 'prueba' })).results[0]!;
    expect(hit.snippet).toContain('«pruebas»');
    expect(hit.heading_path).toBe('Notas del viaje');
  });

  test('exact words rank above other forms, and scores stay in rank order', async () => {
    fx.dir.write('plural.md', SPANISH('# Varias\n\nPruebas, pruebas y más pruebas.'));
    fx.dir.write(
      'exacta.md',
      SPANISH('# Una\n\nUna sola prueba, larga y detallada, con muchas palabras.'),
    );
    const store = open();
    const r = await store.search({ query: 'prueba' });
    expect(paths(r)).toEqual(['notes/exacta.md', 'notes/plural.md']);
    expect(r.results[0]!.score).toBeGreaterThan(r.results[1]!.score);
    // The other way round: the plural is now the exact word.
    const back = await store.search({ query: 'pruebas' });
    expect(paths(back)).toEqual(['notes/plural.md', 'notes/exacta.md']);
    // Pages continue across the two tiers.
    const first = await store.search({ query: 'prueba', limit: 1 });
    expect(paths(first)).toEqual(['notes/exacta.md']);
    expect(first.next_offset).toBe(1);
    const second = await store.search({ query: 'prueba', limit: 1, offset: 1 });
    expect(paths(second)).toEqual(['notes/plural.md']);
    expect(second.next_offset).toBeNull();
  });

  test('the configured language applies to notes that declare none', async () => {
    fx.dir.write('run.md', '# Log\n\nThe runner runs every morning.\n');
    fx.dir.write('notes.txt', 'Many notes were taken.\n');
    const english = open({ language: 'en' });
    expect(paths(await english.search({ query: 'running' }))).toEqual(['notes/run.md']);
    expect(paths(await english.search({ query: 'note' }))).toEqual(['notes/notes.txt']);
    await english.close();
    // Without a language, words match only as written (the default).
    const plain = open({ db: 'plain' });
    expect((await plain.search({ query: 'running' })).results).toEqual([]);
    expect((await plain.search({ query: 'note' })).results).toEqual([]);
  });

  test('a form from one language never matches a note in another', async () => {
    // Spanish "nota" stems to "not"; the English word "not" must not answer for it.
    fx.dir.write('en.md', '# Drill\n\nThis is not a drill, notably.\n');
    fx.dir.write('es.md', SPANISH('# Viaje\n\nUnas notas sueltas.'));
    const store = open({ language: 'en' });
    expect(paths(await store.search({ query: 'nota' }))).toEqual(['notes/es.md']);
  });

  test('phrases and prefixes match as written', async () => {
    fx.dir.write('viaje.md', SPANISH('# Viaje\n\nLas pruebas largas terminaron.'));
    const store = open();
    expect((await store.search({ query: '"prueba larga"' })).results).toEqual([]);
    expect(paths(await store.search({ query: '"pruebas largas"' }))).toEqual(['notes/viaje.md']);
    expect(paths(await store.search({ query: 'prue*' }))).toEqual(['notes/viaje.md']);
  });

  test('forms follow edits, and a new default language re-indexes every note', async () => {
    fx.dir.write('a.md', SPANISH('# A\n\nNada aquí.'));
    const store = open({ db: 'shared' });
    await store.reindex();
    expect((await store.search({ query: 'canción' })).results).toEqual([]);
    fx.dir.write('a.md', SPANISH('# A\n\nDos canciones nuevas.'));
    await store.reindex();
    expect(paths(await store.search({ query: 'cancion' }))).toEqual(['notes/a.md']);
    fx.dir.write('b.md', '# B\n\nThe boxes are packed.\n');
    await store.close();

    const english = open({ db: 'shared', language: 'en' });
    const r = await english.reindex();
    expect(r.full).toBe(true);
    expect(r.warnings.join(' ')).toMatch(/default language changed/);
    expect(paths(await english.search({ query: 'box' }))).toEqual(['notes/b.md']);
    expect(paths(await english.search({ query: 'cancion' }))).toEqual(['notes/a.md']);
  });
}
