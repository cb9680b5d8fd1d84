import type { DocModel, Section } from './document.js';
import { lineEndOffset, lineStartOffset, trimBlankTail } from './document.js';

/** One chunk of a document. Lines are 1-based and inclusive. */
export interface Chunk {
  /** Section the chunk belongs to, or -1 for text before the first heading. */
  section: number;
  startLine: number;
  endLine: number;
  text: string;
  /** True when one code fence or table alone is larger than the budget (never cut). */
  oversized: boolean;
}

interface Block {
  first: number;
  last: number;
  chars: number;
  /** A fenced code block or a table: never split. */
  atomic: boolean;
}

function lineText(doc: DocModel, line: number): string {
  return doc.text.slice(lineStartOffset(doc, line), lineEndOffset(doc, line));
}

function span(doc: DocModel, first: number, last: number): number {
  return lineEndOffset(doc, last) - lineStartOffset(doc, first);
}

/** Index of the first of `doc.blocks` that ends at or after `line` (binary search). */
function firstBlockEndingFrom(doc: DocModel, line: number): number {
  let lo = 0;
  let hi = doc.blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (doc.blocks[mid]!.endLine < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Cuts lines `first..last` into blocks separated by blank lines. A code block or table (as
 * the document's outline found them, at any depth) is never cut: the block that reaches one
 * runs on to its last line, across blank lines, and is marked atomic.
 */
function blocksOf(doc: DocModel, first: number, last: number): Block[] {
  const blocks: Block[] = [];
  let next = firstBlockEndingFrom(doc, first);
  let l = first;
  while (l <= last) {
    while (l <= last && lineText(doc, l).trim() === '') l++;
    if (l > last) break;
    const start = l;
    let atomic = false;
    while (l <= last) {
      const range = doc.blocks[next];
      if (range && range.startLine <= l) {
        atomic = true;
        l = Math.max(l, range.endLine + 1);
        next++;
        continue;
      }
      if (lineText(doc, l).trim() === '') break;
      l++;
    }
    const end = Math.min(l - 1, last);
    blocks.push({ first: start, last: end, chars: span(doc, start, end), atomic });
  }
  return blocks;
}

function pushChunk(
  out: Chunk[],
  doc: DocModel,
  section: number,
  first: number,
  last: number,
  oversized = false,
) {
  out.push({
    section,
    startLine: first,
    endLine: last,
    text: doc.text.slice(lineStartOffset(doc, first), lineEndOffset(doc, last)),
    oversized,
  });
}

/** Splits one over-budget block that may be cut: at line boundaries, then inside long lines. */
function splitBlock(out: Chunk[], doc: DocModel, section: number, b: Block, max: number): void {
  let first = b.first;
  for (let l = b.first; l <= b.last; l++) {
    const lineChars = span(doc, l, l);
    if (lineChars > max) {
      if (l > first) pushChunk(out, doc, section, first, l - 1);
      // one line longer than the budget: cut it at character boundaries (not inside a pair)
      const text = lineText(doc, l);
      let at = 0;
      while (at < text.length) {
        let end = Math.min(text.length, at + max);
        const c = text.charCodeAt(end - 1);
        if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
        out.push({
          section,
          startLine: l,
          endLine: l,
          text: text.slice(at, end),
          oversized: false,
        });
        at = end;
      }
      first = l + 1;
      continue;
    }
    if (span(doc, first, l) > max) {
      pushChunk(out, doc, section, first, l - 1);
      first = l;
    }
  }
  if (first <= b.last) pushChunk(out, doc, section, first, b.last);
}

/** Packs the blocks of lines `first..last` greedily into chunks of at most `max` characters. */
function packRange(
  out: Chunk[],
  doc: DocModel,
  section: number,
  first: number,
  last: number,
  max: number,
): void {
  const blocks = blocksOf(doc, first, last);
  let cur: Block | null = null;
  const flush = () => {
    if (cur) pushChunk(out, doc, section, cur.first, cur.last);
    cur = null;
  };
  for (const b of blocks) {
    if (cur && span(doc, (cur as Block).first, b.last) <= max) {
      (cur as Block).last = b.last;
      continue;
    }
    flush();
    if (b.chars <= max) {
      cur = { ...b };
    } else if (b.atomic) {
      pushChunk(out, doc, section, b.first, b.last, true);
    } else {
      splitBlock(out, doc, section, b, max);
    }
  }
  flush();
}

/**
 * Splits a document into chunks of at most `max` characters along its headings: a section that
 * fits with its subsections is one chunk; a larger one yields its own text together with as
 * many of its first subsections as fit (or, when its own text alone is too large, that text
 * split at blank lines, never inside a code fence or table), then its other subsections,
 * recursively. Front matter is left out.
 */
export function chunkDocument(doc: DocModel, max: number): Chunk[] {
  const out: Chunk[] = [];
  const bodyFirst = doc.frontMatter ? doc.frontMatter.endLine + 1 : 1;
  const firstHeading = doc.sections[0];
  const preLast = trimBlankTail(
    doc,
    bodyFirst,
    firstHeading ? firstHeading.startLine - 1 : doc.totalLines,
  );
  if (preLast >= bodyFirst) packRange(out, doc, -1, bodyFirst, preLast, max);
  const children = new Map<number, Section[]>();
  for (const s of doc.sections) {
    const list = children.get(s.parent) ?? [];
    list.push(s);
    children.set(s.parent, list);
  }
  const emit = (s: Section) => {
    if (span(doc, s.startLine, s.endLine) <= max) {
      pushChunk(out, doc, s.index, s.startLine, s.endLine);
      return;
    }
    const kids = children.get(s.index) ?? [];
    let k = 0;
    if (span(doc, s.startLine, s.ownEndLine) <= max) {
      // the section's own text travels with as many whole subsections as still fit, so a
      // heading with a short intro does not become a chunk of its own
      let end = s.ownEndLine;
      while (k < kids.length && span(doc, s.startLine, kids[k]!.endLine) <= max) {
        end = kids[k]!.endLine;
        k++;
      }
      pushChunk(out, doc, s.index, s.startLine, end);
    } else {
      packRange(out, doc, s.index, s.startLine, s.ownEndLine, max);
    }
    for (; k < kids.length; k++) emit(kids[k]!);
  };
  for (const s of children.get(-1) ?? []) emit(s);
  return out;
}
