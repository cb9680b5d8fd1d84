import { describe, expect, it } from 'vitest';
import { isToolError } from './errors.js';
import { checkLimits } from './package.js';

describe('checkLimits', () => {
  it('returns the limits that are set and skips undefined ones', () => {
    expect(checkLimits('wiki', { maxPageBytes: 2048, other: undefined }, ['maxPageBytes'])).toEqual(
      { maxPageBytes: 2048 },
    );
    expect(checkLimits('wiki', undefined, ['maxPageBytes'])).toEqual({});
  });

  it('refuses an unknown limit with LIMIT_UNKNOWN naming it and the known ones', () => {
    try {
      checkLimits('sections', { maxFileByte: 10 }, ['maxFileBytes']);
      expect.unreachable();
    } catch (e) {
      expect(isToolError(e) && e.code).toBe('LIMIT_UNKNOWN');
      expect((e as Error).message).toBe(
        'sections: unknown limit "maxFileByte"; the limits are maxFileBytes.',
      );
    }
  });

  it('refuses a limit that is not a positive whole number with LIMIT_INVALID', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 60]) {
      expect(() => checkLimits('wiki', { maxPageBytes: bad }, ['maxPageBytes'])).toThrow(
        expect.objectContaining({ code: 'LIMIT_INVALID' }),
      );
    }
  });
});
