import { isUtf8 } from 'node:buffer';
import { ToolError } from './errors.js';

/** Line-ending style of a text: `none` when it has no line break at all. */
export type LineEndings = 'lf' | 'crlf' | 'mixed' | 'none';

/** Result of {@link decodeUtf8}. */
export interface DecodedText {
  /** The text, without a leading byte-order mark. */
  text: string;
  /** True when the bytes started with the UTF-8 BOM (EF BB BF). */
  bom: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** True when `bytes` starts with the UTF-8 byte-order mark. */
export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Offset of the first NUL byte, or -1. A NUL byte means the content is binary. */
export function findNul(bytes: Uint8Array): number {
  return bytes.indexOf(0);
}

/** True when the bytes contain a NUL byte (Lectern's definition of binary content). */
export function isBinary(bytes: Uint8Array): boolean {
  return findNul(bytes) !== -1;
}

/**
 * Byte offset of the first malformed UTF-8 sequence, or -1 when the bytes are valid UTF-8
 * (overlongs, surrogates, code points above U+10FFFF and truncated sequences are malformed).
 */
export function findInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
      cp = b & 0x07;
    } else {
      return i;
    }
    if (i + need >= n) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/**
 * Strict UTF-8 decoding. A BOM is stripped and reported. Throws `INVALID_UTF8` with the byte
 * offset of the first malformed sequence (never substitutes U+FFFD) and, unless `allowNul`,
 * `BINARY_CONTENT` with the offset of the first NUL byte. `baseOffset` is added to reported
 * offsets when `bytes` is a slice of a larger file; a slice that does not start at offset 0 keeps
 * a leading U+FEFF as content.
 */
export function decodeUtf8(
  bytes: Uint8Array,
  options: { allowNul?: boolean; subject?: string; baseOffset?: number } = {},
): DecodedText {
  const subject = options.subject ?? 'the content';
  const base = options.baseOffset ?? 0;
  if (!options.allowNul) {
    const nul = findNul(bytes);
    if (nul !== -1) {
      throw new ToolError(
        'BINARY_CONTENT',
        `${subject} contains a NUL byte at byte offset ${base + nul}, so it is treated as binary, not text.`,
        { details: { offset: base + nul } },
      );
    }
  }
  // A BOM is only a BOM at the start of the file; inside a slice it is U+FEFF content.
  const bom = base === 0 && hasBom(bytes);
  const body = bom ? bytes.subarray(3) : bytes;
  try {
    return { text: decoder.decode(body), bom };
  } catch {
    const at = findInvalidUtf8(body) + (bom ? 3 : 0);
    throw new ToolError(
      'INVALID_UTF8',
      `${subject} is not valid UTF-8: malformed byte sequence at byte offset ${base + at}.`,
      { details: { offset: base + at } },
    );
  }
}

/** Line-ending style: `\r\n` is crlf, a lone `\n` is lf; a lone `\r` is not a line break. */
export function detectLineEndings(text: string): LineEndings {
  let lf = 0;
  let crlf = 0;
  let i = text.indexOf('\n');
  while (i !== -1) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
    if (lf > 0 && crlf > 0) return 'mixed';
    i = text.indexOf('\n', i + 1);
  }
  if (crlf > 0) return 'crlf';
  if (lf > 0) return 'lf';
  return 'none';
}

