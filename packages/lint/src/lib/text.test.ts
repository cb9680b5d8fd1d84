import { describe, expect, it } from 'vitest';
import { clauseAt, joinAnd } from './text.js';

describe('clauseAt', () => {
  const s = 'The list is paged with next_offset; an unknown id fails with NOT_FOUND.';
  it('returns the clause around the position, cut at semicolons', () => {
    expect(clauseAt(s, s.indexOf('paged'))).toBe('The list is paged with next_offset');
    expect(clauseAt(s, s.indexOf('fails'))).toBe('an unknown id fails with NOT_FOUND.');
  });
  it('cuts at a colon or a spaced dash between words, not inside a word or a code span', () => {
    const t = 'Writes are atomic: a crash leaves the old page — never half of one.';
    expect(clauseAt(t, t.indexOf('crash'))).toBe('a crash leaves the old page');
    expect(clauseAt(t, t.indexOf('never'))).toBe('never half of one.');
    const u = 'Reads a well-known file at offset:0 without a space.';
    expect(clauseAt(u, u.indexOf('offset'))).toBe(u);
  });
  it('gives the whole sentence when there is nothing to cut or no position', () => {
    expect(clauseAt('Fails with NOT_FOUND.', 6)).toBe('Fails with NOT_FOUND.');
    expect(clauseAt(s, -1)).toBe(s);
    expect(clauseAt(s, s.length)).toBe(s);
  });
});

describe('joinAnd', () => {
  it('joins labels the way a sentence lists them', () => {
    expect(joinAnd([])).toBe('');
    expect(joinAnd(['errors'])).toBe('errors');
    expect(joinAnd(['pagination', 'errors'])).toBe('pagination and errors');
    expect(joinAnd(['a', 'b', 'c'])).toBe('a, b and c');
  });
});
