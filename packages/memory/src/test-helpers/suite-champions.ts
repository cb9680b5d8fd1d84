import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { championTuning } from '../lib/champions.js';
import { storeFixture } from './fixture.js';
import type { BackendUnderTest } from './target.js';

/**
 * Very common terms and phrases (`lib/champions.ts`), with thresholds small enough for a few
 * notes: a term in more than 3 chunks gets a list of its 2 best, a phrase of very common words
 * (each in more than 30% of chunks) held by more than 3 chunks is ranked among the 3 newest.
 */
export function championTests(target: BackendUnderTest): void {
  const fx = storeFixture(target);
  const saved = { ...championTuning };
  beforeEach(() => {
    championTuning.minDf = 3;
    championTuning.size = 2;
    championTuning.phraseCap = 3;
  });
  afterEach(() => {
    Object.assign(championTuning, saved);
  });

  const paths = (r: { results: Array<{ path: string }> }) => r.results.map((c) => c.path);
  const scores = (r: { results: Array<{ score: number }> }) => r.results.map((c) => c.score);
  const note = (alphas: number, fillers: number) =>
    `# Note\n\n${'alpha '.repeat(alphas)}${'filler '.repeat(fillers)}end\n`;
  /** Four notes holding "alpha" 3, 2, 1 and 1 times (the last in a longer body). */
  const writeFour = () => {
    fx.dir.write('a.md', note(3, 1));
    fx.dir.write('b.md', note(2, 2));
    fx.dir.write('c.md', note(1, 3));
    fx.dir.write('d.md', note(1, 6));
  };

  test('a word in more chunks than the threshold is ranked on the chunks where it weighs most', async () => {
    writeFour();
    const store = fx.make();
    const listed = await store.search({ query: 'alpha' });
    expect(paths(listed)).toEqual(['notes/a.md', 'notes/b.md']);
    // The same two first, with the same scores, as when every chunk is read.
    championTuning.minDf = 100;
    await store.reindex({ full: true });
    const whole = await store.search({ query: 'alpha' });
    expect(paths(whole)).toEqual(['notes/a.md', 'notes/b.md', 'notes/c.md', 'notes/d.md']);
    expect(scores(whole).slice(0, 2)).toEqual(scores(listed));
    // A prefix counts its listed terms on their lists too.
    championTuning.minDf = 3;
    await store.reindex({ full: true });
    expect(paths(await store.search({ query: 'alph*' }))).toEqual(['notes/a.md', 'notes/b.md']);
  });

  test('a question of several words reads a listed word in full unless it is in 30% of chunks', async () => {
    fx.dir.write('a.md', note(3, 1));
    fx.dir.write('b.md', note(2, 2));
    fx.dir.write('c.md', `# Note\n\nalpha zeta filler\n`);
    fx.dir.write('d.md', `# Note\n\nalpha zeta filler filler\n`);
    fx.dir.write('e.md', `# Note\n\nzeta filler filler filler\n`);
    // 20 chunks: alpha in 4 (20%), listed (more than 3), read in full with another word.
    for (let i = 0; i < 15; i++) fx.dir.write(`f${i}.md`, `# Filler ${i}\n\nplain words\n`);
    const store = fx.make();
    expect(paths(await store.search({ query: 'alpha' }))).toEqual(['notes/a.md', 'notes/b.md']);
    const both = await store.search({ query: 'alpha zeta' });
    expect(paths(both).slice(0, 2)).toEqual(['notes/c.md', 'notes/d.md']);
    expect(both.match).toBe('all');
    expect(paths(both)).toHaveLength(5);
  });

  test('an incremental reindex drops removed chunks from lists and admits new ones above the floor', async () => {
    writeFour();
    const store = fx.make();
    await store.reindex({ full: true });
    rmSync(join(fx.dir.path, 'a.md'));
    await store.reindex();
    expect(paths(await store.search({ query: 'alpha' }))).toEqual(['notes/b.md']);
    // Weighs more than the list's last chunk did: joins it. Weighs less: does not.
    fx.dir.write('e.md', note(4, 0));
    fx.dir.write('f.md', note(1, 8));
    await store.reindex();
    expect(paths(await store.search({ query: 'alpha' }))).toEqual(['notes/e.md', 'notes/b.md']);
    // A full reindex builds the lists again from every chunk.
    fx.dir.write('g.md', note(3, 0));
    await store.reindex({ full: true });
    expect(paths(await store.search({ query: 'alpha' }))).toEqual(['notes/e.md', 'notes/g.md']);
  });

  test('a phrase in more chunks than the cap is ranked among the newest, and the answer says so', async () => {
    for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) {
      fx.dir.write(`${n}.md`, `# ${n}\n\nSome beta gamma here.\n`);
    }
    fx.dir.write('other.md', '# Other\n\ngamma beta, the other way round.\n');
    const store = fx.make();
    const capped = await store.search({ query: '"beta gamma"' });
    expect(capped.results).toHaveLength(3);
    expect(capped.warnings.join(' ')).toContain('more than 3 chunks hold the phrase "beta gamma"');
    championTuning.phraseCap = 10;
    const all = await store.search({ query: '"beta gamma"' });
    expect(paths(all).sort()).toEqual(['p1', 'p2', 'p3', 'p4', 'p5'].map((n) => `notes/${n}.md`));
    expect(all.warnings.join(' ')).not.toContain('hold the phrase');
  });

  test('a phrase with a word in fewer than 30% of chunks is ranked over every chunk holding it', async () => {
    for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) {
      fx.dir.write(`${n}.md`, `# ${n}\n\nSome beta gamma here.\n`);
    }
    for (let i = 0; i < 15; i++) fx.dir.write(`f${i}.md`, `# Filler ${i}\n\nplain words\n`);
    const store = fx.make();
    const r = await store.search({ query: '"beta gamma"' });
    expect(r.results).toHaveLength(5);
    expect(r.warnings.join(' ')).not.toContain('hold the phrase');
  });
}
