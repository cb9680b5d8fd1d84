import {
  codeSpans,
  computeLineStarts,
  headingSource,
  inSpans,
  outlineOf,
  type Span,
} from '@lectern/markdown';
import { parse as parseYaml } from 'yaml';

export { inSpans, type Span };

/** A top-level heading of a page, as `@lectern/markdown` finds it. */
export interface Heading {
  level: number;
  /** Plain text, as docs_outline and memory citations show it. */
  text: string;
  /** The inline Markdown as written (`*Install* now`), also accepted by heading links. */
  source: string;
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
  /** Offset where each line starts (CommonMark line endings). */
  lineStarts: number[];
  frontMatter: FrontMatter | null;
  /** Code: code blocks (whole lines) and inline code spans, sorted, disjoint. */
  code: Span[];
  headings: Heading[];
  /** Block identifiers (`^id` at the end of a line), without the caret. */
  blockIds: string[];
  /** Tags written in the body as `#tag` (outside code), without the hash. */
  inlineTags: string[];
}

/** Start offset of every line (a line ends after `\n`); the split read_page pages by. */
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

const BLOCK_ID_RE = /(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$/;
const TAG_RE = /(^|[\s(,;])#([\p{L}\p{N}_/-]+)/gu;

function frontMatterData(yamlText: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = parseYaml(yamlText, { maxAliasCount: 100 });
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
    return parsed === null || parsed === undefined ? {} : null;
  } catch {
    return null;
  }
}

/**
 * The structure of a page as `@lectern/markdown` reads it (the same headings, front matter
 * and code blocks as docs_outline and memory citations), plus what only a wiki looks for:
 * the front matter's YAML, block identifiers and `#tags` outside code. Linear in the page.
 */
export function scanMarkdown(text: string): MarkdownStructure {
  const { scan } = outlineOf(text);
  const lineStarts = computeLineStarts(text);
  const lineStart = (line: number) => lineStarts[line - 1] ?? text.length;
  const fm = scan.frontMatter;
  const frontMatter: FrontMatter | null = fm
    ? {
        span: { start: 0, end: lineStart(fm.endLine + 1) },
        data: frontMatterData(text.slice(lineStart(2), lineStart(fm.endLine))),
      }
    : null;
  const code = codeSpans(text, {
    lineStarts,
    blocks: scan.blocks,
    frontMatter: fm,
    headings: scan.headings,
  });
  const headings = scan.headings.map((h) => ({
    level: h.level,
    text: h.text,
    source: headingSource(text, lineStarts, h),
    line: h.line,
  }));
  const bodyStart = frontMatter ? frontMatter.span.end : 0;
  const blockIds: string[] = [];
  let h = 0;
  for (let line = fm ? fm.endLine + 1 : 1; line <= lineStarts.length; line++) {
    while (h < scan.headings.length && scan.headings[h]!.endLine < line) h++;
    if (h < scan.headings.length && scan.headings[h]!.line <= line) continue;
    const start = lineStart(line);
    if (inSpans(code, start)) continue;
    let end = lineStart(line + 1);
    while (end > start && (text.charCodeAt(end - 1) === 10 || text.charCodeAt(end - 1) === 13)) {
      end--;
    }
    const raw = text.slice(start, end);
    const id = BLOCK_ID_RE.exec(raw);
    if (id && !inSpans(code, start + id.index + id[0].indexOf('^'))) blockIds.push(id[1]!);
  }
  const inlineTags = new Set<string>();
  const body = text.slice(bodyStart);
  if (body.includes('#')) {
    for (const m of body.matchAll(TAG_RE)) {
      const at = bodyStart + m.index! + m[1]!.length;
      const tag = m[2]!.replace(/[/-]+$/, '');
      if (!/[^\d]/u.test(tag) || inSpans(code, at)) continue;
      inlineTags.add(tag);
    }
  }
  return { lineStarts, frontMatter, code, headings, blockIds, inlineTags: [...inlineTags] };
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
