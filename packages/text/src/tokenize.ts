import { foldWord } from './fold.js';

/** One word of a text. */
export interface Token {
  /** The word, folded ({@link foldWord}). */
  word: string;
  /** UTF-16 offset of its first character in the text. */
  start: number;
  /** UTF-16 offset just past its last character. */
  end: number;
  /** Its ordinal among the text's tokens, from 0. */
  position: number;
}

/**
 * Characters that make words: letters, numbers, combining marks (so a decomposed accent stays
 * with its letter) and private use, as SQLite FTS5's `unicode61` tokenizer keeps them.
 */
export const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** Scripts written without spaces between words: each character is a word of its own. */
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const IDEOGRAPHIC_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]\p{M}*|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const ASCII_WORD = /^[\x00-\x7f]*$/;

function eachWord(text: string, visit: (word: string, start: number, end: number) => void): void {
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    const raw = m[0];
    const start = m.index;
    if (ASCII_WORD.test(raw) || !IDEOGRAPHIC.test(raw)) {
      visit(raw, start, start + raw.length);
      continue;
    }
    IDEOGRAPHIC_RUN.lastIndex = 0;
    for (let p = IDEOGRAPHIC_RUN.exec(raw); p !== null; p = IDEOGRAPHIC_RUN.exec(raw)) {
      visit(p[0], start + p.index, start + p.index + p[0].length);
    }
  }
}

/**
 * The words of a text, in order, with their offsets: runs of letters, digits and marks; each
 * Han, Hiragana, Katakana or Hangul character is a word by itself. Every other character
 * separates words, so `e-mail` is two words and `v1.2` three.
 */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  eachWord(text, (raw, start, end) => {
    out.push({ word: foldWord(raw), start, end, position: out.length });
  });
  return out;
}

/** The folded words of a text, in order (what {@link tokenize} finds, without offsets). */
export function words(text: string): string[] {
  const out: string[] = [];
  eachWord(text, (raw) => {
    out.push(foldWord(raw));
  });
  return out;
}
