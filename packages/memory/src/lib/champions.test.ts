import { describe, expect, it } from 'vitest';
import { seededRandom, skewedWords } from '../test-helpers/random.js';
import { analyseChunk } from './analysis.js';
import {
  admits,
  ChampionBuilder,
  type ChampionLists,
  chunkLengths,
  eachAdmission,
  packCounts,
  pseudoFrequency,
  termCounts,
  unpackCounts,
} from './champions.js';

const chunk = (title: string, body: string) => analyseChunk(`${title}.md`, '', body, 'en');

describe('champion lists', () => {
  it('counts each term per field', () => {
    const c = termCounts(
      analyseChunk('n.md', 'Wing flutter > Wing', 'The wing flutters. Wings!', 'en'),
    );
    expect(c.get('wing')).toEqual([1, 1, 2]);
    expect(c.get('flutter')).toEqual([1, 0, 1]);
  });

  it('admits a new chunk to the listed terms it weighs at least the floor in', () => {
    const c = chunk('note', 'alpha alpha beta gamma');
    const lengths = [c.title.length, c.headings.length, c.body.length];
    const averages = [1, 0, 4] as const;
    const alpha = pseudoFrequency(0, 0, 2, lengths, averages);
    const floors = new Map([
      ['alpha', alpha],
      ['beta', alpha],
      ['delta', 0],
    ]);
    const joined: Array<[string, [number, number, number]]> = [];
    eachAdmission(c, floors, averages, (term, packed) => {
      joined.push([term, unpackCounts(packed)]);
    });
    // alpha weighs exactly its floor; beta (once) weighs less; gamma and delta have no list or
    // are not in the chunk.
    expect(joined).toEqual([['alpha', [0, 0, 2]]]);
  });

  it('packs counts losslessly up to 65,535 and caps above', () => {
    expect(unpackCounts(packCounts(3, 0, 65535))).toEqual([3, 0, 65535]);
    expect(unpackCounts(packCounts(70000, 2, 1))).toEqual([65535, 2, 1]);
  });

  it('keeps, for terms above the document frequency, the chunks where they weigh most', () => {
    const b = new ChampionBuilder({ minDf: 3, size: 2 });
    // "common" in 5 chunks with 1..5 occurrences in equal-length bodies; "rare" in 2.
    for (let i = 1; i <= 5; i++) {
      const body = `${'common '.repeat(i)}${'filler '.repeat(10 - i)}${i <= 2 ? 'rare' : 'other'}`;
      b.add(100 + i, chunk(`note ${i}`, body));
    }
    const { lists, averages } = b.finish();
    const common = lists.find((l) => l.term === 'common');
    expect(common?.entries.map((e) => e.chunk)).toEqual([105, 104]);
    expect(common?.entries[0]).toMatchObject({ title: 0, headings: 0, body: 5 });
    expect(lists.find((l) => l.term === 'rare')).toBeUndefined();
    // The floor is the last entry's weight; a chunk weighing as much is admitted, less is not.
    const c4 = chunk('note 4', `${'common '.repeat(4)}${'filler '.repeat(6)}other`);
    const lengths = [c4.title.length, c4.headings.length, c4.body.length];
    expect(common?.floor).toBeCloseTo(pseudoFrequency(0, 0, 4, lengths, averages), 9);
    expect(admits(common!.floor, [0, 0, 4], lengths, averages)).toBe(true);
    expect(admits(common!.floor, [0, 0, 3], lengths, averages)).toBe(false);
  });

  it('gives the same lists whatever the trimming along the way (order by final averages)', () => {
    const make = (size: number) => {
      const b = new ChampionBuilder({ minDf: 1, size });
      for (let i = 0; i < 200; i++) {
        const n = (i * 7919) % 13;
        b.add(i, chunk(`t${i}`, `${'alpha '.repeat(n + 1)}${'beta '.repeat((i % 5) + 1)}`));
      }
      return b
        .finish()
        .lists.find((l) => l.term === 'alpha')!
        .entries.map((e) => e.chunk);
    };
    const small = make(5);
    expect(small).toHaveLength(5);
    // Ties broken by the earlier chunk: the 5 best are the first chunks with the most "alpha".
    expect(make(50).slice(0, 5)).toEqual(small);
  });

  it('cuts postings while building without changing the lists (compaction), and they are the exact best', () => {
    const chunks = Array.from({ length: 300 }, (_, i) =>
      chunk(
        `t${i % 7}`,
        `${'alpha '.repeat((i * 31) % 9)}${'beta '.repeat((i * 17) % 5)}${'filler '.repeat(i % 11)}gamma`,
      ),
    );
    const build = (compactAt: number) => {
      const saved = ChampionBuilder.compactAt;
      ChampionBuilder.compactAt = compactAt;
      try {
        const b = new ChampionBuilder({ minDf: 10, size: 3 });
        chunks.forEach((c, i) => {
          b.add(i + 1, c);
        });
        return b.finish();
      } finally {
        ChampionBuilder.compactAt = saved;
      }
    };
    const whole = build(1 << 22);
    const cut = build(40);
    expect(cut).toEqual(whole);
    // The exact best by the final averages, ties by the chunk written first.
    for (const list of whole.lists) {
      const all = chunks
        .map((c, i) => {
          const n = termCounts(c).get(list.term) ?? [0, 0, 0];
          const l = [c.title.length, c.headings.length, c.body.length];
          return { id: i + 1, w: pseudoFrequency(n[0], n[1], n[2], l, whole.averages), n };
        })
        .filter((e) => e.n[0] + e.n[1] + e.n[2] > 0)
        .sort((a, b) => b.w - a.w || a.id - b.id);
      expect(list.entries.map((e) => e.chunk)).toEqual(all.slice(0, 3).map((e) => e.id));
    }
    expect(whole.lists.map((l) => l.term)).toContain('alpha');
    expect(whole.lists.find((l) => l.term === 'gamma')?.entries).toHaveLength(3);
  });

  it('keeps complete lists (every chunk, in chunk order, floor 0) for terms between `complete` and `minDf`, compacted or not', () => {
    // alpha in every chunk (a champion list), beta in 40 of 120, gamma in 12, delta in 3.
    const chunks = Array.from({ length: 120 }, (_, i) =>
      chunk(
        `t${i}`,
        `alpha ${i % 3 === 0 ? 'beta '.repeat(1 + (i % 4)) : ''}${i % 10 === 0 ? 'gamma ' : ''}${i % 40 === 0 ? 'delta' : ''} ${'filler '.repeat(i % 13)}`,
      ),
    );
    const build = (compactAt: number) => {
      const saved = ChampionBuilder.compactAt;
      ChampionBuilder.compactAt = compactAt;
      try {
        const b = new ChampionBuilder({ minDf: 50, size: 4, complete: 5 });
        chunks.forEach((c, i) => {
          b.add(10 + 2 * i, c);
        });
        return b.finish();
      } finally {
        ChampionBuilder.compactAt = saved;
      }
    };
    const built = build(1 << 22);
    expect(build(60)).toEqual(built);
    const byTerm = new Map(built.lists.map((l) => [l.term, l]));
    expect(byTerm.get('alpha')!.floor).toBeGreaterThan(0);
    expect(byTerm.get('alpha')!.entries).toHaveLength(4);
    expect(byTerm.has('delta')).toBe(false);
    for (const term of ['beta', 'gamma']) {
      const list = byTerm.get(term)!;
      expect(list.floor).toBe(0);
      const expected = chunks.flatMap((c, i) => {
        const n = termCounts(c).get(term);
        return n ? [{ chunk: 10 + 2 * i, title: n[0], headings: n[1], body: n[2] }] : [];
      });
      expect(list.entries).toEqual(expected);
    }
    expect(byTerm.get('beta')!.entries).toHaveLength(40);
    // Without the option, no complete list.
    const plain = new ChampionBuilder({ minDf: 50, size: 4 });
    chunks.forEach((c, i) => {
      plain.add(i + 1, c);
    });
    expect(plain.finish().lists.map((l) => l.term)).toEqual(['alpha', 'filler']);
  });

  it('grows its columns past their first size: counts, document frequencies and lists as brute force gives them', () => {
    // 600 chunks of ~120 distinct words among 3,000 (some in titles and headings, some
    // repeated): ~70,000 entries, more than the columns first hold.
    const words = skewedWords(seededRandom(7), 3000);
    const chunks = Array.from({ length: 600 }, () =>
      analyseChunk('n.md', `${words(2)} > ${words(3)}`, words(160), 'en'),
    );
    const make = () => {
      const b = new ChampionBuilder({ minDf: 40, size: 5 });
      chunks.forEach((c, i) => {
        b.add(1000 + i, c);
      });
      return b;
    };
    const b = make();
    // Compacted along the way, across blocks of entries: the same lists.
    const saved = ChampionBuilder.compactAt;
    ChampionBuilder.compactAt = 20_000;
    let compacted: ChampionLists;
    try {
      compacted = make().finish();
    } finally {
      ChampionBuilder.compactAt = saved;
    }
    const counted = chunks.map((c) => termCounts(c));
    const df = new Map<string, number>();
    for (const c of counted) for (const t of c.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    const { terms, df: frequencies } = b.frequencies();
    expect(new Map(terms.map((t, i) => [t, frequencies[i]!]))).toEqual(df);
    const built = b.finish();
    expect(compacted).toEqual(built);
    const listed = [...df].filter(([, n]) => n > 40).map(([t]) => t);
    expect(listed.length).toBeGreaterThan(20);
    expect(built.lists.map((l) => l.term)).toEqual(listed.sort());
    for (const list of built.lists) {
      const best = counted
        .map((c, i) => {
          const n = c.get(list.term) ?? [0, 0, 0];
          const l = chunkLengths(chunks[i]!);
          return { chunk: 1000 + i, w: pseudoFrequency(n[0], n[1], n[2], l, built.averages), n };
        })
        .filter((e) => e.n[0] + e.n[1] + e.n[2] > 0)
        .sort((x, y) => y.w - x.w || x.chunk - y.chunk)
        .slice(0, 5);
      expect(list.entries).toEqual(
        best.map((e) => ({ chunk: e.chunk, title: e.n[0], headings: e.n[1], body: e.n[2] })),
      );
      expect(list.floor).toBe(best[4]!.w);
    }
  });

  it('puts a title occurrence above body occurrences (field weights)', () => {
    const b = new ChampionBuilder({ minDf: 1, size: 1 });
    b.add(1, chunk('plain', 'gamma gamma filler'));
    b.add(2, chunk('gamma', 'filler filler filler'));
    expect(b.finish().lists.find((l) => l.term === 'gamma')?.entries[0]?.chunk).toBe(2);
  });
});
