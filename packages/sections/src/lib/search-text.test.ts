import { describe, expect, it } from 'vitest';
import { oneLine, searchText } from './search-text.js';

const hit = (n: number) => ({
  anchor: `guide/cache#part-${n}`,
  heading: `Part ${n}`,
  heading_path: ['Cache', `Part ${n}`],
  start_line: n * 10,
  end_line: n * 10 + 9,
  snippet: `The retry timeout\nof part ${n}.`,
});

describe('searchText', () => {
  it('says each hit on one line: anchor, line range, heading path and snippet', () => {
    const text = searchText({ results: [hit(1), hit(2)], total: 2, offset: 0, next_offset: null });
    expect(text.split('\n')).toEqual([
      'guide/cache#part-1 L10-19 Cache > Part 1: The retry timeout of part 1.',
      'guide/cache#part-2 L20-29 Cache > Part 2: The retry timeout of part 2.',
      'Sections 1-2 of 2 matching, best first. No more pages.',
    ]);
  });

  it('gives the offset of the next page, and the document title for its own text', () => {
    const top = { ...hit(0), anchor: 'guide/cache', heading: 'Cache guide', heading_path: [] };
    const text = searchText({ results: [top], total: 7, offset: 3, next_offset: 4 });
    expect(text.split('\n')).toEqual([
      'guide/cache L0-9 Cache guide: The retry timeout of part 0.',
      'Sections 4-4 of 7 matching, best first. More: offset=4.',
    ]);
  });

  it('says so when a page holds no hits', () => {
    expect(searchText({ results: [], total: 0, offset: 0, next_offset: null })).toBe(
      'No sections at offset 0 of 0 matching. No more pages.',
    );
    expect(searchText({ results: [], total: 3, offset: 5, next_offset: null })).toBe(
      'No sections at offset 5 of 3 matching. No more pages.',
    );
  });

  it('makes whitespace runs single spaces', () => {
    expect(oneLine('  a\n\tb  c \r\n')).toBe('a b c');
  });
});
