import type { BlockRange } from './headings.js';

/** A half-open range of UTF-16 offsets `[start, end)` in a text. */
export interface Span {
  start: number;
  end: number;
}

/** True when `offset` falls inside one of the sorted, disjoint `spans`. */
export function inSpans(spans: readonly Span[], offset: number): boolean {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = spans[mid]!;
    if (offset < s.start) hi = mid - 1;
    else if (offset >= s.end) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * Appends the inline code spans of `text` between `from` and `to` (one paragraph) to `out`:
 * a backtick run up to the next run of the same length, not started by an escaped backtick.
 * Linear: each run length's closers are looked up once, in order.
 */
export function inlineCodeSpans(text: string, from: number, to: number, out: Span[]): void {
  // start offsets of the backtick runs of each length, consumed in order
  const runs = new Map<number, { starts: number[]; next: number }>();
  let i = text.indexOf('`', from);
  while (i !== -1 && i < to) {
    let e = i;
    while (e < to && text.charCodeAt(e) === 96) e++;
    let list = runs.get(e - i);
    if (!list) {
      list = { starts: [], next: 0 };
      runs.set(e - i, list);
    }
    list.starts.push(i);
    i = text.indexOf('`', e);
  }
  if (runs.size === 0) return;
  i = from;
  while (i < to) {
    const tick = text.indexOf('`', i);
    if (tick === -1 || tick >= to) return;
    let backslashes = 0;
    for (let k = tick - 1; k >= from && text.charCodeAt(k) === 92; k--) backslashes++;
    let runEnd = tick;
    while (runEnd < to && text.charCodeAt(runEnd) === 96) runEnd++;
    if (backslashes % 2 === 1) {
      // An escaped backtick is literal; the rest of the run may still open a span.
      i = tick + 1;
      continue;
    }
    const list = runs.get(runEnd - tick);
    let closed = -1;
    if (list) {
      while (list.next < list.starts.length && list.starts[list.next]! < runEnd) list.next++;
      if (list.next < list.starts.length) closed = list.starts[list.next]! + (runEnd - tick);
    }
    if (closed === -1) {
      i = runEnd;
      continue;
    }
    out.push({ start: tick, end: closed });
    i = closed;
  }
}

/** What {@link codeSpans} needs of a parsed document. */
export interface CodeLayout {
  /** Offset where each line starts (CommonMark line endings). */
  lineStarts: readonly number[];
  /** Code blocks and tables, in document order. */
  blocks: readonly BlockRange[];
  frontMatter: { startLine: number; endLine: number } | null;
  /** Top-level headings: each is a block of its own (a code span never leaves one). */
  headings?: ReadonlyArray<{ line: number; endLine: number }>;
}

/**
 * Where `text` holds code, sorted and disjoint: each code block as whole lines (line breaks
 * included), and the inline code spans of the paragraphs between them (front matter is
 * neither). Links, tags and other inline syntax are literal inside these spans.
 */
export function codeSpans(text: string, layout: CodeLayout): Span[] {
  const starts = layout.lineStarts;
  const total = starts.length;
  const lineStart = (line: number) => starts[line - 1] ?? text.length;
  const out: Span[] = [];
  const codeBlocks = layout.blocks.filter((b) => b.kind === 'code');
  let line = layout.frontMatter ? layout.frontMatter.endLine + 1 : 1;
  let k = 0;
  const headings = layout.headings ?? [];
  let h = 0;
  const isBlank = (l: number) => {
    const end = lineStart(l + 1);
    for (let i = lineStart(l); i < end; i++) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
    }
    return true;
  };
  while (line <= total) {
    const block = codeBlocks[k];
    if (block && block.startLine <= line) {
      out.push({ start: lineStart(block.startLine), end: lineStart(block.endLine + 1) });
      line = Math.max(line, block.endLine + 1);
      k++;
      continue;
    }
    if (isBlank(line)) {
      line++;
      continue;
    }
    while (h < headings.length && headings[h]!.endLine < line) h++;
    const heading = headings[h];
    if (heading && heading.line <= line) {
      inlineCodeSpans(text, lineStart(line), lineStart(heading.endLine + 1), out);
      line = heading.endLine + 1;
      continue;
    }
    // a paragraph: non-blank lines up to a blank line, a heading or the next code block
    const first = line;
    const stop = Math.min(block ? block.startLine : total + 1, heading ? heading.line : total + 1);
    while (line < stop && line <= total && !isBlank(line)) line++;
    inlineCodeSpans(text, lineStart(first), lineStart(line), out);
  }
  return out;
}
