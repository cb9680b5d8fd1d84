import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolError } from './errors.js';
import {
  decodeUtf8,
  detectLineEndings,
  escapeForDisplay,
  escapeInvalidUtf8,
  findInvalidUtf8,
  findNul,
  hasBom,
  hasDisplayUnsafe,
  isBinary,
  splitLines,
} from './text.js';

const bytes = (...b: number[]) => Uint8Array.from(b);
const utf8 = (s: string) => new TextEncoder().encode(s);

function decodeError(input: Uint8Array, options = {}): ToolError {
  try {
    decodeUtf8(input, options);
  } catch (e) {
    return e as ToolError;
  }
  throw new Error('expected decodeUtf8 to throw');
}

describe('decodeUtf8', () => {
  it('decodes valid UTF-8 including astral characters', () => {
    expect(decodeUtf8(utf8('héllo 😀 世界'))).toEqual({ text: 'héllo 😀 世界', bom: false });
  });

  it('strips and reports a BOM', () => {
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x61))).toEqual({ text: 'a', bom: true });
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf))).toEqual({ text: '', bom: true });
  });

  it('keeps U+FEFF at the start of a slice that is not the file start', () => {
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x61), { baseOffset: 10 })).toEqual({
      text: '\ufeffa',
      bom: false,
    });
  });

  it('keeps a second BOM as content', () => {
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf)).text).toBe('\ufeff');
  });

  it('rejects malformed bytes with the byte offset, never U+FFFD', () => {
    const e = decodeError(bytes(0x61, 0x62, 0xff, 0x63));
    expect(e.code).toBe('INVALID_UTF8');
    expect(e.details).toEqual({ offset: 2 });
    expect(e.message).toContain('offset 2');
  });

  it('adds baseOffset and the BOM to reported offsets', () => {
    expect(decodeError(bytes(0xef, 0xbb, 0xbf, 0x61, 0xc3)).details).toEqual({ offset: 4 });
    expect(decodeError(bytes(0x61, 0x80), { baseOffset: 1000 }).details).toEqual({ offset: 1001 });
  });

  it('treats NUL as binary unless allowed', () => {
    const e = decodeError(bytes(0x61, 0x00, 0x62));
    expect(e.code).toBe('BINARY_CONTENT');
    expect(e.details).toEqual({ offset: 1 });
    expect(decodeUtf8(bytes(0x61, 0x00), { allowNul: true }).text).toBe('a\u0000');
  });
});

