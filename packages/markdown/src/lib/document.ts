import GithubSlugger, { slug as slugOf } from 'github-slugger';
import { toString as mdastToString } from 'mdast-util-to-string';
import {
  REMARK_DOCUMENT_CHARS,
  REMARK_TOTAL_CHARS,
  REMARK_WINDOW_CHARS,
  remarkAffordable,
} from './budget.js';
import type { BlockRange, OutlineScan, RawHeading } from './headings.js';
import { computeLineStarts } from './lines.js';
import { blocksOf, parseMdast, remarkOutline } from './remark.js';
import { atxContent, replaceNul, scanFrom, textFacts } from './scanner.js';

export { computeLineStarts };

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
  /** Code blocks and tables at any depth, in document order. */
  blocks: BlockRange[];
  /** `scanner`, `remark`, or `mixed` when remark decided some windows the scanner could not. */
  parser: ParserUsed;
  /** False when a bound decided part of the outline (see {@link Outline.exact}). */
  exact: boolean;
  /** Text of the first level-1 heading, else of the first heading, else null. */
  title: string | null;
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

/** An outline and how it was decided. */
export interface Outline {
  scan: OutlineScan;
  /** `scanner`, `remark`, or `mixed` when remark decided some windows the scanner could not. */
  parser: ParserUsed;
  /**
   * False when a bound decided part of it: nesting past `MAX_NESTING` read as text, or
   * a stretch remark would have been too slow on decided by the scanner alone. Such an outline
   * can differ from remark's; true means it is remark's exactly.
   */
  exact: boolean;
}

const SAFE_START = /^[A-Za-z#]/;

/**
 * Lets remark decide the window of lines from `startLine` (offset `startPos`, a clean parser
 * state) to a boundary after `unsureLine`: a line starting at column 0 with a letter or `#`
 * right after a blank line, at which remark's top-level blocks of the window have all ended
 * (so nothing before it can continue past it, and nothing after it can reach back). Windows
 * grow until such a boundary verifies or the document ends. Returns null when a heading of
 * the window might need a link definition from elsewhere (then remark must see it all), and
 * `{ tooHard }` (the window's last line) when the window would pass `maxChars` or is text
 * remark is slow on.
 */
function remarkWindow(
  text: string,
  lineStarts: number[],
  startLine: number,
  unsureLine: number,
  hasDefinitions: boolean,
  maxChars: number,
  prefix: string,
):
  | { headings: OutlineScan['headings']; blocks: BlockRange[]; endLine: number; chars: number }
  | null
  | { tooHard: number } {
  const total = lineStarts.length;
  const lineAt = (l: number) =>
    text.slice(lineStarts[l - 1]!, lineEndOffset({ text, lineStarts }, l));
  const startOffset = lineStarts[startLine - 1]!;
  let minEnd = Math.max(unsureLine + 1, startLine + 1);
  let span = 64;
  for (;;) {
    let c = minEnd;
    while (
      c <= total &&
      !(c - startLine >= span && SAFE_START.test(lineAt(c)) && lineAt(c - 1).trim() === '') &&
      lineStarts[c - 1]! - startOffset <= maxChars
    ) {
      c++;
    }
    const endOffset = c <= total ? lineStarts[c - 1]! : text.length;
    const windowText = text.slice(startOffset, endOffset);
    if (!remarkAffordable(windowText, maxChars)) return { tooHard: c - 1 };
    const tree = parseMdast(prefix + windowText);
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
      return {
        headings,
        blocks: blocksOf(tree, prefix + windowText, shift),
        endLine: Math.min(c, total + 1),
        chars: windowText.length,
      };
    }
    minEnd = c + 1;
    span *= 2;
  }
}

/**
 * Finds the outline of `text`: the fast scanner where it is sure, remark for the windows it
 * is not (or for everything, with `forceRemark`). Either way the result is remark's, except
 * where a bound applies (see {@link Outline.exact}): remark is never given text it is slow
 * on, so the time taken stays linear in the length of the text.
 */
