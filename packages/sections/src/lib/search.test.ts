import { bySize } from '@lectern/core/testing';
import { buildDocument, extractLines } from '@lectern/markdown';
import { createRng, realisticDocument, tortureDocument } from '@lectern/markdown/testing';
import { terms } from '@lectern/text';
import { describe, expect, it } from 'vitest';
import {
  buildSearchData,
  buildSearchDataInSlices,
  documentLanguage,
  postingsOf,
  TermTable,
  withCamelParts,
} from './search.js';

describe('the document language', () => {
  it('is declared in front matter, else read from the prose, code blocks left out', () => {
    const es = buildDocument('---\nlang: es\n---\n\n# Título\n\nThe text is English.\n');
    expect(documentLanguage(es)).toBe('es');
    const prose = buildDocument(
      `# Notas\n\n\`\`\`\n${'the and of to in is that for it as with '.repeat(20)}\n\`\`\`\n\nLas notas de la reunión están en la carpeta del equipo y se guardan cada semana con las demás. Cuando una nota cambia, el índice la vuelve a leer; si se borra, desaparece de las búsquedas. Para buscar una nota basta con escribir las palabras que recuerdas de ella, en el orden que sea.\n`,
    );
    expect(documentLanguage(prose)).toBe('es');
    expect(buildSearchData(prose).language).toBe('es');
  });

  it('is English when the prose is too short to tell', () => {
    expect(documentLanguage(buildDocument('# Install\n\nRun it.\n'))).toBe('en');
    // a trigram guess would make this Danish
    expect(
      documentLanguage(buildDocument('# Installing\n\nHow the installer installs it.\n')),
    ).toBe('en');
  });

  it('stems terms in that language and drops its stop words', () => {
    const data = buildSearchData(buildDocument('# Installing\n\nHow the installer installs it.\n'));
    expect(data.terms).toEqual(['instal']);
    expect(postingsOf(data, 'instal')).toEqual([0, 1, 2]);
  });
});

describe('heading paths', () => {
  it('give each unit the heading terms above it and the last unit under it', () => {
    const doc = buildDocument(
      '# Guide\n\nintro\n\n## Footnotes\n\nnotes\n\n### Syntax\n\nmarks\n\n## Tables\n\ncells\n',
    );
    const data = buildSearchData(doc);
    const byHeading = Object.fromEntries(
      data.units.map((u, k) => [doc.sections[u.section]!.heading, { ...u, k }]),
    );
    expect(byHeading.Guide).toMatchObject({ pathLen: 0, last: 3 });
    expect(byHeading.Footnotes).toMatchObject({ pathLen: 1, last: 2 });
    expect(byHeading.Syntax).toMatchObject({ pathLen: 2, last: 2 });
    expect(byHeading.Tables).toMatchObject({ pathLen: 1, last: 3 });
    expect(data.pathLen).toBe(4);
    expect(data.titleLen).toBe(4);
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
        const lang = data.language;
        const head = count(terms(u.section === -1 ? '' : doc.sections[u.section]!.heading, lang));
        const body = count(terms(extractLines(doc, u.bodyFirst, u.bodyLast).content, lang));
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

describe('withCamelParts', () => {
  it('follows each camel-case word with its parts and leaves other text as it is', () => {
    expect(withCamelParts('Installing on macOS now')).toBe('Installing on macOS mac OS now');
    expect(withCamelParts('HashMap and RefCell<T>')).toBe(
      'HashMap Hash Map and RefCell Ref Cell<T>',
    );
    expect(withCamelParts('xmlHTTPRequest')).toBe('xmlHTTPRequest xml HTTPRequest');
    expect(withCamelParts('straßeÄpfel приветМир')).toBe(
      'straßeÄpfel straße Äpfel приветМир привет Мир',
    );
    expect(withCamelParts('plain text, ALL CAPS and Title Case')).toBe(
      'plain text, ALL CAPS and Title Case',
    );
  });
});
