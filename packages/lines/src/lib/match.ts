/** A numbered line shown around a match. */
export interface ContextLine {
  line: number;
  text: string;
  /** Present (true) when the line was cut to the character limit. */
  truncated?: boolean;
}

/** One line that matches a search. */
export interface LineMatch {
  /** Line number, 1-based. */
  line: number;
  /** 1-based column, in Unicode code points, where the first match on the line starts. */
  column: number;
  /** The line's text, or an excerpt around the match when the line is too long. */
  text: string;
  /** True when `text` is an excerpt of a longer line. */
  truncated: boolean;
  before: ContextLine[];
  after: ContextLine[];
}

/** What {@link findLineMatches} found in one text. */
export interface FileMatches {
  matches: LineMatch[];
  /** True when the per-file cap stopped the scan with matching lines left over. */
  capped: boolean;
}

/**
 * Finds the lines of `text` that match `source` (a RegExp source compiled with `flags`, which
 * must include `g` and `m`), at most `cap` of them. A match never spans lines: a candidate
 * found in the whole text is confirmed by matching its line alone. Line numbers are 1-based;
 * `\n` and `\r\n` end lines. Long lines are returned as an excerpt of `maxChars` characters
 * around the match, context lines as their first `maxChars` characters.
 *
 * This function is self-contained (it is also run, as source text, inside the regex worker),
 * so it must not refer to anything outside its own body.
 */
export function findLineMatches(
  text: string,
  source: string,
  flags: string,
  cap: number,
  contextLines: number,
  maxChars: number,
): FileMatches {
  const re = new RegExp(source, flags);
  const lineRe = new RegExp(source, flags.replace('g', ''));
  const matches: LineMatch[] = [];
  const size = text.length;
  const endsWithBreak = size > 0 && text.charCodeAt(size - 1) === 10;
  const lastLineStart = endsWithBreak ? size : -1;
  let countedTo = 0;
  let lineNo = 1;
  let capped = false;

  const lineEndAt = (start: number): number => {
    const nl = text.indexOf('\n', start);
    return nl === -1 ? size : nl;
  };
  const lineText = (start: number, end: number): string =>
    end > start && text.charCodeAt(end - 1) === 13 && end < size
      ? text.slice(start, end - 1)
      : text.slice(start, end);
  const cut = (s: string, from: number): { text: string; truncated: boolean } => {
    if (s.length <= maxChars) return { text: s, truncated: false };
    let a = Math.max(0, Math.min(from, s.length - maxChars));
    const lo = (c: number) => c >= 0xdc00 && c <= 0xdfff;
    const hi = (c: number) => c >= 0xd800 && c <= 0xdbff;
    if (a > 0 && lo(s.charCodeAt(a)) && hi(s.charCodeAt(a - 1))) a -= 1;
    let b = Math.min(s.length, a + maxChars);
    if (b < s.length && hi(s.charCodeAt(b - 1)) && lo(s.charCodeAt(b))) b -= 1;
    return { text: s.slice(a, b), truncated: true };
  };

  re.lastIndex = 0;
  for (;;) {
    const m = re.exec(text);
    if (m === null) break;
    const at = m.index;
    if (at >= size && (size === 0 || at === lastLineStart)) break;
    const start = at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
    const end = lineEndAt(start);
    let p = text.indexOf('\n', countedTo);
    while (p !== -1 && p < start) {
      lineNo++;
      p = text.indexOf('\n', p + 1);
    }
    countedTo = start;
    const line = lineText(start, end);
    lineRe.lastIndex = 0;
    const own = lineRe.exec(line);
    if (own !== null) {
      if (matches.length >= cap) {
        capped = true;
        break;
      }
      let column = 1;
      for (let i = 0; i < own.index; i++) {
        const c = line.charCodeAt(i);
        if (!(c >= 0xdc00 && c <= 0xdfff && i > 0)) column++;
        else {
          const prev = line.charCodeAt(i - 1);
          if (!(prev >= 0xd800 && prev <= 0xdbff)) column++;
        }
      }
      const shown = cut(line, own.index - Math.floor(maxChars / 4));
      const before: ContextLine[] = [];
      let s = start;
      for (let k = 1; k <= contextLines && s > 0; k++) {
        const e = s - 1;
        s = e === 0 ? 0 : text.lastIndexOf('\n', e - 1) + 1;
        const c = cut(lineText(s, e), 0);
        before.unshift(
          c.truncated
            ? { line: lineNo - k, text: c.text, truncated: true }
            : { line: lineNo - k, text: c.text },
        );
      }
      const after: ContextLine[] = [];
      let e2 = end;
      for (let k = 1; k <= contextLines && e2 < size; k++) {
        const s2 = e2 + 1;
        if (s2 >= size) break;
        e2 = lineEndAt(s2);
        const c = cut(lineText(s2, e2), 0);
        after.push(
          c.truncated
            ? { line: lineNo + k, text: c.text, truncated: true }
            : { line: lineNo + k, text: c.text },
        );
      }
      matches.push({
        line: lineNo,
        column,
        text: shown.text,
        truncated: shown.truncated,
        before,
        after,
      });
    }
    if (end >= size) break;
    re.lastIndex = end + 1;
  }
  return { matches, capped };
}
