import { ToolError } from '@lectern/core';
import picomatch from 'picomatch';

/** Tests a workspace-relative `/`-separated path against a set of globs. */
export type PathMatcher = (path: string) => boolean;

/**
 * Compiles globs (picomatch syntax) into one matcher that is true when any glob matches. A glob
 * without `/` matches a path's final name anywhere (`*.ts`); a glob with `/` matches the whole
 * workspace-relative path (`src/**\/*.ts`). Dotfiles match like other names; a trailing `/` is
 * ignored. Returns undefined for an empty list. Throws `INVALID_GLOB` for an empty or unusable
 * glob.
 */
export function compileGlobs(
  globs: readonly string[] | undefined,
  field: string,
): PathMatcher | undefined {
  if (!globs || globs.length === 0) return undefined;
  const matchers: PathMatcher[] = [];
  for (const raw of globs) {
    const glob = raw.replace(/^\.\//, '').replace(/\/+$/, '');
    if (glob === '' || glob.includes('\0')) {
      throw new ToolError(
        'INVALID_GLOB',
        `${field} glob ${JSON.stringify(raw)} is empty or contains NUL.`,
      );
    }
    try {
      matchers.push(picomatch(glob, { dot: true, basename: !glob.includes('/') }));
    } catch (error) {
      throw new ToolError(
        'INVALID_GLOB',
        `${field} glob ${JSON.stringify(raw)} cannot be used: ${(error as Error).message}`,
      );
    }
  }
  return (path) => matchers.some((m) => m(path));
}
