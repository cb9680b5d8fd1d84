import { detectLanguage, type Language, STEMMED_LANGUAGES, stopWords, words } from '@lectern/text';
import { describe, expect, test } from 'vitest';
import {
  analyseChunk,
  analyseField,
  chunkFields,
  LANGUAGE_SAMPLE_CHARS,
  noteLanguage,
} from './analysis.js';

const lang = (text: string, fallback = 'simple' as const, markdown = true) =>
  noteLanguage(text.split('\n'), text, markdown, fallback);

describe('noteLanguage', () => {
  test('front matter first, then detection, then the fallback', () => {
    expect(lang('---\nlang: es\n---\n\nThe notes of the meeting were written in English.')).toBe(
      'es',
    );
    expect(
      lang('# Meeting\n\nThe notes of the meeting were written down by the team after the call.'),
    ).toBe('en');
    expect(
      lang('# Enlaces\n\nUn enlace interno apunta a otra nota de la bóveda y se abre al pulsarlo.'),
    ).toBe('es');
    // Too short to tell: the fallback (the memoria preset passes Spanish).
    expect(lang('# Pruebas', 'es' as never)).toBe('es');
  });

  test('text without the function words of any language stays undetermined', () => {
    const invented =
      'Marzu lomar tornoltorpri drapri camiru nolkamar tamyorber prikahos rupriloür. Félanca nexazu bermiruzu yorrusaulm fenürloür sapriçafen lanüryor lovoses beryorlan privovexwy drapri neru.';
    expect(lang(invented)).toBe('simple');
    expect(lang(invented, 'es' as never)).toBe('es');
    expect(lang('const x = require("fs"); module.exports = function readAll() { return x; }')).toBe(
      'simple',
    );
  });
});

/** noteLanguage as it was before it skipped identification: detect, then check the stop words. */
function identifyThenCheck(text: string, fallback: Language): Language {
  const sample = text.slice(0, LANGUAGE_SAMPLE_CHARS);
  const detected = detectLanguage(sample, { fallback });
  if (detected === fallback) return detected;
  const ws = words(sample);
  const stops = stopWords(detected);
  let hits = 0;
  for (const w of ws) if (stops.has(w)) hits++;
  return hits >= Math.max(1, Math.ceil(ws.length * 0.05)) ? detected : fallback;
}

describe('noteLanguage skips identification only where it could not change the answer', () => {
  test('same language as identifying then checking, on texts around the stop-word threshold', () => {
    // A seeded generator: texts of invented words with 0-15% stop words of one to three
    // languages, and some real sentences, so both sides of the threshold are met.
    let seed = 27;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const syllables = ['ka', 'lo', 'mar', 'vex', 'zu', 'ür', 'fé', 'ño', 'tri', 'pen', 'dos'];
    const invented = () =>
      Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(syllables)).join('');
    const lists = STEMMED_LANGUAGES.map((l) => [...stopWords(l)]);
    const texts: string[] = [
      'The notes of the meeting were written down by the team after the call.',
      'Un enlace interno apunta a otra nota de la bóveda y se abre al pulsarlo.',
      'Die Notizen der Besprechung wurden nach dem Anruf vom Team aufgeschrieben.',
      'const x = require("fs"); module.exports = function readAll() { return x; }',
    ];
    for (let i = 0; i < 240; i++) {
      const share = rand() * 0.15;
      const langs = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(lists));
      const n = 10 + Math.floor(rand() * 120);
      const ws = Array.from({ length: n }, () => (rand() < share ? pick(pick(langs)) : invented()));
      texts.push(`# ${invented()}\n\n${ws.join(' ')}.`);
    }
    let detected = 0;
    for (const text of texts) {
      for (const fallback of ['simple', 'es'] as const) {
        const got = lang(text, fallback as never);
        expect(got, text).toBe(identifyThenCheck(text, fallback));
        if (got !== fallback) detected++;
      }
    }
    // Both outcomes are exercised: some texts are identified, some fall back.
    expect(detected).toBeGreaterThan(20);
    expect(detected).toBeLessThan(texts.length * 2 - 20);
  });
});

describe('fields', () => {
  test('title is the first heading of the path (or the file name), headings the rest', () => {
    expect(chunkFields('a/b.md', 'Project > Risks > Vendors', 'text')).toEqual({
      title: 'Project',
      headings: 'Risks > Vendors',
      body: 'text',
    });
    expect(chunkFields('a/rate-limits.txt', '', 'text').title).toBe('rate-limits');
  });

  test('every word keeps its place; the length leaves stop words out; data runs are skipped', () => {
    expect(analyseField('The runners were running', 'en')).toEqual({
      terms: ['the', 'runner', 'were', 'run'],
      length: 2,
    });
    const blob = 'x'.repeat(500);
    expect(analyseField(`data ${blob} end`, 'simple')).toEqual({
      terms: ['data', 'end'],
      length: 2,
    });
    const c = analyseChunk('n.md', 'Notas > Pruebas', 'Las pruebas', 'es');
    expect(c.title.terms).toEqual(['not']);
    expect(c.headings.terms).toEqual(['prueb']);
    expect(c.body).toEqual({ terms: ['las', 'prueb'], length: 1 });
  });
});
