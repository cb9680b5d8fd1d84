import { describe, expect, it } from 'vitest';
import { canonicalJson, inputHash, sortKeysDeep } from './canonical.js';

describe('canonical JSON and input hash', () => {
  it('sorts keys at every level and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[{"y":2,"z":1}]},"b":1}',
    );
    expect(sortKeysDeep([undefined, Number.NaN])).toEqual([null, null]);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cyclic/);
  });

  it('hashes the six definition fields deterministically to 16 hex chars', () => {
    const a = {
      name: 't',
      description: 'Read a thing.',
      inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
    };
    const b = {
      inputSchema: { properties: { x: { type: 'string' } }, type: 'object' },
      description: 'Read a thing.',
      name: 't',
    };
    expect(inputHash(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(inputHash(a)).toBe(inputHash(b));
    expect(inputHash({ ...a, title: null })).toBe(inputHash(a));
    expect(inputHash({ ...a, execution: { taskSupport: 'forbidden' } })).toBe(inputHash(a));
    expect(inputHash({ ...a, description: 'Read another thing.' })).not.toBe(inputHash(a));
    expect(inputHash({ ...a, annotations: { readOnlyHint: true } })).not.toBe(inputHash(a));
  });
});
