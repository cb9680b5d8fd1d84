import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolError } from './errors.js';
import {
  decodeUtf8,
  detectLineEndings,
  findInvalidUtf8,
  findNul,
  hasBom,
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
