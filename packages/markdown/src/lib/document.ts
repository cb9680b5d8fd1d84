import GithubSlugger, { slug as slugOf } from 'github-slugger';
import { toString as mdastToString } from 'mdast-util-to-string';
import type { OutlineScan } from './headings.js';
import { parseMdast, remarkOutline } from './remark.js';
import { scanFrom } from './scanner.js';

/** One heading of a document and the section it opens. Lines are 1-based and inclusive. */
export interface Section {
  /** Position in {@link DocModel.sections}. */
  index: number;
  /** GitHub-style slug, unique in the document (`install`, `install-1`, ...). */
  slug: string;
  /** 1 to 6. */
  level: number;
  /** Plain heading text. */
  heading: string;
  /** Headings from the outermost ancestor down to this one. */
  headingPath: string[];
  /** Index of the enclosing section, or -1. */
  parent: number;
  /** Line of the heading. */
  startLine: number;
  /** Last line of the section with its subsections (trailing blank lines dropped). */
  endLine: number;
  /** Last line before the next heading of any level (trailing blank lines dropped). */
  ownEndLine: number;
}

/** A parsed document: its text, line table, sections and how it was parsed. */
export interface DocModel {
  text: string;
  /** Offset where each line starts (index 0 is line 1). */
  lineStarts: number[];
  totalLines: number;
  sections: Section[];
  frontMatter: { startLine: number; endLine: number } | null;
  /** `scanner`, `remark`, or `mixed` when remark decided some windows the scanner could not. */
  parser: ParserUsed;
  /** Text of the first level-1 heading, else of the first heading, else null. */
  title: string | null;
}

/**
 * Line starts using CommonMark's line endings (`\n`, `\r\n` and a lone `\r`). A final line
 * break does not start another line: `"a\n"` has one line, `""` none.
 */
export function computeLineStarts(text: string): number[] {
  const starts: number[] = [];
  const n = text.length;
  if (n === 0) return starts;
  starts.push(0);
  if (!text.includes('\r')) {
    let i = text.indexOf('\n');
    while (i !== -1 && i + 1 < n) {
      starts.push(i + 1);
      i = text.indexOf('\n', i + 1);
    }
    return starts;
  }
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      if (i + 1 < n) starts.push(i + 1);
    }
  }
  return starts;
}

/** Offset just past the last character of `line` (1-based), before its line break. */
export function lineEndOffset(doc: Pick<DocModel, 'text' | 'lineStarts'>, line: number): number {
  const next = doc.lineStarts[line];
  let end = next === undefined ? doc.text.length : next;
  if (end > 0 && doc.text.charCodeAt(end - 1) === 10) end--;
  if (end > 0 && doc.text.charCodeAt(end - 1) === 13) end--;
  return end;
}

/** Offset where `line` (1-based) starts; the text length for a line past the end. */
export function lineStartOffset(doc: Pick<DocModel, 'text' | 'lineStarts'>, line: number): number {
  return doc.lineStarts[line - 1] ?? doc.text.length;
}

