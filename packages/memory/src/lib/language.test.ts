import { foldWord, stem } from '@lectern/text';
import { describe, expect, test } from 'vitest';
import { declaredLanguage, languageOf } from './language.js';

const stemWord = (w: string, l: Parameters<typeof stem>[1]) => stem(foldWord(w), l);

describe('languageOf', () => {
  test('tags and names map to a stemmed language; anything else is simple', () => {
    for (const tag of ['en', 'EN', 'en-GB', 'en_US', 'English', 'eng'])
      expect(languageOf(tag)).toBe('en');
    for (const tag of ['es', 'es-MX', 'Spanish', 'español', 'castellano']) {
      expect(languageOf(tag), tag).toBe('es');
    }
    for (const tag of ['', 'klingon']) expect(languageOf(tag), tag).toBe('simple');
    expect(languageOf('fr')).toBe('fr');
    expect(languageOf('de-DE')).toBe('de');
  });
});

describe('declaredLanguage', () => {
  test('reads lang or language from front matter on the first line', () => {
    expect(declaredLanguage(['---', 'title: x', 'lang: es', '---', '# Hola'])).toBe('es');
    expect(declaredLanguage(['---', 'language: "en-US"', '---'])).toBe('en');
    expect(declaredLanguage(['---', "lang: 'fr' # comment", '---'])).toBe('fr');
  });

  test('ignores keys outside front matter, nested keys and other keys', () => {
    expect(declaredLanguage(['# Title', 'lang: es'])).toBeUndefined();
    expect(declaredLanguage(['---', 'title: x', '---', 'lang: es'])).toBeUndefined();
    expect(declaredLanguage(['---', '  lang: es', '---'])).toBeUndefined();
    expect(declaredLanguage(['---', 'slang: es', '---'])).toBeUndefined();
    expect(declaredLanguage([])).toBeUndefined();
  });
});

describe('stemWord', () => {
  test('Snowball English and Spanish, on folded words', () => {
    expect(stemWord('Running', 'en')).toBe('run');
    expect(stemWord('generously', 'en')).toBe('generous');
    expect(stemWord('pruebas', 'es')).toBe(stemWord('prueba', 'es'));
    expect(stemWord('Notas', 'es')).toBe(stemWord('nota', 'es'));
    expect(stemWord('canción', 'es')).toBe(stemWord('canciones', 'es'));
    expect(stemWord('Café', 'simple')).toBe('cafe');
  });
});
