import { ToolError } from './errors.js';

/**
 * Glob matching for patterns that clients send (include/exclude, list filters, path filters).
 *
 * The matcher never backtracks: a pattern is expanded (braces), split into `/` segments and each
 * segment compiled into tokens; a path is matched by dynamic programming over (pattern segment,
 * path segment) pairs, and a segment by simulating its tokens as a set of states over the name's
 * characters. The work for one path is at most (pattern characters × path characters) steps, for
 * any pattern, so `*a*a*a…*b` against a long name costs thousands of steps, not 2^n.
 *
 * Syntax (the picomatch subset the tools documented): `*` (any characters but `/`), `?` (one
 * character but `/`), `**` as a whole segment (any number of segments, none included), `[abc]`,
 * `[a-z]`, `[!a]`/`[^a]`, `[[:alpha:]]`-style classes, `{a,b}` (nested, empty alternatives),
 * `{1..9}`/`{a..e}` ranges, `\` escapes, a leading `!` to negate. Extglobs (`*(…)`, `+(…)`,
 * `@(…)`, `?(…)`, `!(…)`) are refused with `INVALID_GLOB`. An unclosed `[` or `{` is literal.
 * With `dot: false`, wildcards do not match a name starting with `.` unless the pattern segment
 * starts with a literal `.`; `.` and `..` are never matched by a wildcard.
 */

/** Limits on one pattern, checked before it is compiled. */
export const GLOB_LIMITS = Object.freeze({
  /** Longest pattern, in characters. */
  maxLength: 512,
  /** Most wildcards (`*`, `?`, `[…]`) in one pattern. */
  maxWildcards: 32,
  /** Most patterns one pattern's braces expand into. */
  maxExpansions: 64,
  /** Most characters in all of a pattern's expansions together. */
  maxExpandedChars: 4096,
});

/** How patterns match. */
export interface GlobOptions {
  /** Let wildcards match names that start with `.` (default false). */
  dot?: boolean;
  /** Match a pattern without `/` against the path's final name only (default false). */
  basename?: boolean;
  /** Name of the parameter the patterns came from, for error messages (default `glob`). */
  field?: string;
}

/** A compiled set of patterns: true when any pattern matches the `/`-separated path. */
export interface GlobMatcher {
  (path: string): boolean;
  /** Matching steps taken so far (state updates), for measuring the matcher's cost. */
  readonly steps: number;
}

type Token =
  | { k: 'lit'; c: number }
  | { k: 'one' }
  | { k: 'star' }
  | { k: 'set'; neg: boolean; test: (c: number) => boolean };

/** A compiled pattern segment, or `null` for `**`. */
type Segment = Token[] | null;

interface Compiled {
  segments: Segment[];
  negate: boolean;
  basename: boolean;
}

const POSIX: Record<string, (c: number) => boolean> = {
  alpha: (c) => /\p{L}/u.test(String.fromCodePoint(c)),
  digit: (c) => c >= 48 && c <= 57,
  alnum: (c) => /[\p{L}\p{Nd}]/u.test(String.fromCodePoint(c)),
  upper: (c) => /\p{Lu}/u.test(String.fromCodePoint(c)),
  lower: (c) => /\p{Ll}/u.test(String.fromCodePoint(c)),
  space: (c) => /\s/u.test(String.fromCodePoint(c)),
  punct: (c) => /[\p{P}\p{S}]/u.test(String.fromCodePoint(c)),
  xdigit: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
  word: (c) => c === 95 || /[\p{L}\p{Nd}]/u.test(String.fromCodePoint(c)),
};

function invalid(field: string, raw: string, why: string): ToolError {
  return new ToolError('INVALID_GLOB', `${field} glob ${JSON.stringify(raw)} ${why}`, {
    details: { param: field },
  });
}

