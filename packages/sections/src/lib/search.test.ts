import { bySize } from '@lectern/core/testing';
import { buildDocument, extractLines } from '@lectern/markdown';
import { createRng, realisticDocument, tortureDocument } from '@lectern/markdown/testing';
import { describe, expect, it } from 'vitest';
import {
  buildSearchData,
  buildSearchDataInSlices,
  contentTokens,
  postingsOf,
  scoreAll,
  snippet,
  stem,
  TermTable,
  tokenize,
} from './search.js';

describe('tokenize and stem', () => {
  it('folds common English endings onto one stem', () => {
    const s = ['install', 'installs', 'installing', 'installed', 'installation'].map(stem);
    expect(new Set(s).size).toBe(1);
    expect(stem('configure')).toBe(stem('configuration'));
  });

  it('splits CJK into characters and keeps other scripts as words', () => {
    expect(tokenize('安装 Lectern の設定 Ünïcode')).toEqual([
      '安',
      '装',
      'lectern',
      'の',
      '設',
      '定',
      'ünïcod',
    ]);
  });

  it('drops question words from topic queries', () => {
    expect(contentTokens('How do I rotate the tokens?')).toEqual(['rotat', 'token']);
    expect(contentTokens('the')).toEqual(['the']);
  });
});

describe('scoreAll', () => {
  const doc = buildDocument(
    '# Cache\n\nThe cache keeps parses.\n\n## Timeout\n\nRequests time out after 30 s; the cache is unaffected.\n\n## Other\n\nNothing here.\n',
  );
  const data = buildSearchData(doc);

  it('ranks sections with every query word first and weighs headings', () => {
    const hits = scoreAll([data], tokenize('cache timeout'), { head: 3, body: 1 }).sort(
      (a, b) => b.score - a.score,
    );
    const top = data.units[hits[0]!.unit]!;
    expect(doc.sections[top.section]!.heading).toBe('Timeout');
    expect(hits.every((h) => h.score > 0)).toBe(true);
    expect(hits).toHaveLength(2);
  });

  it('makes a snippet around the first match', () => {
    const unit = data.units.find((u) => u.section === 1)!;
    expect(snippet(doc, unit, 'unaffected', 'Timeout')).toContain('unaffected');
  });
});

describe('buildSearchDataInSlices', () => {
  const docs = (): string[] => {
    const rng = createRng(17);
    const out = [
      '',
      'no heading at all\n',
      '---\ntitle: x\n---\n\npreamble words\n\n# Head\n\nbody\n',
      'Setext\n======\n\nunder it\n\nNext\n----\nmore\n',
      '# Only a heading',
      '\uFEFF# BOM\r\n\r\nCRLF body, ü 安装\r\n## Sub\r\ntext\r\n',
    ];
    for (let i = 0; i < bySize(12, 60); i++) out.push(realisticDocument(i + 1, 2000 + 400 * i));
    for (let i = 0; i < bySize(12, 60); i++) out.push(tortureDocument(rng));
    return out;
  };

  it('gives the one-go build however it is sliced', async () => {
    for (const text of docs()) {
      const doc = buildDocument(text);
      const want = buildSearchData(doc);
      for (const slice of [0, 1, Number.POSITIVE_INFINITY]) {
        expect(await buildSearchDataInSlices(doc, new TermTable(), slice)).toEqual(want);
      }
    }
  }, 60_000);

  it('lets waiting callbacks run between slices, and shares terms through the table', async () => {
    const doc = buildDocument(realisticDocument(5, 60_000));
    expect(doc.sections.length).toBeGreaterThan(10);
    const table = new TermTable();
    let ranBetween = false;
    let done = false;
    const building = buildSearchDataInSlices(doc, table, 0).then((d) => {
      done = true;
      return d;
    });
    setImmediate(() => {
      ranBetween = !done;
    });
    const data = await building;
    expect(ranBetween).toBe(true);
    expect(data).toEqual(buildSearchData(doc));
    expect(table.size).toBe(data.terms.length);
  });
});

describe('postings of small and large documents', () => {
  /** Sections of random words from a large vocabulary: many terms, lists of every length. */
  function wordy(seed: number, sections: number): string {
    const rng = createRng(seed);
    const word = () => `w${Math.floor(rng() ** 2 * 6000).toString(36)}`;
    const parts: string[] = [];
    for (let i = 0; i < sections; i++) {
      const body = Array.from({ length: 30 }, word).join(' ');
      parts.push(`## ${word()} ${i}\n\n${body}\n`);
    }
    return parts.join('\n');
  }

  it('decode to the counts of each term in each unit, in own buffers or slab slices', () => {
    // a buffer per term under 1 Mi characters; past it, slices of one large slab
    for (const [text, kind] of [
      [wordy(3, 40), 'small'],
      [wordy(3, 400), 'small'],
      [wordy(1, 6000), 'small'],
      [wordy(2, bySize(7200, 12_000)), 'large'],
    ] as const) {
      const doc = buildDocument(text);
      const data = buildSearchData(doc);
      if (kind === 'small') expect(text.length).toBeLessThan(1024 * 1024);
      else expect(text.length).toBeGreaterThan(1024 * 1024);
      const naive = new Map<string, number[]>();
      data.units.forEach((u, k) => {
        const count = (toks: string[]) => {
          const m = new Map<string, number>();
          for (const t of toks) m.set(t, (m.get(t) ?? 0) + 1);
          return m;
        };
        const head = count(tokenize(u.section === -1 ? '' : doc.sections[u.section]!.heading));
        const body = count(tokenize(extractLines(doc, u.bodyFirst, u.bodyLast).content));
        for (const t of new Set([...head.keys(), ...body.keys()])) {
          const list = naive.get(t) ?? [];
          list.push(k, head.get(t) ?? 0, body.get(t) ?? 0);
          naive.set(t, list);
        }
      });
      expect(data.terms).toEqual([...naive.keys()].sort());
      for (const [t, list] of naive) expect(postingsOf(data, t)).toEqual(list);
    }
  }, 60_000);

  it('keep a term found in every section of a large document whole (a list past 28 slices)', () => {
    // 45,000 units of 3 bytes each: about 135 KB of postings for "word", past the ~82 KB that
    // slices 0-27 hold; a slice size computed as 8 << 28 went negative and the build threw.
    const sections = 45_000;
    const parts: string[] = [];
    for (let i = 0; i < sections; i++)
      parts.push(`# h${i % 7}
word filler text and more
`);
    const doc = buildDocument(parts.join('\n'));
    expect(doc.text.length).toBeGreaterThan(1024 * 1024);
    const data = buildSearchData(doc);
    const list = postingsOf(data, 'word');
    expect(list).not.toBeNull();
    expect(list!.length).toBe(3 * sections);
    for (let k = 0; k < sections; k++) {
      expect([list![3 * k], list![3 * k + 1], list![3 * k + 2]]).toEqual([k, 0, 1]);
    }
    expect(postingsOf(data, 'filler')).toEqual(list);
  }, 60_000);
});