/**
 * Splits text into lines on `\n` and `\r\n` (endings not included). A final line break does
 * not start an extra empty line, so `"a\nb\n"` is two lines and `""` is zero lines.
 */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  // Every element but the last was followed by '\n'; a last element that is still here was not,
  // so its trailing '\r' is content (a lone CR is not a line break).
  const terminated = text.endsWith('\n') ? lines.length : lines.length - 1;
  for (let i = 0; i < terminated; i++) {
    const l = lines[i]!;
    if (l.endsWith('\r')) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/**
 * A name's bytes as text, each byte that is not part of valid UTF-8 escaped as `\xHH` (valid
 * characters kept): how a file name that is not UTF-8, and so cannot be named in a request, is
 * shown in an answer.
 */
export function escapeInvalidUtf8(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = '';
  let i = 0;
  while (i < buf.length) {
    const b = buf[i]!;
    const need =
      b < 0x80
        ? 1
        : b >= 0xc2 && b <= 0xdf
          ? 2
          : b >= 0xe0 && b <= 0xef
            ? 3
            : b >= 0xf0 && b <= 0xf4
              ? 4
              : 0;
    const chunk = need > 0 ? buf.subarray(i, i + need) : undefined;
    if (chunk && chunk.length === need && isUtf8(chunk)) {
      out += chunk.toString('utf8');
      i += need;
    } else {
      out += `\\x${b.toString(16).padStart(2, '0')}`;
      i++;
    }
  }
  return out;
}

/**
 * Characters that make a text display as something other than what it is: C0 and C1 controls
 * (tab and newline included) and DEL; the line and paragraph separators; the bidirectional
 * marks, embeddings, overrides and isolates (U+202E and friends); and characters that show as
 * nothing (soft hyphen, zero-width space, non-joiner and joiner, word joiner and invisible
 * operators, the byte-order mark, the combining grapheme joiner, Hangul fillers, Mongolian
 * free variation selectors and vowel separator, deprecated format controls, interlinear
 * annotation controls and the tag characters).
 */
const DISPLAY_UNSAFE_CHARS =
  /\u034f|\u17b4|\u17b5|\u180b|\u180c|\u180d|\u180f|[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}]/gu;

const DISPLAY_UNSAFE_ONE = new RegExp(DISPLAY_UNSAFE_CHARS.source, 'u');

/** True when {@link escapeForDisplay} would change `text`. */
export function hasDisplayUnsafe(text: string): boolean {
  return DISPLAY_UNSAFE_ONE.test(text) && escapeForDisplay(text) !== text;
}

/**
 * `text` safe to show a person: each character of {@link DISPLAY_UNSAFE_CHARS} written as
 * `\u{XXXX}` (upper-case hex, at least four digits), so a name with a right-to-left override
 * or a zero-width space shows what it really holds. The same text when there is none.
 */
export function escapeForDisplay(text: string): string;
/**
 * With `maxChars`: an escaped text longer than that keeps its beginning and its end (where a
 * file name's extension is) around a `…`, never cutting inside an escape or a surrogate pair.
 */
export function escapeForDisplay(text: string, maxChars: number): string;
export function escapeForDisplay(text: string, maxChars?: number): string {
  const shown = escapeAll(text);
  if (maxChars === undefined || shown.length <= maxChars) return shown;
  const half = Math.max(1, Math.floor((maxChars - 1) / 2));
  return `${cutEnd(shown, half)}…${cutStart(shown, half)}`;
}

/** The first `n` characters of an escaped text, shorter rather than inside `\u{…}` or a pair. */
function cutEnd(text: string, n: number): string {
  let end = n;
  const open = text.lastIndexOf('\\u{', end);
  if (open !== -1 && open < end && text.indexOf('}', open) >= end) end = open;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** The last `n` characters of an escaped text, shorter rather than inside `\u{…}` or a pair. */
function cutStart(text: string, n: number): string {
  let start = text.length - n;
  const open = text.lastIndexOf('\\u{', start);
  const close = open === -1 ? -1 : text.indexOf('}', open);
  if (open !== -1 && open < start && close >= start) start = close + 1;
  const c = text.charCodeAt(start);
  if (c >= 0xdc00 && c <= 0xdfff) start += 1;
  return text.slice(start);
}

function escapeAll(text: string): string {
  if (!DISPLAY_UNSAFE_ONE.test(text)) return text;
  return text.replace(DISPLAY_UNSAFE_CHARS, (c, at: number) =>
    joins(c, text, at)
      ? c
      : `\\u{${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`,
  );
}

/**
 * True for a zero-width joiner or non-joiner doing its job: inside an emoji sequence (👩‍👧), or
 * between two letters outside ASCII (Persian, Indic scripts), where it changes how they join.
 */
function joins(c: string, text: string, at: number): boolean {
  if (c !== '\u200d' && c !== '\u200c') return false;
  const before = text.slice(Math.max(0, at - 2), at);
  const after = text.slice(at + 1, at + 3);
  if (c === '\u200d' && EMOJI_BEFORE.test(before) && EMOJI_AFTER.test(after)) return true;
  return LETTER_BEFORE.test(before) && LETTER_AFTER.test(after);
}
const EMOJI_BEFORE = /(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\ufe0f)$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;
const LETTER_BEFORE = /[^\p{ASCII}\P{L}]\p{M}*$|[^\p{ASCII}\P{L}]$/u;
const LETTER_AFTER = /^[^\p{ASCII}\P{L}]/u;