function tooComplex(field: string, raw: string, limit: keyof typeof GLOB_LIMITS, value: number) {
  const what: Record<keyof typeof GLOB_LIMITS, string> = {
    maxLength: 'characters',
    maxWildcards: 'wildcards (`*`, `?`, `[…]`)',
    maxExpansions: 'brace expansions',
    maxExpandedChars: 'characters once its braces are expanded',
  };
  const shown = raw.length > 80 ? `${JSON.stringify(raw.slice(0, 80))}…` : JSON.stringify(raw);
  return new ToolError(
    'GLOB_TOO_COMPLEX',
    `${field} glob ${shown} has ${value > GLOB_LIMITS[limit] ? `more than ${GLOB_LIMITS[limit]}` : value} ${what[limit]}; the limit (${limit}) is ${GLOB_LIMITS[limit]}. Use a shorter pattern, or several simpler ones.`,
    { details: { param: field, limit, max: GLOB_LIMITS[limit] } },
  );
}

/** Index just past the `]` closing the class opened at `i`, or -1 when it is not closed. */
function classEnd(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '!' || p[j] === '^') j++;
  if (p[j] === ']') j++;
  while (j < p.length) {
    const c = p[j];
    if (c === '\\') j += 2;
    else if (c === '[' && p[j + 1] === ':') {
      const close = p.indexOf(':]', j + 2);
      j = close === -1 ? j + 1 : close + 2;
    } else if (c === ']') return j + 1;
    else j++;
  }
  return -1;
}

/** Checks length, wildcards and extglobs of a raw pattern. */
function checkRaw(raw: string, field: string): void {
  if (raw.length > GLOB_LIMITS.maxLength) {
    throw tooComplex(field, raw, 'maxLength', raw.length);
  }
  let wildcards = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if ((c === '*' || c === '?' || c === '+' || c === '@' || c === '!') && raw[i + 1] === '(') {
      throw invalid(
        field,
        raw,
        `uses the extglob \`${c}(…)\`, which is not supported; use braces \`{a,b}\`, or escape the parenthesis as \`\\(\` to match it literally.`,
      );
    }
    if (c === '*') {
      if (raw[i - 1] !== '*') wildcards++;
    } else if (c === '?') wildcards++;
    else if (c === '[') {
      const end = classEnd(raw, i);
      if (end !== -1) {
        wildcards++;
        i = end - 1;
      }
    }
    if (wildcards > GLOB_LIMITS.maxWildcards) {
      throw tooComplex(field, raw, 'maxWildcards', wildcards);
    }
  }
}

/** The alternatives of the brace group at `open`, with its end, or null when it is literal. */
function braceGroup(p: string, open: number): { alts: string[] | null; end: number } | null {
  let depth = 0;
  const commas: number[] = [];
  for (let j = open; j < p.length; j++) {
    const c = p[j];
    if (c === '\\') {
      j++;
    } else if (c === '[') {
      const end = classEnd(p, j);
      if (end !== -1) j = end - 1;
    } else if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) {
        if (commas.length > 0) {
          const alts: string[] = [];
          let from = open + 1;
          for (const comma of commas) {
            alts.push(p.slice(from, comma));
            from = comma + 1;
          }
          alts.push(p.slice(from, j));
          return { alts, end: j + 1 };
        }
        return { alts: null, end: j + 1 };
      }
    } else if (c === ',' && depth === 1) commas.push(j);
  }
  return null;
}

/** The values of a `{a..b}` range (numbers or single characters), or null when it is not one. */
function braceRange(body: string, field: string, raw: string): string[] | null {
  const m = /^(-?\d+)\.\.(-?\d+)$/.exec(body) ?? /^([^\\])\.\.([^\\])$/u.exec(body);
  if (!m) return null;
  const numeric = /^-?\d+$/.test(m[1]!);
  const from = numeric ? Number(m[1]) : m[1]!.codePointAt(0)!;
  const to = numeric ? Number(m[2]) : m[2]!.codePointAt(0)!;
  const count = Math.abs(to - from) + 1;
  if (count > GLOB_LIMITS.maxExpansions) throw tooComplex(field, raw, 'maxExpansions', count);
  const step = from <= to ? 1 : -1;
  const out: string[] = [];
  for (let v = from; out.length < count; v += step) {
    const s = numeric ? String(v) : String.fromCodePoint(v);
    out.push(/[\\*?[\]{},!]/.test(s) ? `\\${s}` : s);
  }
  return out;
}

