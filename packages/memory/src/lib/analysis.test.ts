import { describe, expect, test } from 'vitest';
import { analyseChunk, analyseField, chunkFields, noteLanguage } from './analysis.js';

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