export function outlineOf(text: string, options: { forceRemark?: boolean } = {}): Outline {
  const clean = replaceNul(text);
  if (options.forceRemark) return { scan: remarkOutline(clean), parser: 'remark', exact: true };
  const facts = textFacts(clean);
  const whole = (): Outline => {
    if (remarkAffordable(clean, REMARK_DOCUMENT_CHARS)) {
      return { scan: remarkOutline(clean), parser: 'remark', exact: true };
    }
    const all = scanFrom(clean, 0, 1, { lenientUntil: Number.POSITIVE_INFINITY, facts });
    return {
      scan: { headings: all.headings, frontMatter: all.frontMatter, blocks: all.blocks },
      parser: 'scanner',
      exact: false,
    };
  };
  let step = scanFrom(clean, 0, 1, { facts });
  if (step.done) {
    return {
      scan: { headings: step.headings, frontMatter: step.frontMatter, blocks: step.blocks },
      parser: 'scanner',
      exact: !step.inexact,
    };
  }
  if (step.global) return whole();
  const lineStarts = computeLineStarts(clean);
  const hasDefinitions = facts.hasDefinitions;
  const frontMatter = step.frontMatter;
  // A line before the window keeps a window that starts with `---` from reading as front
  // matter. After an unclosed front matter fence (no `---` line anywhere), that line is such
  // a fence again, so remark reads the window in the state it reads the document in.
  const prefix = frontMatter === null && /^---[ \t]*[\r\n]/.test(clean) ? '---\n' : '\n';
  const headings = [...step.headings];
  const blocks = [...step.blocks];
  let inexact = step.inexact;
  let usedRemark = false;
  let budget = REMARK_TOTAL_CHARS;
  for (;;) {
    const w =
      budget > 0
        ? remarkWindow(
            clean,
            lineStarts,
            step.cleanLine,
            step.unsureLine,
            hasDefinitions,
            Math.min(REMARK_WINDOW_CHARS, budget),
            prefix,
          )
        : { tooHard: Number.POSITIVE_INFINITY };
    if (w === null) return whole();
    if ('tooHard' in w) {
      // the scanner decides the stretch remark would have had itself, by the reference
      // algorithm (once remark's budget is spent, the rest of the document)
      step = scanFrom(clean, step.cleanPos, step.cleanLine, {
        lenientUntil: Math.max(step.unsureLine, w.tooHard),
        facts,
      });
      inexact = true;
    } else {
      usedRemark = true;
      budget -= w.chars;
      headings.push(...w.headings);
      blocks.push(...w.blocks);
      if (w.endLine > lineStarts.length) break;
      step = scanFrom(clean, lineStarts[w.endLine - 1]!, w.endLine, { facts });
    }
    if (!step.done && step.global) return whole();
    headings.push(...step.headings);
    blocks.push(...step.blocks);
    inexact ||= step.inexact;
    if (step.done) break;
  }
  return {
    scan: { headings, frontMatter, blocks },
    parser: usedRemark ? 'mixed' : 'scanner',
    exact: !inexact,
  };
}

/**
 * The inline Markdown of a top-level heading as written: an ATX heading's content without
 * its `#` sequences, or a setext heading's lines without the underline, trimmed and joined
 * with a space. `lineStarts` are the text's (see {@link computeLineStarts}).
 */
export function headingSource(
  text: string,
  lineStarts: readonly number[],
  heading: Pick<RawHeading, 'line' | 'endLine'>,
): string {
  const lineOf = (l: number) => {
    const from = lineStarts[l - 1] ?? text.length;
    let to = lineStarts[l] ?? text.length;
    while (to > from && (text.charCodeAt(to - 1) === 10 || text.charCodeAt(to - 1) === 13)) to--;
    return text.slice(from, to);
  };
  if (heading.endLine === heading.line) {
    const line = lineOf(heading.line);
    const at = line.indexOf('#');
    let i = at;
    while (line.charCodeAt(i) === 35) i++;
    return atxContent(line.slice(i)).trim();
  }
  const parts: string[] = [];
  for (let l = heading.line; l < heading.endLine; l++) parts.push(lineOf(l).trim());
  return parts.join(' ');
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
  return documentFrom(text, outlineOf(text, options));
}

/** The section model of `text` (no BOM) from its outline. Linear in the text. */
export function documentFrom(text: string, outline: Outline): DocModel {
  const { scan, parser, exact } = outline;
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
    blocks: scan.blocks,
    parser,
    exact,
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
