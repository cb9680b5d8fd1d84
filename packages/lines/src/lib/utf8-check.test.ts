import { describe, expect, it } from 'vitest';
import { Utf8Check } from './utf8-check.js';

function check(chunks: Buffer[]): boolean {
  const c = new Utf8Check();
  for (const chunk of chunks) c.push(chunk);
  return c.end();
}

describe('Utf8Check', () => {
  it('accepts multi-byte sequences split at every position across chunks', () => {
    const text = Buffer.from('a\u00e9\u20ac\u{1F600}z');
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j++) {
        expect(check([text.subarray(0, i), text.subarray(i, j), text.subarray(j)])).toBe(true);
      }
    }
  });

  it('rejects malformed bytes, NUL and a sequence left unfinished at the end', () => {
    expect(check([Buffer.from([0x61, 0xff])])).toBe(false);
    expect(check([Buffer.from('ab'), Buffer.from([0])])).toBe(false);
    expect(check([Buffer.from([0xe2, 0x82])])).toBe(false);
    expect(check([Buffer.from([0xf0, 0x9f]), Buffer.from([0x41, 0x41])])).toBe(false);
    expect(check([])).toBe(true);
  });
});