describe('findInvalidUtf8', () => {
  it('finds overlongs, surrogates, out-of-range and truncated sequences', () => {
    expect(findInvalidUtf8(bytes(0xc0, 0x80))).toBe(0); // overlong NUL
    expect(findInvalidUtf8(bytes(0xe0, 0x80, 0x80))).toBe(0); // overlong
    expect(findInvalidUtf8(bytes(0x61, 0xed, 0xa0, 0x80))).toBe(1); // surrogate D800
    expect(findInvalidUtf8(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // > U+10FFFF
    expect(findInvalidUtf8(bytes(0x61, 0x62, 0xe2, 0x82))).toBe(2); // truncated at end
    expect(findInvalidUtf8(bytes(0xe2, 0x82, 0x61))).toBe(0); // bad continuation
    expect(findInvalidUtf8(utf8('ok 😀'))).toBe(-1);
  });

  it('agrees with the platform decoder on arbitrary bytes', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (input) => {
        let valid = true;
        try {
          strict.decode(input);
        } catch {
          valid = false;
        }
        expect(findInvalidUtf8(input) === -1).toBe(valid);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('binary and BOM helpers', () => {
  it('detect NUL and BOM', () => {
    expect(isBinary(bytes(1, 2, 0))).toBe(true);
    expect(findNul(bytes(1, 2, 3))).toBe(-1);
    expect(hasBom(bytes(0xef, 0xbb))).toBe(false);
  });
});

describe('detectLineEndings', () => {
  it('classifies lf, crlf, mixed and none', () => {
    expect(detectLineEndings('a\nb\n')).toBe('lf');
    expect(detectLineEndings('a\r\nb\r\n')).toBe('crlf');
    expect(detectLineEndings('a\r\nb\n')).toBe('mixed');
    expect(detectLineEndings('a\rb')).toBe('none');
    expect(detectLineEndings('')).toBe('none');
  });
});

describe('splitLines', () => {
  it('splits on LF and CRLF without an extra final line', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a')).toEqual(['a']);
    expect(splitLines('a\n')).toEqual(['a']);
    expect(splitLines('a\r\nb\nc')).toEqual(['a', 'b', 'c']);
    expect(splitLines('\n\n')).toEqual(['', '']);
    expect(splitLines('a\rb\n')).toEqual(['a\rb']);
    // a lone CR at the very end is content, as detectLineEndings says
    expect(splitLines('a\r')).toEqual(['a\r']);
    expect(splitLines('a\r\nb\r')).toEqual(['a', 'b\r']);
  });
});

describe('escapeInvalidUtf8', () => {
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((p) => Buffer.from(p as string)));
  it('escapes each byte outside valid UTF-8 as \\xHH and keeps valid characters', () => {
    expect(escapeInvalidUtf8(bytes('file', [0xfe], '.txt'))).toBe('file\\xfe.txt');
    expect(escapeInvalidUtf8(bytes('caf', [0xc3, 0xa9, 0xe9], '.md'))).toBe('café\\xe9.md');
    // a truncated sequence, an overlong and a surrogate are escaped byte by byte
    expect(escapeInvalidUtf8(bytes([0xe2, 0x82], 'x'))).toBe('\\xe2\\x82x');
    expect(escapeInvalidUtf8(bytes([0xc0, 0xaf]))).toBe('\\xc0\\xaf');
    expect(escapeInvalidUtf8(bytes([0xed, 0xa0, 0x80]))).toBe('\\xed\\xa0\\x80');
    expect(escapeInvalidUtf8(bytes('plain 😀'))).toBe('plain 😀');
  });
});

describe('escapeForDisplay', () => {
  it('writes bidirectional controls, invisible characters and controls as \\u{XXXX}', () => {
    expect(escapeForDisplay('invoice\u202Efdp.exe')).toBe('invoice\\u{202E}fdp.exe');
    expect(escapeForDisplay('a\u200Bb\uFEFFc\u{E0041}d')).toBe('a\\u{200B}b\\u{FEFF}c\\u{E0041}d');
    expect(escapeForDisplay('tab\there\nline')).toBe('tab\\u{0009}here\\u{000A}line');
    expect(hasDisplayUnsafe('x\u2066y')).toBe(true);
    expect(hasDisplayUnsafe('x\u2066y')).toBe(true); // no state kept between calls
    // a joiner between ASCII letters only hides itself
    expect(escapeForDisplay('pay\u200Dpal')).toBe('pay\\u{200D}pal');
  });

  it('with a length bound, keeps the beginning and the end, never cutting inside an escape', () => {
    const long = `${'\u0001'.repeat(300)}invoice\u202Efdp.exe`;
    const shown = escapeForDisplay(long, 101);
    expect(shown.length).toBeLessThanOrEqual(101);
    expect(shown.startsWith('\\u{0001}')).toBe(true);
    expect(shown.endsWith('invoice\\u{202E}fdp.exe')).toBe(true);
    expect(shown).toContain('…');
    expect(shown.replace(/\\u\{[0-9A-F]{4,5}\}/g, '')).not.toMatch(/[\\{}]/);
    expect(escapeForDisplay('a\u202Eb', 101)).toBe('a\\u{202E}b');
    expect(escapeForDisplay(`${'😀'.repeat(100)}`, 51)).not.toMatch(
      /[\ud800-\udbff](?![\udc00-\udfff])/,
    );
  });

  it('leaves ordinary text, accents, scripts and emoji alone', () => {
    for (const text of ['café/Ünïcödé.md', 'שלום.txt', 'عربي', '日本語', 'a b']) {
      expect(escapeForDisplay(text)).toBe(text);
      expect(hasDisplayUnsafe(text)).toBe(false);
    }
    // joiners doing their job: an emoji sequence, a Persian word
    for (const text of ['👩\u200D👩\u200D👧.png', 'می\u200Cخواهم.md']) {
      expect(escapeForDisplay(text)).toBe(text);
    }
  });
});
