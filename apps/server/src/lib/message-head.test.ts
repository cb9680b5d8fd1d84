import { describe, expect, it } from 'vitest';
import { MessageHeadScanner } from './message-head.js';

function scan(text: string, pieceSize = text.length || 1) {
  const s = new MessageHeadScanner();
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += pieceSize) s.feed(bytes.subarray(i, i + pieceSize));
  return s.result();
}

describe('MessageHeadScanner', () => {
  it('reads a top-level id and method wherever they sit, in any piece size', () => {
    const tail = JSON.stringify({
      method: 'tools/call',
      params: { name: 'x', arguments: { id: 99, method: 'nested', text: 'a"b\\"id":7' } },
      jsonrpc: '2.0',
      id: 42,
    });
    for (const size of [1, 2, 3, 7, 64, tail.length]) {
      expect(scan(tail, size)).toEqual({ id: 42, method: 'tools/call' });
    }
    expect(scan('{"id":"req-1","jsonrpc":"2.0","method":"ping"}')).toEqual({
      id: 'req-1',
      method: 'ping',
    });
    expect(scan('{ "id" : -3.5e2 , "method" : "a\\u0062c" }')).toEqual({ id: -350, method: 'abc' });
  });

  it('ignores ids and methods below the top level, in strings or in arrays', () => {
    expect(scan('{"params":{"id":1,"method":"x"},"list":[{"id":2}]}')).toEqual({});
    expect(scan('[{"id":1,"method":"batch"}]')).toEqual({});
    expect(scan('{"note":"\\"id\\":5","method":"m"}')).toEqual({ method: 'm' });
  });

  it('leaves out an id that is not a string, number or null, and never keeps a huge one', () => {
    expect(scan('{"id":{"a":1},"method":"m"}')).toEqual({ method: 'm' });
    expect(scan('{"id":null,"method":"m"}')).toEqual({ id: null, method: 'm' });
    expect(scan(`{"id":"${'x'.repeat(10_000)}","method":"m"}`)).toEqual({ method: 'm' });
    expect(scan('{"id":tru')).toEqual({});
  });

  it('keeps constant memory on a long message (reads 20 MB in pieces)', () => {
    const s = new MessageHeadScanner();
    s.feed(Buffer.from('{"method":"tools/call","params":{"text":"'));
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 20; i++) s.feed(piece);
    s.feed(Buffer.from('"},"id":7}'));
    expect(s.result()).toEqual({ id: 7, method: 'tools/call' });
  });
});
