import { isToolError } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LINE_LIMITS, resolveLimits } from './limits.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isToolError(e) ? e.code : 'OTHER';
  }
  return undefined;
}

describe('resolveLimits', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_LINE_LIMITS).toMatchObject({
      maxFileBytes: 16 * 1024 * 1024,
      maxLines: 200,
      defaultLines: 100,
      maxTextBytes: 32 * 1024,
      maxOutputBytes: 64 * 1024,
    });
    expect(Object.isFrozen(DEFAULT_LINE_LIMITS)).toBe(true);
  });

  it('lowers limits and lets an unset default follow its maximum down', () => {
    const l = resolveLimits({ maxLines: 50, maxTextBytes: 1000 });
    expect(l).toMatchObject({ maxLines: 50, defaultLines: 50, maxTextBytes: 1000 });
    expect(resolveLimits({ maxContextLines: 0 }).maxContextLines).toBe(0);
  });

  it('refuses raising, zero, fractions, unknown keys and defaults above their maximum', () => {
    expect(code(() => resolveLimits({ maxLines: 201 }))).toBe('LIMIT_INVALID');
    expect(code(() => resolveLimits({ maxFileBytes: 0 }))).toBe('LIMIT_INVALID');
    expect(code(() => resolveLimits({ maxTextBytes: 1.5 }))).toBe('LIMIT_INVALID');
    expect(code(() => resolveLimits({ nope: 1 } as never))).toBe('LIMIT_UNKNOWN');
    expect(code(() => resolveLimits({ maxLines: 10, defaultLines: 20 }))).toBe('LIMIT_INVALID');
  });
});
