import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolError } from './errors.js';
import { assertVersion, isVersion, sha256, sha256Handle } from './version.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-version-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sha256', () => {
  it('matches the standard test vector', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(isVersion(sha256(''))).toBe(true);
    expect(isVersion('abc')).toBe(false);
  });

  it('streams a file in chunks to the same digest as hashing it whole', async () => {
    const data = Buffer.alloc(3 * 1024 + 17, 'xyz');
    const p = join(dir, 'f.bin');
    writeFileSync(p, data);
    const fh = await open(p, 'r');
    try {
      expect(await sha256Handle(fh, 1024)).toBe(sha256(data));
    } finally {
      await fh.close();
    }
  });
});

describe('assertVersion', () => {
  it('passes when absent or equal (any case)', () => {
    const v = sha256('x');
    expect(() => assertVersion(undefined, v)).not.toThrow();
    expect(() => assertVersion(v.toUpperCase(), v)).not.toThrow();
  });

  it('throws VERSION_MISMATCH carrying the current version', () => {
    const v = sha256('x');
    try {
      assertVersion(sha256('y'), v, 'page a.md');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ToolError);
      expect((e as ToolError).code).toBe('VERSION_MISMATCH');
      expect((e as ToolError).details).toMatchObject({ current_version: v });
      expect((e as ToolError).message).toContain('page a.md changed');
    }
  });
});
