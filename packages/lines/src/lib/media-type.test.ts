import { describe, expect, it } from 'vitest';
import { sniffMediaType } from './media-type.js';

const b = (...parts: Array<number[] | string>) =>
  Buffer.concat(
    parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))),
  );

describe('sniffMediaType', () => {
  it('recognises common signatures', () => {
    const cases: Array<[Buffer, string]> = [
      [b([0x89], 'PNG\r\n', [0x1a, 0x0a], 'rest'), 'image/png'],
      [b([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
      [b('GIF89a...'), 'image/gif'],
      [b('RIFF', [1, 2, 3, 4], 'WEBPVP8 '), 'image/webp'],
      [b('RIFF', [1, 2, 3, 4], 'WAVEfmt '), 'audio/wav'],
      [b('%PDF-1.7\n'), 'application/pdf'],
      [b('PK', [3, 4], 'zipdata'), 'application/zip'],
      [b([0x1f, 0x8b, 0x08]), 'application/gzip'],
      [b([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), 'application/wasm'],
      [b([0x7f], 'ELF', [2, 1, 1]), 'application/x-elf'],
      [b('SQLite format 3', [0], 'more'), 'application/vnd.sqlite3'],
      [b([0, 0, 0, 0x20], 'ftypisom'), 'video/mp4'],
      [Buffer.concat([Buffer.alloc(257), Buffer.from('ustar\0')]), 'application/x-tar'],
    ];
    for (const [head, type] of cases) expect(sniffMediaType(head)).toBe(type);
  });

  it('returns undefined for text, short input and near misses', () => {
    expect(sniffMediaType(Buffer.from('hello'))).toBeUndefined();
    expect(sniffMediaType(Buffer.from([0x89, 0x50]))).toBeUndefined();
    expect(sniffMediaType(b('RIFF', [1, 2, 3, 4], 'AVI '))).toBeUndefined();
    expect(sniffMediaType(Buffer.alloc(0))).toBeUndefined();
  });
});