/** Expands a pattern's braces, within the expansion limits. */
function expandBraces(raw: string, field: string): string[] {
  const done: string[] = [];
  const todo: Array<{ p: string; from: number }> = [{ p: raw, from: 0 }];
  let chars = 0;
  while (todo.length > 0) {
    const { p, from } = todo.pop()!;
    let found = false;
    for (let i = from; i < p.length && !found; i++) {
      const c = p[i];
      if (c === '\\') {
        i++;
      } else if (c === '[') {
        const end = classEnd(p, i);
        if (end !== -1) i = end - 1;
      } else if (c === '{') {
        const group = braceGroup(p, i);
        if (group === null) continue;
        const alts = group.alts ?? braceRange(p.slice(i + 1, group.end - 1), field, raw);
        if (alts === null) continue;
        found = true;
        const head = p.slice(0, i);
        const tail = p.slice(group.end);
        if (done.length + todo.length + alts.length > GLOB_LIMITS.maxExpansions) {
          throw tooComplex(field, raw, 'maxExpansions', done.length + todo.length + alts.length);
        }
        for (let a = alts.length - 1; a >= 0; a--) {
          todo.push({ p: head + alts[a] + tail, from: i });
        }
      }
    }
    if (!found) {
      chars += p.length;
      if (chars > GLOB_LIMITS.maxExpandedChars) {
        throw tooComplex(field, raw, 'maxExpandedChars', chars);
      }
      done.push(p);
    }
  }
  return done;
}

/** Compiles one `/`-free, brace-free segment into tokens. */
function compileSegment(seg: string): Segment {
  if (seg === '**') return null;
  const tokens: Token[] = [];
  const chars = Array.from(seg);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) {
      tokens.push({ k: 'lit', c: chars[++i]!.codePointAt(0)! });
    } else if (c === '*') {
      if (tokens.at(-1)?.k !== 'star') tokens.push({ k: 'star' });
    } else if (c === '?') {
      tokens.push({ k: 'one' });
    } else if (c === '[') {
      const joined = chars.slice(i).join('');
      const end = classEnd(joined, 0);
      if (end === -1) {
        tokens.push({ k: 'lit', c: 91 });
        continue;
      }
      const body = Array.from(joined.slice(0, end));
      i += body.length - 1;
      tokens.push(compileClass(body));
    } else {
      tokens.push({ k: 'lit', c: c.codePointAt(0)! });
    }
  }
  return tokens;
}

/** Compiles `[…]` (given with its brackets, as code points) into a set token. */
function compileClass(body: string[]): Token {
  let i = 1;
  const neg = body[i] === '!' || body[i] === '^';
  if (neg) i++;
  const ranges: Array<[number, number]> = [];
  const named: Array<(c: number) => boolean> = [];
  const last = body.length - 1;
  let first = true;
  while (i < last) {
    let c = body[i]!;
    if (c === '[' && body[i + 1] === ':') {
      const rest = body.slice(i + 2).join('');
      const close = rest.indexOf(':]');
      if (close !== -1) {
        const name = rest.slice(0, close);
        const test = POSIX[name];
        if (test) {
          named.push(test);
          i += 2 + Array.from(rest.slice(0, close)).length + 2;
          first = false;
          continue;
        }
      }
    }
    if (c === ']' && !first) break;
    if (c === '\\' && i + 1 < last) c = body[++i]!;
    const lo = c.codePointAt(0)!;
    if (body[i + 1] === '-' && i + 2 < last) {
      let hiChar = body[i + 2]!;
      let skip = 3;
      if (hiChar === '\\' && i + 3 < last) {
        hiChar = body[i + 3]!;
        skip = 4;
      }
      ranges.push([lo, hiChar.codePointAt(0)!]);
      i += skip;
    } else {
      ranges.push([lo, lo]);
      i++;
    }
    first = false;
  }
  const test = (c: number) =>
    ranges.some(([lo, hi]) => c >= lo && c <= hi) || named.some((t) => t(c));
  return { k: 'set', neg, test };
}