function isBlankLine(doc: Pick<DocModel, 'text' | 'lineStarts'>, line: number): boolean {
  const text = doc.text;
  const end = lineEndOffset(doc, line);
  for (let i = lineStartOffset(doc, line); i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/** Drops trailing blank lines from `first..last`; returns the new last line (>= first - 1). */
export function trimBlankTail(
  doc: Pick<DocModel, 'text' | 'lineStarts'>,
  first: number,
  last: number,
): number {
  let end = last;
  while (end >= first && isBlankLine(doc, end)) end--;
  return end;
}

/** Which parser decided a document's outline. */
export type ParserUsed = 'scanner' | 'remark' | 'mixed';

const SAFE_START = /^[A-Za-z#]/;

/**
 * Lets remark decide the window of lines from `startLine` (offset `startPos`, a clean parser
 * state) to a boundary after `unsureLine`: a line starting at column 0 with a letter or `#`
 * right after a blank line, at which remark's top-level blocks of the window have all ended
 * (so nothing before it can continue past it, and nothing after it can reach back). Windows
 * grow until such a boundary verifies or the document ends. Returns null when a heading of
 * the window might need a link definition from elsewhere (then remark must see it all).
 */
function remarkWindow(
  text: string,
  lineStarts: number[],
  startLine: number,
  unsureLine: number,
  hasDefinitions: boolean,
): { headings: OutlineScan['headings']; endLine: number } | null {
  const total = lineStarts.length;
  const lineAt = (l: number) =>
    text.slice(lineStarts[l - 1]!, lineEndOffset({ text, lineStarts }, l));
  let minEnd = Math.max(unsureLine + 1, startLine + 1);
  let span = 64;
  for (;;) {
    let c = minEnd;
    while (
      c <= total &&
      !(c - startLine >= span && SAFE_START.test(lineAt(c)) && lineAt(c - 1).trim() === '')
    ) {
      c++;
    }
    const endOffset = c <= total ? lineStarts[c - 1]! : text.length;
    // a leading blank line keeps a window that starts with `---` from reading as front matter
    const tree = parseMdast(`\n${text.slice(lineStarts[startLine - 1]!, endOffset)}`);
    const shift = startLine - 2;
    const lastWindowLine = c - 1;
    const ended = tree.children.every(
      (node) => (node.position?.end.line ?? 0) + shift < lastWindowLine,
    );
    if (c > total || ended) {
      const headings: OutlineScan['headings'] = [];
      for (const node of tree.children) {
        if (node.type !== 'heading' || !node.position) continue;
        const line = node.position.start.line + shift;
        const endLine = node.position.end.line + shift;
        if (hasDefinitions) {
          const source = text.slice(
            lineStarts[line - 1]!,
            lineEndOffset({ text, lineStarts }, endLine),
          );
          if (source.includes('[') || source.includes(']')) return null;
        }
        headings.push({ level: node.depth, text: mdastToString(node), line, endLine });
      }
      return { headings, endLine: Math.min(c, total + 1) };
    }
    minEnd = c + 1;
    span *= 2;
  }
}

/**
 * Finds the outline of `text`: the fast scanner where it is sure, remark for the windows it
 * is not (or for everything, with `forceRemark`). Either way the result is remark's.
 */
export function outlineOf(
  text: string,
  options: { forceRemark?: boolean } = {},
): { scan: OutlineScan; parser: ParserUsed } {
  if (options.forceRemark) return { scan: remarkOutline(text), parser: 'remark' };
  let step = scanFrom(text);
  if (step.done)
    return { scan: { headings: step.headings, frontMatter: step.frontMatter }, parser: 'scanner' };
  if (step.global) return { scan: remarkOutline(text), parser: 'remark' };
  const lineStarts = computeLineStarts(text);
  const hasDefinitions = text.includes(']:');
  const frontMatter = step.frontMatter;
  const headings = [...step.headings];
  for (;;) {
    const w = remarkWindow(text, lineStarts, step.cleanLine, step.unsureLine, hasDefinitions);
    if (w === null) return { scan: remarkOutline(text), parser: 'remark' };
    headings.push(...w.headings);
    if (w.endLine > lineStarts.length) break;
    step = scanFrom(text, lineStarts[w.endLine - 1]!, w.endLine, true);
    if (!step.done && step.global) return { scan: remarkOutline(text), parser: 'remark' };
    headings.push(...step.headings);
    if (step.done) break;
  }
  return { scan: { headings, frontMatter }, parser: 'mixed' };
}

/** The anchor slug of each heading text, numbered like GitHub (`-1`, `-2` for repeats). */
export function slugsFor(texts: readonly string[]): string[] {
  const slugger = new GithubSlugger();
  // A heading whose text leaves no slug characters (e.g. only emoji) is called `section`.
  return texts.map((t) => slugger.slug(slugOf(t) === '' ? 'section' : t));
}

/** Builds the section model of a document (strips a leading BOM first). */
export function buildDocument(input: string, options: { forceRemark?: boolean } = {}): DocModel {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const { scan, parser } = outlineOf(text, options);
  const lineStarts = computeLineStarts(text);
  const totalLines = lineStarts.length;
  const doc = { text, lineStarts };
  const slugs = slugsFor(scan.headings.map((h) => h.text));
  const sections: Section[] = [];
  const stack: Section[] = [];
  scan.headings.forEach((h, i) => {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= h.level) stack.pop();
    const parent = stack[stack.length - 1];
    const section: Section = {
      index: i,
      slug: slugs[i]!,
      level: h.level,
      heading: h.text,
      headingPath: parent ? [...parent.headingPath, h.text] : [h.text],
      parent: parent ? parent.index : -1,
      startLine: h.line,
      endLine: 0,
      ownEndLine: 0,
    };
    sections.push(section);
    stack.push(section);
  });
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i]!;
    const nextAny = sections[i + 1];
    let j = i + 1;
    while (j < sections.length && sections[j]!.level > s.level) j++;
    const nextSame = sections[j];
    const headingEnd = scan.headings[i]!.endLine;
    const ownLast = nextAny ? nextAny.startLine - 1 : totalLines;
    const last = nextSame ? nextSame.startLine - 1 : totalLines;
    s.ownEndLine = Math.max(headingEnd, trimBlankTail(doc, s.startLine, ownLast));
    s.endLine = Math.max(headingEnd, trimBlankTail(doc, s.startLine, last));
  }
  const firstH1 = sections.find((s) => s.level === 1);
  return {
    text,
    lineStarts,
    totalLines,
    sections,
    frontMatter: scan.frontMatter,
    parser,
    title: firstH1?.heading ?? sections[0]?.heading ?? null,
  };
}

/** A range of a document as content: its lines and text. */
export interface Extract {
  startLine: number;
  endLine: number;
  content: string;
}

/** The original Markdown of lines `first..last` (inclusive, no final line break). */
export function extractLines(doc: DocModel, first: number, last: number): Extract {
  if (last < first) return { startLine: first, endLine: first - 1, content: '' };
  return {
    startLine: first,
    endLine: last,
    content: doc.text.slice(lineStartOffset(doc, first), lineEndOffset(doc, last)),
  };
}

/** The content of a section, with or without its subsections. */
export function sectionExtract(doc: DocModel, s: Section, includeSubsections: boolean): Extract {
  return extractLines(doc, s.startLine, includeSubsections ? s.endLine : s.ownEndLine);
}

/** The whole document, or with `includeSubsections` false only what precedes the first heading. */
export function rootExtract(doc: DocModel, includeSubsections: boolean): Extract {
  const first = doc.sections[0];
  const last = includeSubsections || !first ? doc.totalLines : Math.max(0, first.startLine - 1);
  return extractLines(doc, 1, trimBlankTail(doc, 1, last));
}

/** The innermost section containing `line`, or null when the line precedes every heading. */
export function sectionAtLine(doc: DocModel, line: number): Section | null {
  let found: Section | null = null;
  for (const s of doc.sections) {
    if (s.startLine > line) break;
    found = s;
  }
  // `found` is the last heading at or before the line; it encloses the line (sections run to
  // the next heading), so it is the innermost one.
  return found;
}
