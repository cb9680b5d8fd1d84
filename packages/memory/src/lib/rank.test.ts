import { bm25f, FIELD_WEIGHTS, idf } from '@lectern/text';
import { describe, expect, test } from 'vitest';
import {
  COMMON_SHARE,
  clauseCeiling,
  clausesStillNeeded,
  type IndexStats,
  phraseCount,
  planQuery,
  queryClauses,
  Scorer,
  termsToLookUp,
} from './rank.js';

const stats: IndexStats = { docs: 100, totals: { title: 300, headings: 200, body: 5000 } };

function plan(text: string, df: Record<string, number>, languages = ['en'] as const) {
  const clauses = queryClauses(text, languages);
  const expansions = new Map<string, Array<{ term: string; df: number }>>();
  for (const p of termsToLookUp(clauses, languages).prefixes) {
    expansions.set(
      p,
      Object.entries(df)
        .filter(([t]) => t.startsWith(p))
        .map(([term, d]) => ({ term, df: d })),
    );
  }
  return planQuery(clauses, languages, new Map(Object.entries(df)), expansions, stats);
}

describe('planQuery', () => {
  test('a question keeps its informative words: stop words out, stems in', () => {
    const p = plan('What are the effects of heated wings on flutter?', {
      effect: 10,
      heat: 5,
      wing: 20,
      flutter: 3,
    });
    expect(p.clauses.map((c) => c.terms.get('en'))).toEqual([
      ['effect'],
      ['heat'],
      ['wing'],
      ['flutter'],
    ]);
    expect(p.dropped).toEqual(['what', 'are', 'the', 'of', 'on']);
    expect(p.expression).toBe('"effect" OR "heat" OR "wing" OR "flutter"');
    expect(p.clauses[3]!.idf.get('en')).toBeCloseTo(idf(100, 3));
  });

  test('never refuses for length; a very common word is dropped only when a rarer one occurs', () => {
    const long = plan(`${'flutter '.repeat(300)}flow`, { flutter: 3, flow: 90 });
    expect(long.clauses.map((c) => c.surface)).toEqual([['flutter']]);
    expect(long.dropped).toEqual(['flow']);
    expect(90).toBeGreaterThan(COMMON_SHARE * stats.docs);
    // Next to a word found nowhere, the common word is all there is: kept.
    const typo = plan('flow fluter', { flow: 90 });
    expect(typo.clauses.map((c) => c.surface)).toEqual([['flow'], ['fluter']]);
    // Every word very common: the rarest stands for them.
    expect(plan('flow pressure', { flow: 90, pressur: 60 }).clauses.map((c) => c.surface)).toEqual([
      ['pressure'],
    ]);
    // Only stop words: kept (the rarest, here), so the question is still answered.
    expect(plan('the of', { the: 99, of: 98 }).clauses.map((c) => c.surface)).toEqual([['of']]);
    expect(plan('the zebra', { the: 99 }).clauses.map((c) => c.surface)).toEqual([['zebra']]);
  });

  test('a phrase weighs the sum of its words; a prefix the most frequent term it stands for', () => {
    const p = plan('"boundary layer" bound*', {
      boundari: 10,
      layer: 20,
      bound: 30,
      boundless: 2,
      bounc: 2,
    });
    const [phrase, prefix] = p.clauses;
    expect(phrase!.terms.get('en')).toEqual(['boundari', 'layer']);
    expect(phrase!.idf.get('en')).toBeCloseTo(idf(100, 10) + idf(100, 20));
    expect(prefix!.terms.get('en')).toEqual(['bound', 'boundari', 'boundless']);
    expect(prefix!.idf.get('en')).toBeCloseTo(idf(100, 30));
    expect(p.expression).toBe('"boundari layer" OR "bound"*');
  });

  test('a word is stemmed per language; the expression shows each distinct stem', () => {
    const p = plan('pruebas', { prueb: 4, prueba: 1 }, ['en', 'es'] as never);
    expect(p.clauses[0]!.terms).toEqual(
      new Map([
        ['en', ['prueba']],
        ['es', ['prueb']],
      ]),
    );
    expect(p.clauses[0]!.idf.get('es')).toBeCloseTo(idf(100, 4));
    expect(p.expression).toBe('("prueba" OR "prueb")');
  });
});

