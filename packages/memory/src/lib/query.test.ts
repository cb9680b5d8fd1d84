import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { buildFtsQuery, parseQuery } from './query.js';

describe('parseQuery', () => {
  test('words, phrases and prefixes', () => {
    expect(parseQuery('alpha "beta gamma" delt*')).toEqual([
      { words: ['alpha'], prefix: false },
      { words: ['beta', 'gamma'], prefix: false },
      { words: ['delt'], prefix: true },
    ]);
    expect(parseQuery('"new yor"*')).toEqual([{ words: ['new', 'yor'], prefix: true }]);
  });

  test('operators and punctuation are separators; joined words become phrases', () => {
    expect(parseQuery('AND( NEAR -x +y a:b ^c {d}')).toEqual([
      { words: ['AND'], prefix: false },
      { words: ['NEAR'], prefix: false },
      { words: ['x'], prefix: false },
      { words: ['y'], prefix: false },
      { words: ['a', 'b'], prefix: false },
      { words: ['c'], prefix: false },
      { words: ['d'], prefix: false },
    ]);
    expect(parseQuery('e-mail')).toEqual([{ words: ['e', 'mail'], prefix: false }]);
    expect(parseQuery('* - ( ) " :')).toEqual([]);
  });

  test('an unbalanced quote is ignored', () => {
    expect(parseQuery('"open phrase')).toEqual([
      { words: ['open'], prefix: false },
      { words: ['phrase'], prefix: false },
    ]);
  });

  test('accented and non-Latin words are kept whole', () => {
    expect(parseQuery('café 東京 naïve')).toEqual([
      { words: ['café'], prefix: false },
      { words: ['東京'], prefix: false },
      { words: ['naïve'], prefix: false },
    ]);
  });
});

describe('buildFtsQuery', () => {
  test('quotes every term, AND or OR', () => {
    expect(buildFtsQuery('alpha "beta gamma" delt*')).toBe('"alpha" AND "beta gamma" AND "delt"*');
    expect(buildFtsQuery('a b', 'any')).toBe('"a" OR "b"');
  });

  test('refuses queries without words, never for their number of words', () => {
    expect(() => buildFtsQuery('()')).toThrow(/no letters or digits/);
    expect(buildFtsQuery('w '.repeat(40))).toBe(Array(40).fill('"w"').join(' AND '));
  });

  const db = new Database(':memory:');
  db.exec(
    "CREATE VIRTUAL TABLE t USING fts5(heading_path, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')",
  );
  db.prepare('INSERT INTO t VALUES (?, ?)').run('Heading', 'some body text with café and AND NEAR');
  const match = db.prepare('SELECT rowid FROM t WHERE t MATCH ?');
  afterAll(() => db.close());

  test('no input built from FTS operator characters is ever an FTS syntax error', () => {
    const alphabet = [
      '"',
      '*',
      '-',
      '+',
      '(',
      ')',
      ':',
      '^',
      '{',
      '}',
      ' ',
      ',',
      '.',
      'AND',
      'OR',
      'NOT',
      'NEAR',
      'a',
      'é',
      'body',
      'heading_path',
      'café',
      '\\',
      "'",
      '\u0000',
      '\t',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }), (parts) => {
        const text = parts.join('');
        if (parseQuery(text).length === 0) return;
        for (const mode of ['all', 'any'] as const) match.all(buildFtsQuery(text, mode));
      }),
      { numRuns: 2000 },
    );
  });

  test('arbitrary Unicode text never produces an FTS syntax error', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
        if (parseQuery(text).length === 0) return;
        match.all(buildFtsQuery(text));
      }),
      { numRuns: 1000 },
    );
  });

  test('escaped operators find the literal words', () => {
    expect(match.all(buildFtsQuery('AND NEAR'))).toHaveLength(1);
    expect(match.all(buildFtsQuery('cafe'))).toHaveLength(1);
  });
});
