import { compileGlob, isToolError } from '@lectern/core';
import { MemoryError } from './errors.js';

/**
 * Compiles a search's `pathGlob` with core's matcher (no backtracking, so a pattern like
 * `*a*a*…*b` cannot hold the server's thread; bounded length, wildcards and brace expansions).
 * Wildcards skip names that start with `.`. Throws `INVALID_GLOB` for an unusable pattern and
 * `GLOB_TOO_COMPLEX` (naming the limit in `details.limit`) for one past the limits.
 */
export function compilePathGlob(glob: string): (path: string) => boolean {
  try {
    return compileGlob(glob, { dot: false, field: 'pathGlob' });
  } catch (cause) {
    if (isToolError(cause) && cause.code === 'GLOB_TOO_COMPLEX') {
      const limit = cause.details?.limit;
      const max = cause.details?.max;
      const shown =
        glob.length > 80 ? `${JSON.stringify(glob.slice(0, 80))}…` : JSON.stringify(glob);
      throw new MemoryError(
        'GLOB_TOO_COMPLEX',
        `{param:pathGlob} ${shown} is past the glob limit ${String(limit)} (${String(max)}); use a shorter pattern, or narrow the search with {param:source}.`,
        { param: 'pathGlob', details: { limit, max }, cause },
      );
    }
    throw new MemoryError(
      'INVALID_GLOB',
      `{param:pathGlob} ${JSON.stringify(glob)} is not a valid glob${isToolError(cause) ? ` (${cause.message.replace(/^pathGlob glob "[^"]*" /, '')})` : ''}.`,
      { param: 'pathGlob', cause },
    );
  }
}