describe('Scorer', () => {
  test('BM25F per clause, summed; more clauses matched and title matches rank first', () => {
    const p = plan('flutter wing', { flutter: 3, wing: 20 });
    const s = new Scorer(p, stats, 3);
    // Chunk 7: flutter in the body once. Chunk 8: flutter in the title. Chunk 9: both words.
    s.add(0, 0, 7, 'en', [3, 2, 50], 0, 0, 1);
    s.add(0, 1, 8, 'en', [3, 2, 50], 1, 0, 0);
    s.add(0, 2, 9, 'en', [3, 2, 50], 0, 0, 1);
    s.add(1, 2, 9, 'en', [3, 2, 50], 0, 0, 2);
    const top = s.top();
    expect(top.map((r) => r.id)).toEqual([9, 8, 7]);
    expect(top.map((r) => r.matched)).toEqual([2, 1, 1]);
    const avg = { title: 3, headings: 2, body: 50 };
    const lengths = { title: 3, headings: 2, body: 50 };
    expect(top[2]!.score).toBeCloseTo(bm25f({ body: 1 }, lengths, avg, idf(100, 3)));
    expect(top[1]!.score).toBeCloseTo(bm25f({ title: 1 }, lengths, avg, idf(100, 3)));
    expect(top[1]!.score / top[2]!.score).toBeGreaterThan(1);
    expect(FIELD_WEIGHTS.title).toBeGreaterThan(FIELD_WEIGHTS.body);
  });

  test('ties go to the lower chunk id; touched chunks without a match score 0', () => {
    const p = plan('flutter', { flutter: 3 });
    const s = new Scorer(p, stats, 3);
    s.add(0, 0, 12, 'en', [1, 1, 10], 0, 0, 1);
    s.add(0, 1, 11, 'en', [1, 1, 10], 0, 0, 1);
    s.touch(2, 5);
    expect(s.top().map((r) => [r.id, r.score > 0])).toEqual([
      [11, true],
      [12, true],
      [5, false],
    ]);
    expect(s.top(1)).toHaveLength(1);
  });

  test('a released scorer leaves its arrays cleared to the next of the same size', () => {
    const p = plan('flutter', { flutter: 3 });
    const first = new Scorer(p, stats, 4);
    first.add(0, 0, 12, 'en', [1, 1, 10], 0, 0, 3);
    first.add(0, 3, 14, 'en', [1, 1, 10], 1, 0, 0);
    const expected = first.top();
    first.release();
    const second = new Scorer(p, stats, 4);
    expect(second.size).toBe(0);
    expect(second.top()).toEqual([]);
    second.add(0, 1, 13, 'en', [1, 1, 10], 0, 0, 1);
    expect(second.top().map((r) => [r.id, r.matched])).toEqual([[13, 1]]);
    second.release();
    const third = new Scorer(p, stats, 4);
    third.add(0, 0, 12, 'en', [1, 1, 10], 0, 0, 3);
    third.add(0, 3, 14, 'en', [1, 1, 10], 1, 0, 0);
    expect(third.top()).toEqual(expected);
  });
});

test('phraseCount counts starts where every next word follows', () => {
  expect(
    phraseCount([
      [1, 5, 9],
      [2, 10],
      [3, 11],
    ]),
  ).toBe(2);
  expect(phraseCount([[1], [3]])).toBe(0);
  expect(phraseCount([[1], []])).toBe(0);
});

describe('max-score pruning', () => {
  test('no chunk gets more from a clause than its ceiling, however often it holds it', () => {
    const p = plan('flutter wing', { flutter: 3, wing: 20 });
    const ceiling = clauseCeiling(p.clauses[0]!);
    const avg = { title: 3, headings: 2, body: 50 };
    for (const tf of [1, 10, 1e3, 1e6]) {
      const score = bm25f(
        { title: tf, body: tf },
        { title: 1, body: 1 },
        avg,
        p.clauses[0]!.idf.get('en')!,
      );
      expect(score).toBeLessThan(ceiling);
    }
  });

  test('the weakest clauses whose ceilings sum below the threshold are not looked up', () => {
    const p = plan('flutter wing heat', { flutter: 3, wing: 20, heat: 25 });
    const [flutter, wing, heat] = p.clauses.map(clauseCeiling) as [number, number, number];
    expect(flutter).toBeGreaterThan(wing);
    // Above wing + heat: neither can lift a chunk that holds no flutter onto the page.
    expect(clausesStillNeeded(p, [1, 2], (wing + heat) * 1.01)).toEqual([]);
    // Between heat and wing + heat: heat alone cannot, wing with heat can.
    expect(clausesStillNeeded(p, [1, 2], heat * 1.01)).toEqual([1]);
    // A threshold a clause's ceiling only equals (a tie) keeps it: ties go by chunk id.
    expect(clausesStillNeeded(p, [2], heat)).toEqual([2]);
    expect(clausesStillNeeded(p, [1, 2], 0)).toEqual([1, 2]);
  });
});