/** Compiles one brace-free pattern. */
function compileOne(pattern: string, negate: boolean, basename: boolean): Compiled {
  // `/` inside a class never separates segments in a path, so split only outside classes.
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[') {
      const end = classEnd(pattern, i);
      if (end !== -1) i = end - 1;
    } else if (c === '/') {
      parts.push(pattern.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(pattern.slice(from));
  const segments: Segment[] = [];
  for (const part of parts) {
    const seg = compileSegment(part);
    // Consecutive `**` segments match what one does.
    if (seg === null && segments.length > 0 && segments.at(-1) === null) continue;
    segments.push(seg);
  }
  return { segments, negate, basename };
}

/**
 * Compiles glob patterns into one matcher (true when any pattern matches). Throws `INVALID_GLOB`
 * for an empty pattern, a NUL or an extglob, and `GLOB_TOO_COMPLEX` (naming the limit) for a
 * pattern past {@link GLOB_LIMITS}.
 */
export function compileGlob(
  patterns: string | readonly string[],
  options: GlobOptions = {},
): GlobMatcher {
  const field = options.field ?? 'glob';
  const dot = options.dot === true;
  const compiled: Compiled[] = [];
  for (const raw of typeof patterns === 'string' ? [patterns] : patterns) {
    if (raw === '' || raw.includes('\0')) {
      throw invalid(field, raw, 'is empty or contains NUL.');
    }
    checkRaw(raw, field);
    let body = raw;
    let negate = false;
    while (body.startsWith('!') && body[1] !== '(') {
      negate = !negate;
      body = body.slice(1);
    }
    if (body.startsWith('./')) body = body.slice(2);
    const basename = options.basename === true && !body.includes('/');
    for (const one of expandBraces(body, field)) {
      compiled.push(compileOne(one, negate, basename));
    }
  }
  let steps = 0;

  /** True when segment tokens match the name (code points), as a set of states. */
  const segmentMatches = (tokens: Token[], name: string): boolean => {
    if (name === '') return tokens.length === 0;
    const first = tokens[0];
    const dotName = name.charCodeAt(0) === 46;
    if (dotName && (!dot || name === '.' || name === '..')) {
      if (first?.k !== 'lit' || first.c !== 46) return false;
    }
    const m = tokens.length;
    let cur = new Uint8Array(m + 1);
    let next = new Uint8Array(m + 1);
    const close = (s: Uint8Array) => {
      for (let j = 0; j < m; j++) if (s[j] && tokens[j]!.k === 'star') s[j + 1] = 1;
    };
    cur[0] = 1;
    close(cur);
    for (const ch of name) {
      const c = ch.codePointAt(0)!;
      next.fill(0);
      let alive = false;
      for (let j = 0; j < m; j++) {
        if (!cur[j]) continue;
        const t = tokens[j]!;
        if (t.k === 'star') {
          next[j] = 1;
          alive = true;
        } else if (
          t.k === 'one' ||
          (t.k === 'lit' && t.c === c) ||
          (t.k === 'set' && t.test(c) !== t.neg)
        ) {
          next[j + 1] = 1;
          alive = true;
        }
      }
      steps += m;
      if (!alive) return false;
      close(next);
      [cur, next] = [next, cur];
    }
    return cur[m] === 1;
  };

  /** A name `**` may pass over. */
  const globstarPasses = (name: string) =>
    name.charCodeAt(0) !== 46 || (dot && name !== '.' && name !== '..');

  /** True when the pattern's segments match the path's (dynamic programming, no backtracking). */
  const pathMatches = (segs: Segment[], names: string[]): boolean => {
    const p = segs.length;
    const k = names.length;
    // row[j]: segments i.. match names j..; computed from the last segment back.
    let below = new Uint8Array(k + 1);
    below[k] = 1;
    let row = new Uint8Array(k + 1);
    for (let i = p - 1; i >= 0; i--) {
      const seg = segs[i]!;
      row.fill(0);
      if (seg === null) {
        row[k] = below[k]!;
        for (let j = k - 1; j >= 0; j--) {
          row[j] = below[j] || (row[j + 1] && globstarPasses(names[j]!)) ? 1 : 0;
        }
      } else {
        for (let j = k - 1; j >= 0; j--) {
          if (below[j + 1] && segmentMatches(seg, names[j]!)) row[j] = 1;
        }
      }
      steps += k;
      [below, row] = [row, below];
    }
    return below[0] === 1;
  };

  const matcher = ((path: string) => {
    const names = path.split('/');
    const base = names.slice(-1);
    return compiled.some((c) => pathMatches(c.segments, c.basename ? base : names) !== c.negate);
  }) as GlobMatcher;
  Object.defineProperty(matcher, 'steps', { get: () => steps });
  return matcher;
}
