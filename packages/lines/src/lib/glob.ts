import { compileGlob, ToolError } from '@lectern/core';

/** Tests a workspace-relative `/`-separated path against a set of globs. */
export type PathMatcher = (path: string) => boolean;

/**
 * Compiles globs into one matcher that is true when any glob matches (core's `compileGlob`: no
 * backtracking, bounded patterns). A glob without `/` matches a path's final name anywhere
 * (`*.ts`); a glob with `/` matches the whole workspace-relative path (`src/**\/*.ts`). Dotfiles
 * match like other names; a trailing `/` is ignored. Returns undefined for an empty list. Throws
 * `INVALID_GLOB` for an empty or unusable glob and `GLOB_TOO_COMPLEX` for one past the limits.
 */
export function compileGlobs(
  globs: readonly string[] | undefined,
  field: string,
): PathMatcher | undefined {
  if (!globs || globs.length === 0) return undefined;
  const cleaned: string[] = [];
  for (const raw of globs) {
    const glob = raw.replace(/^\.\//, '').replace(/\/+$/, '');
    if (glob === '' || glob.includes('\0')) {
      throw new ToolError(
        'INVALID_GLOB',
        `${field} glob ${JSON.stringify(raw)} is empty or contains NUL.`,
        { details: { param: field } },
      );
    }
    cleaned.push(glob);
  }
  return compileGlob(cleaned, { dot: true, basename: true, field });
}
