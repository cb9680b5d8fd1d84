import { bySize } from '@lectern/core/testing';
import { computeLineStarts } from '@lectern/markdown';
import { createRng, tortureDocument } from '@lectern/markdown/testing';
import { describe, expect, it } from 'vitest';
import { fileLines } from './stored.js';

/** The file lines of `text` written as UTF-8 (with `bom` byte-order marks in front). */
function linesOf(text: string, boms = 0) {
  const bytes = new Uint8Array(Buffer.from('\uFEFF'.repeat(boms) + text, 'utf8'));
  const decoded = new TextDecoder('utf-8', { ignoreBOM: true }).decode(
    boms > 0 ? bytes.subarray(3) : bytes,
  );
  return fileLines(bytes, decoded, boms > 0);
}

/** Byte offsets of the lines of `text` (after `skip` bytes), from its character offsets. */
function expectedStarts(text: string, skip: number): number[] {
  return computeLineStarts(text).map((c) => skip + Buffer.byteLength(text.slice(0, c), 'utf8'));
}

describe('fileLines', () => {
  const samples = [
    'ü',
    'ü\n',
    'ü\n\n',
    '\nü',
    'a\r\nü\r\nb',
    'a\rü\rb\r',
    'ü\r\n',
    '\r\nü\r\n',
    'mixed\r\nü\rlone\nlf\r\r\n\n',
    'ü\r',
    '\rü\n\r',
    '# Ünïcode 安装\n\ntext 😀\n## two\r\n',
  ];

  it('finds the byte start of every line as the text parser counts lines', () => {
    const rng = createRng(3);
    const docs = [...samples];
    for (let i = 0; i < bySize(40, 400); i++) docs.push(`ü${tortureDocument(rng)}`);
    for (const text of docs) {
      const lines = linesOf(text);
      expect(lines.textStart).toBe(0);
      expect(lines.byteStarts).not.toBeNull();
      expect([...lines.byteStarts!]).toEqual(expectedStarts(text, 0));
    }
  });

  it('counts from after one or two byte-order marks, and keeps no table for ASCII', () => {
    for (const text of samples) {
      expect([...linesOf(text, 1).byteStarts!]).toEqual(expectedStarts(text, 3));
      // the parser drops a second mark too, so lines start after both
      expect([...linesOf(text, 2).byteStarts!]).toEqual(expectedStarts(text, 6));
    }
    expect(linesOf('plain\r\nascii\n').byteStarts).toBeNull();
    expect(linesOf('', 1)).toEqual({ textStart: 3, end: 3, byteStarts: null });
  });
});
