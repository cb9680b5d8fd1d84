import { outlineOf } from './document.js';
import type { OutlineScan } from './headings.js';

/** One indexed piece of a file: a 1-based, inclusive line range under a heading path. */
export interface LineChunk {
  /** First line of the chunk, 1-based. */
  startLine: number;
  /** Last line of the chunk, 1-based, inclusive. */
  endLine: number;
  /** Headings enclosing the chunk, outermost first, joined with ` > ` (`''` when none). */
  headingPath: string;
  /** The chunk's lines joined with `\n` (line endings normalised). */
  text: string;
}

/** Options of {@link chunkLines}. */
export interface LineChunkOptions {
  /** Read the lines as Markdown: headings, front matter, code blocks and tables (default true). */
  markdown?: boolean;
  /** Most words in one chunk before it is split at a paragraph, then a line (default 250). */
  maxWords?: number;
}

/** Default most words per chunk. */
export const DEFAULT_MAX_CHUNK_WORDS = 250;

/** Separator between the headings of a heading path. */
export const HEADING_SEPARATOR = ' > ';

interface Block {
  start: number; // 0-based line index
  end: number; // 0-based, inclusive
  words: number;
  heading?: { level: number; title: string };
}

function countWords(line: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    const space = c === 32 || c === 9 || c === 13 || c === 10 || c === 0xa0;
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      n++;
    }
  }
  return n;
}

function blank(line: string): boolean {
  return line.trim() === '';
}

/**
 * The Markdown structure of `lines` as {@link outlineOf} finds it in the text they make when
 * joined with `\n`. A lone CR inside a line reads as a space, so a line here is a line there.
 */
function structureOf(lines: readonly string[]): OutlineScan {
  const text = lines.map((l) => (l.includes('\r') ? l.replaceAll('\r', ' ') : l)).join('\n');
  return outlineOf(text).scan;
}

/**
 * Splits lines into blocks: the front matter, headings, code blocks and tables (whole), and
 * paragraphs (non-blank lines up to a blank line, a heading or a code block).
 */
function toBlocks(lines: readonly string[], markdown: boolean, wordsOf: number[]): Block[] {
  const blocks: Block[] = [];
  const n = lines.length;
  const sum = (a: number, b: number) => {
    let w = 0;
    for (let k = a; k <= b; k++) w += wordsOf[k]!;
    return w;
  };
  const scan: OutlineScan = markdown
    ? structureOf(lines)
    : { headings: [], frontMatter: null, blocks: [] };
  // 0-based line index -> what starts there
  const headingAt = new Map(scan.headings.map((h) => [h.line - 1, h]));
  const rangeAt = new Map(scan.blocks.map((r) => [r.startLine - 1, r.endLine - 1]));
  let i = 0;
  if (scan.frontMatter) {
    const end = scan.frontMatter.endLine - 1;
    blocks.push({ start: 0, end, words: sum(0, end) });
    i = end + 1;
  }
  while (i < n) {
    if (blank(lines[i]!)) {
      i++;
      continue;
    }
    const heading = headingAt.get(i);
    if (heading) {
      const end = heading.endLine - 1;
      blocks.push({
        start: i,
        end,
        words: wordsOf[i]!,
        heading: { level: heading.level, title: heading.text.replace(/\s+/g, ' ').trim() },
      });
      i = end + 1;
      continue;
    }
    const rangeEnd = rangeAt.get(i);
    if (rangeEnd !== undefined) {
      const end = Math.min(rangeEnd, n - 1);
      blocks.push({ start: i, end, words: sum(i, end) });
      i = end + 1;
      continue;
    }
    // A paragraph: consecutive non-blank lines, stopping before a heading or a code block.
    let k = i;
    while (k + 1 < n && !blank(lines[k + 1]!) && !headingAt.has(k + 1) && !rangeAt.has(k + 1)) {
      k++;
    }
    blocks.push({ start: i, end: k, words: sum(i, k) });
    i = k + 1;
  }
  return blocks;
}

/**
 * Splits a file's lines into chunks along headings and paragraphs. Every chunk starts a new
 * section at a heading; within a section, paragraphs (and code blocks and tables, kept whole when
 * they fit) are gathered until the next one would exceed `maxWords`; a single block longer than
 * that is cut between lines. Blank lines between blocks stay inside the chunk, so ranges are
 * contiguous. Returns no chunk for a file with no non-blank line.
 */
export function chunkLines(lines: readonly string[], options: LineChunkOptions = {}): LineChunk[] {
  const markdown = options.markdown ?? true;
  const maxWords = Math.max(1, options.maxWords ?? DEFAULT_MAX_CHUNK_WORDS);
  const wordsOf = lines.map(countWords);
  const blocks = toBlocks(lines, markdown, wordsOf);
  const chunks: LineChunk[] = [];
  const stack: Array<{ level: number; title: string }> = [];
  let headingPath = '';
  let start = -1;
  let end = -1;
  let words = 0;

  const flush = () => {
    if (start < 0) return;
    chunks.push({
      startLine: start + 1,
      endLine: end + 1,
      headingPath,
      text: lines.slice(start, end + 1).join('\n'),
    });
    start = -1;
    end = -1;
    words = 0;
  };
  const add = (s: number, e: number, w: number) => {
    if (start < 0) start = s;
    end = e;
    words += w;
  };

  for (const block of blocks) {
    if (block.heading) {
      flush();
      while (stack.length > 0 && stack[stack.length - 1]!.level >= block.heading.level) stack.pop();
      stack.push(block.heading);
      headingPath = stack
        .map((h) => h.title)
        .filter((t) => t !== '')
        .join(HEADING_SEPARATOR);
      add(block.start, block.end, block.words);
      continue;
    }
    if (start >= 0 && words + block.words > maxWords) {
      // Keep a heading with the first paragraph below it when the two fit.
      flush();
    }
    if (block.words <= maxWords) {
      add(block.start, block.end, block.words);
      continue;
    }
    // A block too long on its own: cut it between lines.
    for (let k = block.start; k <= block.end; k++) {
      const w = wordsOf[k]!;
      if (start >= 0 && words + w > maxWords) flush();
      add(k, k, w);
    }
  }
  flush();
  return chunks;
}

/** True when a path names a Markdown file (by extension). */
export function isMarkdownPath(path: string): boolean {
  return /\.(md|markdown|mdown|mkd|mdx)$/i.test(path);
}
