import { parse as parseYaml } from 'yaml';

/** A half-open range of UTF-16 offsets `[start, end)` in a page's text. */
export interface Span {
  start: number;
  end: number;
}

/** A heading found outside code and front matter. */
export interface Heading {
  level: number;
  text: string;
  /** 1-based line number. */
  line: number;
}

/** The YAML block at the top of a page, if any. */
export interface FrontMatter {
  /** Range of the whole block, both `---` lines included. */
  span: Span;
  /** Parsed mapping, or null when the YAML is invalid or not a mapping. */
  data: Record<string, unknown> | null;
}

/** The block-level and inline structure a wiki needs from a Markdown page. */
export interface MarkdownStructure {
  /** Offset where each line starts; `lineStarts[0]` is 0. */
  lineStarts: number[];
  frontMatter: FrontMatter | null;
  /** Code: fenced and indented blocks (whole lines) and inline code spans, sorted, disjoint. */
  code: Span[];
  headings: Heading[];
  /** Block identifiers (`^id` at the end of a line), without the caret. */
  blockIds: string[];
  /** Tags written in the body as `#tag` (outside code), without the hash. */
  inlineTags: string[];
}

/** Start offset of every line (a line ends after `\n`). */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  let i = text.indexOf('\n');
  while (i !== -1) {
    if (i + 1 < text.length) starts.push(i + 1);
    i = text.indexOf('\n', i + 1);
  }
  return starts;
}

/** 1-based line number of `offset`, by binary search over `lineStarts`. */
export function lineAt(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
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

const FENCE_RE = /^( *)(`{3,}|~{3,})(.*)$/;
const ATX_RE = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_RE = /^ {0,3}(=+|-+)[ \t]*$/;
const LIST_RE = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const QUOTE_RE = /^(?: {0,3}> ?)+/;
const BLOCK_ID_RE = /(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$/;
const TAG_RE = /(^|[\s(,;])#([\p{L}\p{N}_/-]+)/gu;

function indentWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    if (ch === ' ') w += 1;
    else if (ch === '\t') w += 4 - (w % 4);
    else break;
  }
  return w;
}

function findFrontMatter(text: string, lineStarts: readonly number[]): FrontMatter | null {
  if (!/^---[ \t]*\r?\n/.test(text)) return null;
  for (let i = 1; i < lineStarts.length; i++) {
    const start = lineStarts[i]!;
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl + 1;
    const line = text.slice(start, nl === -1 ? text.length : nl).replace(/\r$/, '');
    if (line === '---' || line === '...') {
      const yamlText = text.slice(lineStarts[1]!, start);
      let data: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = parseYaml(yamlText, { maxAliasCount: 100 });
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
          data = parsed as Record<string, unknown>;
        } else if (parsed === null || parsed === undefined) {
          data = {};
        }
      } catch {
        data = null;
      }
      return { span: { start: 0, end }, data };
    }
  }
  return null;
}

/** Finds inline code spans in `text` between `from` and `to` (one paragraph), appending to `out`. */
function inlineCode(text: string, from: number, to: number, out: Span[]): void {
  let i = from;
  while (i < to) {
    const tick = text.indexOf('`', i);
    if (tick === -1 || tick >= to) return;
    let backslashes = 0;
    for (let k = tick - 1; k >= from && text[k] === '\\'; k--) backslashes++;
    let runEnd = tick;
    while (runEnd < to && text[runEnd] === '`') runEnd++;
    if (backslashes % 2 === 1) {
      // An escaped backtick is literal; the rest of the run may still open a span.
      i = tick + 1;
      continue;
    }
    const len = runEnd - tick;
    let j = runEnd;
    let closed = -1;
    while (j < to) {
      const next = text.indexOf('`', j);
      if (next === -1 || next >= to) break;
      let e = next;
      while (e < to && text[e] === '`') e++;
      if (e - next === len) {
        closed = e;
        break;
      }
      j = e;
    }
    if (closed === -1) {
      i = runEnd;
      continue;
    }
    out.push({ start: tick, end: closed });
    i = closed;
  }
}

/**
 * Scans a page the way a CommonMark reader sees its blocks, closely enough for a wiki: front
 * matter, fenced code (backticks or tildes, also inside block quotes and lists), indented code
 * (outside lists, not interrupting a paragraph), inline code spans, ATX and setext headings,
 * block identifiers and `#tags`. Linear in the page length.
 */
