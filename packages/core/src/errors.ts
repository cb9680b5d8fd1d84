/**
 * How a surface spells a name: native parameter, tool and detail-key names in, this surface's
 * spelling out (the name itself when the surface keeps it).
 */
export type Spelling = (native: string) => string;

/**
 * An error message: text, or a function of the surface's {@link Spelling} for a message that
 * names parameters or tools, e.g. `` (n) => `pass ${n('start_line')} to continue` ``. A function
 * message is spelled with native names when raised and again with a preset's names when a preset
 * raises it, so no layer rewrites another layer's text.
 */
export type ErrorText = string | ((name: Spelling) => string);

const NATIVE: Spelling = (name) => name;

/**
 * A user-facing error raised by a tool handler. Registration turns it into an
 * `isError: true` result whose structured content is `{ error, code, suggestions?, details? }`.
 */
export class ToolError extends Error {
  /** Stable, machine-readable reason, e.g. `PATH_ESCAPES_ROOT`. */
  readonly code: string;
  /** Closest valid alternatives for a miss (anchors, paths, names), best first. */
  readonly suggestions: readonly string[] | undefined;
  /**
   * Extra facts the caller can act on, e.g. `{ current_sha256 }`. By convention `param` (or
   * `params`) names the parameter at fault, as data a surface can spell its own way.
   */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** The message as a function of the names, when it names parameters or tools. */
  readonly named: ((name: Spelling) => string) | undefined;

  constructor(
    code: string,
    message: ErrorText,
    options: {
      suggestions?: readonly string[] | undefined;
      details?: Record<string, unknown> | undefined;
      cause?: unknown;
      /** The names a function message is spelled with (default: the native names). */
      spelling?: Spelling | undefined;
    } = {},
  ) {
    super(
      typeof message === 'string' ? message : message(options.spelling ?? NATIVE),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'ToolError';
    this.code = code;
    this.suggestions =
      options.suggestions && options.suggestions.length > 0 ? [...options.suggestions] : undefined;
    this.details = options.details;
    this.named = typeof message === 'function' ? message : undefined;
  }

  /** The JSON shape sent to clients. */
  toJSON(): ToolErrorPayload {
    const out: ToolErrorPayload = { error: this.message, code: this.code };
    if (this.suggestions) out.suggestions = [...this.suggestions];
    if (this.details) out.details = { ...this.details };
    return out;
  }
}

/**
 * `error` as a surface with other names shows it: the message spelled again with `name` (when it
 * was raised as a function of the names), parameter names in `details.param`/`details.params`
 * spelled with `name`, and every detail key spelled with `key` (default: unchanged). Code,
 * suggestions and cause are kept; anything that is not a {@link ToolError} is returned unchanged.
 */
export function respellError(error: unknown, name: Spelling, key: Spelling = NATIVE): unknown {
  if (!isToolError(error)) return error;
  const render = (error as { named?: unknown }).named;
  let details: Record<string, unknown> | undefined;
  if (error.details) {
    details = {};
    for (const [k, v] of Object.entries(error.details)) {
      details[key(k)] =
        k === 'param' && typeof v === 'string'
          ? name(v)
          : k === 'params' && Array.isArray(v)
            ? v.map((p) => (typeof p === 'string' ? name(p) : p))
            : v;
    }
  }
  return new ToolError(
    error.code,
    typeof render === 'function' ? (render as (n: Spelling) => string) : error.message,
    { suggestions: error.suggestions, details, cause: error, spelling: name },
  );
}

/** Structured content of an error result. */
export interface ToolErrorPayload {
  error: string;
  code: string;
  suggestions?: string[];
  details?: Record<string, unknown>;
}

/** True when `value` is a {@link ToolError} (also across duplicated module copies). */
export function isToolError(value: unknown): value is ToolError {
  return (
    value instanceof ToolError ||
    (value instanceof Error &&
      value.name === 'ToolError' &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}

/**
 * Levenshtein edit distance between two strings (by UTF-16 code unit), O(|a|·|b|) time and
 * O(min) memory.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length < b.length) [a, b] = [b, a];
  if (b.length === 0) return a.length;
  let prev = new Array<number>(b.length + 1);
  let curr = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    curr[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      curr[j] = Math.min(prev[j]! + 1, curr[j - 1]! + 1, prev[j - 1]! + cost);
    }
    [prev, curr] = [curr, prev];
  }
  return prev[b.length]!;
}

/**
 * The candidates closest to `input`, best first: case-insensitive edit distance, then, at equal
 * distance, candidates that contain the input (or are contained in it), then alphabetical.
 * Duplicates are removed; at most `max` (default 5) are returned, and with `maxDistance` only
 * candidates at most that far away.
 */
export function suggest(
  input: string,
  candidates: Iterable<string>,
  options: { max?: number; maxDistance?: number } = {},
): string[] {
  const max = options.max ?? 5;
  if (max <= 0) return [];
  const needle = input.toLowerCase();
  const scored: Array<{ c: string; d: number; contains: number }> = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c)) continue;
    seen.add(c);
    const hay = c.toLowerCase();
    const d = editDistance(needle, hay);
    if (options.maxDistance !== undefined && d > options.maxDistance) continue;
    const contains = needle.length > 0 && (hay.includes(needle) || needle.includes(hay)) ? 0 : 1;
    scored.push({ c, d, contains });
  }
  scored.sort(
    (x, y) => x.d - y.d || x.contains - y.contains || (x.c < y.c ? -1 : x.c > y.c ? 1 : 0),
  );
  return scored.slice(0, max).map((s) => s.c);
}
