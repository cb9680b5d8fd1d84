import fs from 'node:fs';
import { open } from 'node:fs/promises';
import { isToolError } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TempDir, tempDir } from '../test-helpers/fixtures.js';
import {
  BufferSource,
  CHECKPOINT_STEP,
  HandleSource,
  lineExtents,
  lineStart,
  scanText,
} from './line-index.js';

let t: TempDir;
beforeAll(() => {
  t = tempDir();
});
afterAll(() => t.cleanup());

const scan = (s: string | Buffer) => scanText(Buffer.isBuffer(s) ? s : Buffer.from(s), 'test');

describe('scanText', () => {
  it('counts lines exactly and classifies endings', () => {
    expect(scan('')).toMatchObject({ totalLines: 0, endings: 'none', bom: false });
    expect(scan('a')).toMatchObject({ totalLines: 1, endings: 'none' });
    expect(scan('a\n')).toMatchObject({ totalLines: 1, endings: 'lf' });
    expect(scan('a\nb')).toMatchObject({ totalLines: 2, endings: 'lf' });
    expect(scan('a\r\nb\r\n')).toMatchObject({ totalLines: 2, endings: 'crlf' });
    expect(scan('a\r\nb\n')).toMatchObject({ totalLines: 2, endings: 'mixed' });
    expect(scan('\r\n')).toMatchObject({ totalLines: 1, endings: 'crlf' });
    expect(scan('a\rb')).toMatchObject({ totalLines: 1, endings: 'none' });
    expect(scan('\uFEFFa\n')).toMatchObject({ totalLines: 1, bom: true, bodyStart: 3 });
    expect(scan('\uFEFF')).toMatchObject({ totalLines: 0, bom: true });
  });

  it('places a checkpoint every CHECKPOINT_STEP lines', () => {
    const lines = Array.from({ length: CHECKPOINT_STEP * 3 }, (_, i) => `L${i + 1}`);
    const text = `${lines.join('\n')}\n`;
    const facts = scan(text);
    expect(facts.totalLines).toBe(CHECKPOINT_STEP * 3);
    // No checkpoint for a line that does not exist after the final newline.
    expect(facts.checkpoints.length).toBe(3);
    expect(text.slice(facts.checkpoints[1]!, facts.checkpoints[1]! + 5)).toBe(
      `L${CHECKPOINT_STEP + 1}\n`,
    );
  });

  it('rejects NUL and malformed UTF-8 with byte offsets', () => {
    const nul = (() => {
      try {
        scan(Buffer.from([0x61, 0x0a, 0x00]));
      } catch (e) {
        return e;
      }
    })();
    expect(isToolError(nul) && nul.code).toBe('BINARY_CONTENT');
    expect(isToolError(nul) && nul.details?.offset).toBe(2);
    for (const [bytes, offset] of [
      [[0x61, 0xff], 1],
      [[0x61, 0x62, 0xe2, 0x82], 2], // truncated at the end
      [[0xed, 0xa0, 0x80], 0], // surrogate
      [[0xc0, 0xaf], 0], // overlong
    ] as Array<[number[], number]>) {
      try {
        scan(Buffer.from(bytes));
        expect.unreachable();
      } catch (e) {
        expect(isToolError(e) && e.code).toBe('INVALID_UTF8');
        expect(isToolError(e) && e.details?.offset).toBe(offset);
      }
    }
  });
});

describe('byte sources', () => {
  // 70 KB long lines: every span between checkpoints is prefetched in one read; 500 KB long
  // lines: some spans exceed the 1 MiB prefetch, so those windows are read chunk by chunk.
  it.each([70_000, 500_000])(
    'HandleSource finds the same lines as BufferSource across 64 KiB chunk boundaries (long lines of %i bytes)',
    async (long) => {
      // Lines of varied lengths (some longer than a chunk), CRLF on some, no final newline.
      const parts: string[] = [];
      for (let i = 0; i < 900; i++) {
        const len = i % 97 === 0 ? long : (i * 37) % 300;
        parts.push(`${i}:${'q'.repeat(len)}${i % 3 === 0 ? '\r' : ''}`);
      }
      const text = parts.join('\n');
      const file = t.write(`chunks-${long}.txt`, text);
      const bytes = fs.readFileSync(file);
      const facts = scan(bytes);
      const handle = await open(file, 'r');
      try {
        const viaHandle = new HandleSource(handle, bytes.length);
        const viaBuffer = new BufferSource(bytes);
        for (const from of [1, 2, 255, 256, 257, 513, 700, 899, 900]) {
          const to = Math.min(facts.totalLines, from + 30);
          const a = await lineExtents(facts, viaHandle, from, to);
          const b = await lineExtents(facts, viaBuffer, from, to);
          expect(a).toEqual(b);
          for (const e of b) {
            const lineText = bytes.subarray(e.start, e.end).toString('utf8');
            expect(lineText).toBe(parts[e.line - 1]!.replace(/\r$/, ''));
            expect(
              (await viaHandle.slice(e.start, e.end)).equals(bytes.subarray(e.start, e.end)),
            ).toBe(true);
          }
        }
        expect(await lineStart(facts, viaHandle, 900)).toBe(text.lastIndexOf('\n') + 1);
      } finally {
        await handle.close();
      }
    },
  );

  it('lineExtents stops after the line that passes the byte budget', async () => {
    const bytes = Buffer.from('aaaa\nbbbb\ncccc\ndddd\n');
    const facts = scan(bytes);
    const extents = await lineExtents(facts, new BufferSource(bytes), 1, 4, 6);
    expect(extents.map((e) => e.line)).toEqual([1, 2]);
  });
});