export function scanMarkdown(text: string): MarkdownStructure {
  const lineStarts = lineStartsOf(text);
  const frontMatter = findFrontMatter(text, lineStarts);
  const code: Span[] = [];
  const headings: Heading[] = [];
  const blockIds: Array<{ id: string; at: number }> = [];
  const inlineTags = new Set<string>();
  let fence: { char: string; len: number; start: number } | null = null;
  let paragraph = false;
  let paragraphLines: string[] = [];
  let paragraphStart = -1;
  let inList = false;
  let prevBlank = true;
  const paragraphs: Span[] = [];
  const closeParagraph = (endOffset: number) => {
    if (paragraphStart !== -1) paragraphs.push({ start: paragraphStart, end: endOffset });
    paragraph = false;
    paragraphLines = [];
    paragraphStart = -1;
  };
  const first = frontMatter ? lineAt(lineStarts, frontMatter.span.end) - 1 : 0;
  const startIndex = frontMatter && frontMatter.span.end >= text.length ? lineStarts.length : first;
  for (let i = startIndex; i < lineStarts.length; i++) {
    const start = lineStarts[i]!;
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl + 1;
    const raw = text.slice(start, nl === -1 ? text.length : nl).replace(/\r$/, '');
    const quote = QUOTE_RE.exec(raw);
    const rest = quote ? raw.slice(quote[0].length) : raw;
    if (fence) {
      const m = FENCE_RE.exec(rest);
      if (m && m[2]![0] === fence.char && m[2]!.length >= fence.len && m[3]!.trim() === '') {
        code.push({ start: fence.start, end });
        fence = null;
      }
      continue;
    }
    const indent = indentWidth(rest);
    const blank = rest.trim() === '';
    const fm = FENCE_RE.exec(rest);
    if (fm && (indent < 4 || inList) && !(fm[2]![0] === '`' && fm[3]!.includes('`'))) {
      closeParagraph(start);
      fence = { char: fm[2]![0]!, len: fm[2]!.length, start };
      prevBlank = false;
      continue;
    }
    if (blank) {
      closeParagraph(start);
      prevBlank = true;
      continue;
    }
    if (!inList && indent >= 4 && !paragraph) {
      code.push({ start, end });
      prevBlank = false;
      continue;
    }
    if (LIST_RE.test(rest)) inList = true;
    else if (indent === 0 && prevBlank) inList = false;
    prevBlank = false;
    const atx = ATX_RE.exec(rest);
    if (atx) {
      closeParagraph(start);
      paragraphs.push({ start, end });
      headings.push({ level: atx[1]!.length, text: (atx[2] ?? '').trim(), line: i + 1 });
      continue;
    }
    const setext = SETEXT_RE.exec(rest);
    if (setext && paragraph && !quote && !LIST_RE.test(paragraphLines[0] ?? '')) {
      const headingText = paragraphLines.join(' ').trim();
      const firstLine = i + 1 - paragraphLines.length;
      headings.push({ level: setext[1]![0] === '=' ? 1 : 2, text: headingText, line: firstLine });
      closeParagraph(end);
      continue;
    }
    if (!paragraph) {
      paragraph = true;
      paragraphStart = start;
    }
    paragraphLines.push(rest.trim());
    const id = BLOCK_ID_RE.exec(raw);
    if (id) blockIds.push({ id: id[1]!, at: start + id.index + id[0].indexOf('^') });
  }
  if (fence) code.push({ start: fence.start, end: text.length });
  closeParagraph(text.length);
  for (const p of paragraphs) inlineCode(text, p.start, p.end, code);
  code.sort((a, b) => a.start - b.start);
  for (const p of paragraphs) {
    const segment = text.slice(p.start, p.end);
    for (const m of segment.matchAll(TAG_RE)) {
      const at = p.start + m.index! + m[1]!.length;
      const tag = m[2]!.replace(/[/-]+$/, '');
      if (!/[^\d]/u.test(tag) || inSpans(code, at)) continue;
      // A heading marker is '#' followed by a space, so it never reaches here.
      inlineTags.add(tag);
    }
  }
  return {
    lineStarts,
    frontMatter,
    code,
    headings,
    // Block ids were collected line by line; drop ones that sit inside inline code.
    blockIds: blockIds.filter((b) => !inSpans(code, b.at)).map((b) => b.id),
    inlineTags: [...inlineTags],
  };
}

/** Values of a front-matter key as a list of strings (a list, or a single string). */
export function frontMatterList(
  data: Record<string, unknown> | null | undefined,
  ...keys: string[]
): string[] {
  const out: string[] = [];
  if (!data) return out;
  for (const key of keys) {
    const value = data[key];
    if (typeof value === 'string') {
      for (const part of key === 'tags' || key === 'tag' ? value.split(/[\s,]+/) : [value]) {
        if (part.trim() !== '') out.push(part.trim());
      }
    } else if (Array.isArray(value)) {
      for (const item of value) {
        if (typeof item === 'string' && item.trim() !== '') out.push(item.trim());
        else if (typeof item === 'number') out.push(String(item));
      }
    }
  }
  return out;
}

/**
 * Normalises heading text the way links spell it: case-insensitive, with the characters a
 * wikilink cannot carry (`# | ^ : [ ] \`) and runs of whitespace folded to one space.
 */
export function headingKey(text: string): string {
  return text
    .replace(/[#|^:[\]\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}
