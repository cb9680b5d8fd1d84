import { expect, test } from 'vitest';
import { memoryPackage } from '../package.js';
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

  test('forms of a word are one term: more occurrences rank higher, scores stay in rank order', async () => {
    fx.dir.write('plural.md', SPANISH('# Varias\n\nPruebas, pruebas y más pruebas.'));
    fx.dir.write(
      'exacta.md',
      SPANISH('# Una\n\nUna sola prueba, larga y detallada, con muchas palabras.'),
    );
    const store = open();
    const r = await store.search({ query: 'prueba' });
    expect(paths(r)).toEqual(['notes/plural.md', 'notes/exacta.md']);
    expect(r.results[0]!.score).toBeGreaterThan(r.results[1]!.score);
    // The other form ranks the same way, with the same scores.
    const back = await store.search({ query: 'pruebas' });
    expect(paths(back)).toEqual(['notes/plural.md', 'notes/exacta.md']);
    expect(back.results.map((c) => c.score)).toEqual(r.results.map((c) => c.score));
    // Pages continue.
    const first = await store.search({ query: 'prueba', limit: 1 });
    expect(paths(first)).toEqual(['notes/plural.md']);
    expect(first.next_offset).toBe(1);
    const second = await store.search({ query: 'prueba', limit: 1, offset: 1 });
    expect(paths(second)).toEqual(['notes/exacta.md']);
    expect(second.next_offset).toBeNull();
  });

  test('the configured language applies to notes that declare none', async () => {
    fx.dir.write('run.md', '# Log\n\nThe runner runs every morning.\n');
    fx.dir.write('notes.txt', 'Many notes were taken.\n');
    const english = open({ language: 'en' });
    expect(paths(await english.search({ query: 'running' }))).toEqual(['notes/run.md']);
    expect(paths(await english.search({ query: 'note' }))).toEqual(['notes/notes.txt']);
    await english.close();
    // Without a language option, a note's language is detected: this English prose is
    // stemmed as English all the same.
    fx.dir.write(
      'long.md',
      '# Morning\n\nThe runner runs along the river every morning, and she writes down what she saw in her notebook.\n',
    );
    const detected = open({ db: 'plain' });
    expect(paths(await detected.search({ query: 'writing' }))).toEqual(['notes/long.md']);
  });

  test('a form from one language never matches a note in another', async () => {
    // Spanish "nota" stems to "not"; the English word "not" must not answer for it.
    fx.dir.write(
      'en.md',
      '# Drill\n\nThis is not a drill, notably: it is the real thing, and we are not ready for it.\n',
    );
    fx.dir.write('es.md', SPANISH('# Viaje\n\nUnas notas sueltas.'));
    const store = open({ language: 'en' });
    expect(paths(await store.search({ query: 'nota' }))).toEqual(['notes/es.md']);
  });

  test('phrases match forms of their words in order; prefixes match indexed terms', async () => {
    fx.dir.write('viaje.md', SPANISH('# Viaje\n\nLas pruebas largas terminaron.'));
    const store = open();
    expect(paths(await store.search({ query: '"prueba larga"' }))).toEqual(['notes/viaje.md']);
    expect(paths(await store.search({ query: '"pruebas largas"' }))).toEqual(['notes/viaje.md']);
    expect((await store.search({ query: '"largas pruebas"' })).results).toEqual([]);
    expect(paths(await store.search({ query: 'prue*' }))).toEqual(['notes/viaje.md']);
  });

  test('memoria preset: Spanish notes without front matter find word forms, and a title match comes first', async () => {
    fx.dir.write(
      'guia/enlaces-internos.md',
      '# Enlaces internos\n\nUn enlace interno apunta a otra nota de la bóveda. Se escribe con dobles corchetes alrededor del nombre de la nota, y al pulsarlo se abre la nota enlazada.\n',
    );
    fx.dir.write(
      'guia/sincronizacion.md',
      '# Sincronización\n\nLa sincronización copia las notas entre dispositivos. Los enlaces se conservan, también los enlaces internos y externos, y los archivos internos de configuración se copian aparte. Revisa los enlaces internos rotos después de sincronizar: los enlaces internos rotos aparecen en rojo.\n',
    );
    fx.dir.write(
      'guia/pruebas.md',
      '# Pruebas de la bóveda\n\nAntes de publicar hacemos pruebas con una copia de la bóveda. Las pruebas se repiten cada semana y sus resultados quedan en las Notas del equipo.\n',
    );
    fx.dir.write(
      'guia/plantillas.md',
      '# Plantillas\n\nUna plantilla es una nota con texto que se inserta en otras notas. Las plantillas viven en su propia carpeta y se pueden usar con atajos de teclado.\n',
    );
    const set = memoryPackage.presets!.memoria!({
      roots: [{ id: 'notes', path: fx.dir.path }],
      backend: target.backend('memoria'),
    });
    try {
      const store = set.store;
      const first = await store.search({ query: 'enlaces internos' });
      expect(first.results[0]!.path).toBe('notes/guia/enlaces-internos.md');
      expect(first.results[0]!.heading_path).toBe('Enlaces internos');
      expect(paths(await store.search({ query: 'prueba' }))).toEqual(['notes/guia/pruebas.md']);
      const nota = paths(await store.search({ query: 'nota' }));
      expect(nota).toContain('notes/guia/pruebas.md');
      expect(nota).toContain('notes/guia/enlaces-internos.md');
      const hit = (await store.search({ query: 'prueba' })).results[0]!;
      expect(hit.snippet).toContain('«pruebas»');
    } finally {
      await set.close();
    }
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
