import { describe, expect, it } from 'vitest';
import { clipSnippet, parseQuery, SNIPPET_CHARS, tokenize } from './search.js';

describe('tokenize', () => {
  it('folds case and accents, splits on non-letters and folds simple plurals', () => {
    expect(tokenize('Café QUEENS, bees; Varroa-mites colonies glass 2025')).toEqual([
      'cafe',
      'queen',
      'bee',
      'varroa',
      'mite',
      'colony',
      'glass',
      '2025',
    ]);
  });
});

describe('parseQuery', () => {
  it('keeps distinct words and marks #tags', () => {
    expect(parseQuery('Mites #pest mite')).toEqual([
      { term: 'mite', tagOnly: false },
      { term: 'pest', tagOnly: true },
    ]);
    expect(() => parseQuery('?? !!')).toThrow(expect.objectContaining({ code: 'EMPTY_QUERY' }));
  });
});

describe('clipSnippet', () => {
  it('centres on the first query word and never splits a surrogate pair', () => {
    const line = `${'🐝'.repeat(300)} target ${'🍯'.repeat(300)}`;
    const out = clipSnippet(line, new Set(['target']));
    expect(Array.from(out)).toHaveLength(SNIPPET_CHARS);
    expect(out).toContain('target');
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(out)).toBe(
      false,
    );
    expect(clipSnippet('short line', new Set())).toBe('short line');
  });
});
