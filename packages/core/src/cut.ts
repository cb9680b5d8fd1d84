import { jsonBytes } from './paginate.js';

/** Where a string sits in a value: keys and array indices from the top. */
export type ValuePath = ReadonlyArray<string | number>;

/**
 * What {@link cutStrings} appends to a string it cut: `shown` characters of `total` are kept, and
 * the marker says so and how to read the rest (e.g. `" … [cut: 2000 of 100000 characters; …]"`).
 */
export type CutMarker = (path: ValuePath, shown: number, total: number) => string;

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** The first `n` UTF-16 units of `s`, one less when that would split a surrogate pair. */
function head(s: string, n: number): string {
  return n > 0 && n < s.length && isHigh(s.charCodeAt(n - 1)) ? s.slice(0, n - 1) : s.slice(0, n);
}

function collect(value: unknown, path: (string | number)[], out: Array<[ValuePath, number]>) {
  if (typeof value === 'string') out.push([[...path], value.length]);
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) collect(v, [...path, i], out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) collect(v, [...path, k], out);
  }
}

function rebuild(
  value: unknown,
  path: (string | number)[],
  cap: number,
  marker: CutMarker,
): unknown {
  if (typeof value === 'string') {
    if (value.length <= cap) return value;
    const kept = head(value, cap);
    return `${kept}${marker(path, kept.length, value.length)}`;
  }
  if (Array.isArray(value)) return value.map((v, i) => rebuild(v, [...path, i], cap, marker));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = rebuild(v, [...path, k], cap, marker);
    return out;
  }
  return value;
}

/**
 * One value that alone is over a byte budget (a 100,000-character heading, a huge heading path),
 * made to fit: every string longer than one length cap is cut to it and gets `marker`, which
 * says what was cut and how to read the rest. The cap is the largest that makes the compact
 * JSON of the value fit `maxBytes`, so short strings (ids, numbers as text) stay whole. Returns
 * null when not even a cap of 0 fits (the value is large for other reasons, e.g. a long list).
 */
export function cutStrings<T>(value: T, maxBytes: number, marker: CutMarker): T | null {
  if (jsonBytes(value) <= maxBytes) return value;
  const strings: Array<[ValuePath, number]> = [];
  collect(value, [], strings);
  const longest = strings.reduce((m, [, n]) => Math.max(m, n), 0);
  const fits = (cap: number) => jsonBytes(rebuild(value, [], cap, marker)) <= maxBytes;
  if (!fits(0)) return null;
  let lo = 0;
  let hi = longest;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return rebuild(value, [], lo, marker) as T;
}
