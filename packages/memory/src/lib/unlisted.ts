/** Entries a walk passed over because their names are not valid UTF-8, as answers show them. */
export interface Unlisted {
  /** How many. */
  count: number;
  /** The first {@link MAX_UNLISTED_NAMES} of them, invalid bytes as `\xHH`, folders ending in `/`. */
  names: string[];
}

/** Most unlisted names an answer shows; the count covers them all. */
export const MAX_UNLISTED_NAMES = 20;
/** Longest name shown, in characters (a deep path of escaped bytes is cut, marked with `…`). */
const MAX_SHOWN_CHARS = 300;

/** The answer's view of `names` (sorted, each with `prefix` before it, the first few shown). */
export function unlistedOf(names: readonly string[], prefix = ''): Unlisted {
  const sorted = [...names].sort();
  return {
    count: sorted.length,
    names: sorted.slice(0, MAX_UNLISTED_NAMES).map((n) => {
      const shown = `${prefix}${n}`;
      return shown.length > MAX_SHOWN_CHARS ? `${shown.slice(0, MAX_SHOWN_CHARS - 1)}…` : shown;
    }),
  };
}

/** Adds the unlisted entries of several sources into one view (names already prefixed). */
export function mergeUnlisted(parts: readonly Unlisted[]): Unlisted {
  const names: string[] = [];
  let count = 0;
  for (const p of parts) {
    count += p.count;
    for (const n of p.names) if (names.length < MAX_UNLISTED_NAMES) names.push(n);
  }
  return { count, names };
}
