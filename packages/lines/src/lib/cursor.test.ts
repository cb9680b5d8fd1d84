import { isToolError } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, fingerprint } from './cursor.js';

const isPos = (v: unknown): v is { p: string } =>
  typeof v === 'object' && v !== null && typeof (v as { p: unknown }).p === 'string';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isToolError(e) ? e.code : 'OTHER';
  }
  return undefined;
}

describe('cursors', () => {
  const q = fingerprint(['w', 'src', true]);
  const cursor = encodeCursor('list_files', q, { p: 'src/a.ts' });

  it('round-trips as opaque base64url', () => {
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'list_files', q, isPos)).toEqual({ p: 'src/a.ts' });
  });

  it('rejects garbage, truncation and edits as INVALID_CURSOR', () => {
    expect(code(() => decodeCursor('not a cursor!', 'list_files', q, isPos))).toBe(
      'INVALID_CURSOR',
    );
    expect(code(() => decodeCursor(cursor.slice(0, -4), 'list_files', q, isPos))).toBe(
      'INVALID_CURSOR',
    );
    const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    payload.p.p = 'zzz';
    const edited = Buffer.from(JSON.stringify(payload)).toString('base64url');
    expect(code(() => decodeCursor(edited, 'list_files', q, isPos))).toBe('INVALID_CURSOR');
    const arr = Buffer.from('[1,2]').toString('base64url');
    expect(code(() => decodeCursor(arr, 'list_files', q, isPos))).toBe('INVALID_CURSOR');
  });

  it('rejects a cursor from another tool or other parameters as CURSOR_MISMATCH', () => {
    expect(code(() => decodeCursor(cursor, 'search_text', q, isPos))).toBe('CURSOR_MISMATCH');
    expect(
      code(() => decodeCursor(cursor, 'list_files', fingerprint(['w', 'lib', true]), isPos)),
    ).toBe('CURSOR_MISMATCH');
  });

  it('rejects a well-formed cursor whose position has the wrong shape', () => {
    const bad = encodeCursor('list_files', q, { x: 1 });
    expect(code(() => decodeCursor(bad, 'list_files', q, isPos))).toBe('INVALID_CURSOR');
  });
});
