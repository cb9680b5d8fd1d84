import { describe, expect, it } from 'vitest';
import { queryTerms } from './rank.js';
import { SNIPPET_CHARS, snippetOf } from './snippet.js';

describe('snippetOf', () => {
  const body = `${'Filler words before the point. '.repeat(10)}Footnotes are numbered in the order they appear, whatever their labels. ${'More filler after it. '.repeat(10)}`;

  it('shows whole words around the first match of a word form, marked where cut', () => {
    const s = snippetOf(body, queryTerms('footnote numbering', ['en']), 'en', 'Notes');
    expect(s).toContain('Footnotes are numbered');
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s.length).toBeLessThanOrEqual(SNIPPET_CHARS + 2);
    // no word cut in two at either end
    const inner = s.slice(1, -1);
    expect(body).toContain(inner);
    expect(body[body.indexOf(inner) - 1]).toBe(' ');
  });

  it('starts at the beginning when no word matches, and gives the heading for an empty body', () => {
    expect(snippetOf(body, queryTerms('zzz', ['en']), 'en', 'Notes').startsWith('Filler')).toBe(
      true,
    );
    expect(snippetOf('  \n', queryTerms('x', ['en']), 'en', 'Notes')).toBe('Notes');
    expect(snippetOf('Short text.', queryTerms('text', ['en']), 'en', 'Notes')).toBe('Short text.');
  });
});
