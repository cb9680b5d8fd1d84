import { describe, expect, it } from 'vitest';
import {
  analyze,
  analyzeQuery,
  BM25,
  bm25f,
  declaredLanguage,
  detectLanguage,
  foldWord,
  idf,
  isStopWord,
  languageFromTag,
  stem,
  termFrequencies,
  terms,
  tokenize,
  words,
} from './index.js';

describe('tokenize and fold', () => {
  it('folds case and accents the way FTS5 unicode61 remove_diacritics 2 does', () => {
    expect(foldWord('Café')).toBe('cafe');
    expect(foldWord('CAFÉ')).toBe('cafe');
    expect(foldWord('cafe\u0301')).toBe('cafe');
    expect(foldWord('Ñandú')).toBe('nandu');
  });

  it('folds a word the same when it is met again (remembered) and past the memo limit', () => {
    const forms = Array.from({ length: 120_000 }, (_, i) => `É${i.toString(36)}`);
    for (const w of forms) expect(foldWord(w)).toBe(`e${w.slice(1)}`);
    for (const w of forms.slice(0, 1000)) expect(foldWord(w)).toBe(`e${w.slice(1)}`);
    expect(foldWord('Ñandú')).toBe('nandu');
    expect(foldWord('ÑANDÚ')).toBe('nandu');
  });

  it('splits on everything but letters, digits and marks, with offsets and positions', () => {
    const text = 'The e-mail, v1.2: Café!';
    const toks = tokenize(text);
    expect(toks.map((t) => t.word)).toEqual(['the', 'e', 'mail', 'v1', '2', 'cafe']);
    expect(toks.map((t) => text.slice(t.start, t.end))).toEqual([
      'The',
      'e',
      'mail',
      'v1',
      '2',
      'Café',
    ]);
    expect(toks.map((t) => t.position)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(words(text)).toEqual(toks.map((t) => t.word));
  });

  it('makes each Han or Kana character a word of its own', () => {
    expect(words('東京タワーはabc')).toEqual(['東', '京', 'タ', 'ワ', 'ー', 'は', 'abc']);
  });
});

describe('stop words and stems', () => {
  it('knows question words as stop words in English and Spanish, folded', () => {
    for (const w of ['how', 'do', 'i', 'the', 'what']) expect(isStopWord(w, 'en'), w).toBe(true);
    expect(isStopWord('footnote', 'en')).toBe(false);
    expect(isStopWord('que', 'es')).toBe(true); // qué
    expect(isStopWord('mas', 'es')).toBe(true); // más
    expect(isStopWord('the', 'simple')).toBe(false);
  });

  it('stems word forms together with Snowball', () => {
    expect(stem('notes', 'en')).toBe(stem('note', 'en'));
    expect(stem('installing', 'en')).toBe(stem('installs', 'en'));
    expect(stem('pruebas', 'es')).toBe(stem('prueba', 'es'));
    expect(stem('notas', 'es')).toBe(stem('nota', 'es'));
    expect(stem('notes', 'simple')).toBe('notes');
  });

  it('analyzes a text: stop words dropped with their positions kept as gaps', () => {
    const t = analyze('The owner of the value', 'en');
    expect(t.map((x) => x.term)).toEqual(['owner', 'valu']);
    expect(t.map((x) => x.position)).toEqual([1, 4]);
    expect(terms('Notes and notes', 'en')).toEqual(['note', 'note']);
    expect(termFrequencies('Notes and notes', 'en').get('note')).toBe(2);
  });
});

describe('languages', () => {
  it('reads tags and names', () => {
    expect(languageFromTag('en-GB')).toBe('en');
    expect(languageFromTag('es_MX')).toBe('es');
    expect(languageFromTag('Español')).toBe('es');
    expect(languageFromTag('spa')).toBe('es');
    expect(languageFromTag('Deutsch')).toBe('de');
    expect(languageFromTag('klingon')).toBe('simple');
  });

  it('reads the language front matter declares', () => {
    expect(declaredLanguage(['---', 'title: x', 'lang: es', '---', 'text'])).toBe('es');
    expect(declaredLanguage(['---', 'language: "en-US" # note', '---'])).toBe('en');
    expect(declaredLanguage(['# no front matter'])).toBeUndefined();
  });

  it('identifies prose in several languages', () => {
    expect(
      detectLanguage(
        'The ownership rules of Rust mean that each value has a single owner, and when the owner goes out of scope the value is dropped.',
      ),
    ).toBe('en');
    expect(
      detectLanguage(
        'Las notas de prueba sirven para comprobar que el buscador encuentra las formas de las palabras en los documentos.',
      ),
    ).toBe('es');
    expect(
      detectLanguage(
        'Les notes de test servent à vérifier que le moteur de recherche trouve les formes des mots dans les documents.',
      ),
    ).toBe('fr');
    expect(
      detectLanguage(
        'Die Notizen dienen dazu, zu prüfen, ob die Suchmaschine die Wortformen in den Dokumenten findet und richtig ordnet.',
      ),
    ).toBe('de');
  });

  it('answers the fallback for text too short or without words', () => {
    expect(detectLanguage('Enlaces', { fallback: 'es' })).toBe('es');
    expect(detectLanguage('12 34 56 78 90 12 34 56 78 90 12 34')).toBe('simple');
    expect(detectLanguage('', { fallback: 'en' })).toBe('en');
    // Distinct stop words vote: Finnish's list also holds `the` and `of`.
    expect(
      detectLanguage('The notes of the meeting were written down by the team after the call.'),
    ).toBe('en');
    // Too short for trigram profiles, too few stop words for a vote: not guessed as Catalan.
    expect(detectLanguage('Drill notes: This is not a drill, notably.', { fallback: 'en' })).toBe(
      'en',
    );
  });
});

describe('analyzeQuery', () => {
  it('reads a question as words, stop words marked, stems in each language', () => {
    const q = analyzeQuery('How do I add footnotes?', { languages: ['en', 'es'] });
    expect(q.map((c) => c.kind)).toEqual(['word', 'word', 'word', 'word', 'word']);
    expect(q.map((c) => c.words[0]!.stop)).toEqual([true, true, true, false, false]);
    expect(q[4]!.words[0]!.stems.en).toBe(stem('footnote', 'en'));
    expect(q[4]!.words[0]!.surface).toBe('footnotes');
  });

  it('reads phrases, joined words and prefixes; no character is an error', () => {
    const q = analyzeQuery('"out of scope" e-mail wor* AND( ^{} "unbalanced', {
      languages: ['en'],
    });
    expect(q.map((c) => [c.kind, c.words.map((w) => w.surface).join(' ')])).toEqual([
      ['word', 'out'],
      ['word', 'of'],
      ['word', 'scope'],
      ['phrase', 'e mail'],
      ['prefix', 'wor'],
      ['word', 'and'],
      ['word', 'unbalanced'],
    ]);
    const balanced = analyzeQuery('"out of scope" x', { languages: ['en'] });
    expect(balanced[0]!.kind).toBe('phrase');
    expect(balanced[0]!.words.map((w) => w.surface)).toEqual(['out', 'of', 'scope']);
  });

  it('reads + and - only with syntax', () => {
    const on = analyzeQuery('+borrow -"move semantics" -clone', {
      languages: ['en'],
      syntax: true,
    });
    expect(on.map((c) => [c.required, c.excluded])).toEqual([
      [true, false],
      [false, true],
      [false, true],
    ]);
    const off = analyzeQuery('+borrow -clone', { languages: ['en'] });
    expect(off.every((c) => !c.required && !c.excluded)).toBe(true);
  });
});

describe('BM25', () => {
  it('computes Lucene idf', () => {
    expect(idf(1000, 10)).toBeCloseTo(Math.log(1 + 990.5 / 10.5), 12);
    expect(idf(10, 10)).toBeGreaterThan(0);
  });

  it('is Lucene BM25 with one field of weight 1', () => {
    const { k1, b } = BM25;
    const tf = 3;
    const len = 120;
    const avg = 80;
    const expected = (2 * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg));
    expect(bm25f({ body: tf }, { body: len }, { body: avg }, 2)).toBeCloseTo(expected, 12);
  });

  it('weighs a title match above the same match in the body', () => {
    const title = bm25f({ title: 1 }, { title: 3, body: 50 }, { title: 4, body: 50 }, 1);
    const body = bm25f({ body: 1 }, { title: 3, body: 50 }, { title: 4, body: 50 }, 1);
    expect(title).toBeGreaterThan(body);
    expect(bm25f({}, {}, {}, 1)).toBe(0);
  });
});
