import { describe, expect, test } from 'vitest';
import { parseQuery } from './query.js';
import { highlightOf, makeSnippet } from './snippet.js';

const snip = (text: string, query: string, forms: string[] = []) =>
  makeSnippet(text, highlightOf(parseQuery(query), forms));

describe('makeSnippet', () => {
  test('a short text is returned whole with its matches marked', () => {
    expect(snip('Aphids on the roses again; tried neem oil.', 'neem')).toBe(
      'Aphids on the roses again; tried «neem» oil.',
    );
  });

  test('case and accents are ignored, the text keeps its own', () => {
    expect(snip('El Café de olla.', 'cafe')).toBe('El «Café» de olla.');
  });

  test('phrases are marked whole, prefixes and extra forms word by word', () => {
    expect(snip('We roll back on Tuesdays.', '"roll back"')).toBe('We «roll back» on Tuesdays.');
    expect(snip('Deployments go out.', 'deploy*')).toBe('«Deployments» go out.');
    expect(snip('Las pruebas largas.', 'prueba', ['pruebas'])).toBe('Las «pruebas» largas.');
    // A phrase whose words are not adjacent is not marked.
    expect(snip('roll the back', '"roll back"')).toBe('roll the back');
  });

  test('a long text is cut to a window around the matches, with ellipses', () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
    words[60] = 'target';
    const out = snip(words.join(' '), 'target');
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
    expect(out).toContain('«target»');
    expect(out.replace(/…/g, '').trim().split(/\s+/)).toHaveLength(24);
    // The match sits near the middle of the window.
    const tokens = out.replace(/…/g, '').trim().split(/\s+/);
    const at = tokens.indexOf('«target»');
    expect(at).toBeGreaterThan(6);
    expect(at).toBeLessThan(18);
  });

  test('the window with the most distinct terms wins', () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
    words[10] = 'alpha';
    words[150] = 'alpha';
    words[155] = 'beta';
    const out = snip(words.join(' '), 'alpha beta');
    expect(out).toContain('w149 «alpha»');
    expect(out).toContain('«beta»');
  });

  test('without a match, the first tokens; without tokens, nothing', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(snip(words, 'absent')).toBe(`${words.split(' ').slice(0, 24).join(' ')}…`);
    expect(snip('--- ...', 'absent')).toBe('');
  });
});
