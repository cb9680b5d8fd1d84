/** One indexed piece of a file: a 1-based, inclusive line range under a heading path. */
export interface Chunk {
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
export interface ChunkOptions {
  /** Treat `#` headings, setext headings and code fences as Markdown structure (default true). */
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

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT_H1 = /^ {0,3}=+[ \t]*$/;
const SETEXT_H2 = /^ {0,3}-+[ \t]*$/;

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

function cleanHeading(title: string): string {
  return title
    .replace(/\s+#+\s*$/, '')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function blank(line: string): boolean {
  return line.trim() === '';
}

/** Splits lines into blocks: headings, fenced code, front matter and paragraphs. */
function toBlocks(lines: readonly string[], markdown: boolean, wordsOf: number[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  const n = lines.length;
  const sum = (a: number, b: number) => {
    let w = 0;
    for (let k = a; k <= b; k++) w += wordsOf[k]!;
    return w;
  };
  // YAML front matter at the very start of a Markdown file.
  if (markdown && n > 0 && lines[0]!.trim() === '---') {
    for (let k = 1; k < n; k++) {
      const t = lines[k]!.trim();
      if (t === '---' || t === '...') {
        blocks.push({ start: 0, end: k, words: sum(0, k) });
        i = k + 1;
        break;
      }
    }
  }
  while (i < n) {
    const line = lines[i]!;
    if (blank(line)) {
      i++;
      continue;
    }
    if (markdown) {
      const atx = ATX.exec(line);
      if (atx) {
        blocks.push({
          start: i,
          end: i,
          words: wordsOf[i]!,
          heading: { level: atx[1]!.length, title: cleanHeading(atx[2] ?? '') },
        });
        i++;
        continue;
      }
      const fence = FENCE.exec(line);
      if (fence) {
        const marker = fence[1]!;
        let k = i + 1;
        while (k < n) {
          const close = FENCE.exec(lines[k]!);
          if (
            close &&
            close[1]![0] === marker[0] &&
            close[1]!.length >= marker.length &&
            lines[k]!.trim() === close[1]
          )
            break;
          k++;
        }
        const end = Math.min(k, n - 1);
        blocks.push({ start: i, end, words: sum(i, end) });
        i = end + 1;
        continue;
      }
    }
    // A paragraph: consecutive non-blank lines, stopping before a heading or a fence.
    let k = i;
    while (k + 1 < n && !blank(lines[k + 1]!)) {
      const next = lines[k + 1]!;
      if (markdown && (ATX.test(next) || FENCE.test(next))) break;
      if (markdown && k === i && (SETEXT_H1.test(next) || SETEXT_H2.test(next))) break;
      k++;
    }
    if (markdown && k === i && k + 1 < n) {
      const under = lines[k + 1]!;
      const level = SETEXT_H1.test(under) ? 1 : SETEXT_H2.test(under) ? 2 : 0;
      if (level > 0 && !SETEXT_H2.test(line)) {
        blocks.push({
          start: i,
          end: k + 1,
          words: wordsOf[i]!,
          heading: { level, title: cleanHeading(line) },
        });
        i = k + 2;
        continue;
      }
    }
    blocks.push({ start: i, end: k, words: sum(i, k) });
    i = k + 1;
  }
  return blocks;
}

/**
 * Splits a file's lines into chunks along headings and paragraphs. Every chunk starts a new
 * section at a heading; within a section, paragraphs (and fenced code blocks, kept whole when
 * they fit) are gathered until the next one would exceed `maxWords`; a single block longer than
 * that is cut between lines. Blank lines between blocks stay inside the chunk, so ranges are
 * contiguous. Returns no chunk for a file with no non-blank line.
 */
export function chunkLines(lines: readonly string[], options: ChunkOptions = {}): Chunk[] {
  const markdown = options.markdown ?? true;
  const maxWords = Math.max(1, options.maxWords ?? DEFAULT_MAX_CHUNK_WORDS);
  const wordsOf = lines.map(countWords);
  const blocks = toBlocks(lines, markdown, wordsOf);
  const chunks: Chunk[] = [];
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
