import {
  type BlockRange,
  type DocModel,
  lineEndOffset,
  lineStartOffset,
  type ParserUsed,
  rootExtract,
  type Section,
} from '@lectern/markdown';

/*
 * What the index keeps of a parsed document instead of its text: the outline, a few figures
 * the tools report, and where each line starts in the file, so any range of lines can be read
 * back from disk on demand.
 */

/** The outline of a document and what the tools report about it, without its text. */
export interface DocOutline {
  /** Headings and the sections they open, in document order. */
  sections: Section[];
  /** Text of the first level-1 heading, else of the first heading, else null. */
  title: string | null;
  totalLines: number;
  /** Length of the text in UTF-16 code units. */
  chars: number;
  frontMatter: { startLine: number; endLine: number } | null;
  /** `scanner`, `remark`, or `mixed` when remark decided some windows the scanner could not. */
  parser: ParserUsed;
  /** False when a bound decided part of the outline. */
  exact: boolean;
  /** Characters of each section with its subsections, by section index. */
  sectionChars: Float64Array;
  /**
   * Where each section's heading line starts in the text, in characters, by section index: the
   * offset in docs_read of the whole document that reads on past a cut heading.
   */
  sectionStarts: Float64Array;
  /** Last line of the document's text, trailing blank lines dropped (0 when empty). */
  rootEndLine: number;
  /** Last line of the text before the first heading, trailing blank lines dropped. */
  rootOwnEndLine: number;
}

/** Where the lines of a document are in its file, in bytes. */
export interface LineTable {
  /** Byte offset of each line's start (index 0 is line 1). */
  starts: Uint32Array | Float64Array;
  /** Byte offset where the text starts (after a byte-order mark). */
  textStart: number;
  /** Byte length of the file. */
  end: number;
}

const KIND_CODE = 0;
const KIND_TABLE = 1;

/** What a parsed document is stored as. */
export interface StoredModel {
  outline: DocOutline;
  lines: LineTable;
  /** Code blocks and tables as (kind, startLine, endLine) triples. */
  blocks: Uint32Array;
}

/** Estimated bytes of a stored model (object headers, strings, typed arrays). */
export function storedBytes(s: StoredModel): number {
  let n = 400 + s.lines.starts.byteLength + s.blocks.byteLength;
  n += s.outline.sectionChars.byteLength + s.outline.sectionStarts.byteLength;
  for (const sec of s.outline.sections) {
    // the object, its heading path array, its heading and slug strings
    n += 120 + 8 * sec.headingPath.length + 2 * (sec.heading.length + sec.slug.length) + 48;
  }
  return n;
}

/**
 * A flat copy of a string: a short slice is copied by the engine anyway, a longer one could
 * keep the whole text it was cut from alive.
 */
function own(s: string): string {
  return s.length > 12 ? [...s].join('') : s;
}

/** How many times `byte` occurs in `bytes[from..]`. */
function countByte(bytes: Uint8Array, byte: number, from: number): number {
  let count = 0;
  for (let i = bytes.indexOf(byte, from); i !== -1; i = bytes.indexOf(byte, i + 1)) count++;
  return count;
}

/**
 * Line starts in bytes of `bytes[from..]`, by the rule of `computeLineStarts`, in a typed
 * array sized from a count of the line-break bytes (no growing list of numbers for a large
 * file). Without any CR, the breaks are found by the engine's byte search.
 */
function byteLineStarts(bytes: Uint8Array, from: number): Uint32Array | Float64Array {
  const n = bytes.length;
  if (from >= n) return new Uint32Array(0);
  const crs = countByte(bytes, 13, from);
  const bound = 1 + countByte(bytes, 10, from) + crs;
  const starts = n > 0xffffffff ? new Float64Array(bound) : new Uint32Array(bound);
  let count = 0;
  starts[count++] = from;
  if (crs === 0) {
    for (let i = bytes.indexOf(10, from); i !== -1 && i + 1 < n; i = bytes.indexOf(10, i + 1)) {
      starts[count++] = i + 1;
    }
  } else {
    for (let i = from; i < n; i++) {
      const c = bytes[i];
      if (c === 10 || c === 13) {
        if (c === 13 && bytes[i + 1] === 10) i++;
        if (i + 1 < n) starts[count++] = i + 1;
      }
    }
  }
  return count === bound ? starts : starts.slice(0, count);
}

/** Where a file's lines are, found from its bytes before they are parsed (see {@link storeModel}). */
export interface FileLines {
  /** Byte offset where the parsed text starts (after one or two byte-order marks). */
  textStart: number;
  /** Byte length of the file. */
  end: number;
  /** Byte offset of each line's start; null when the text is ASCII (a character is a byte). */
  byteStarts: Uint32Array | Float64Array | null;
}

/**
 * The line table of a file from its bytes and their decoded text (`bom`: a byte-order mark
 * was stripped). The parser strips one more leading U+FEFF, so a second mark counts too.
 * Lets the caller drop the bytes before the parse.
 */
export function fileLines(bytes: Uint8Array, decoded: string, bom: boolean): FileLines {
  let textStart = bom ? 3 : 0;
  let chars = decoded.length;
  if (decoded.charCodeAt(0) === 0xfeff) {
    textStart += 3;
    chars--;
  }
  const ascii = bytes.length - textStart === chars;
  return {
    textStart,
    end: bytes.length,
    byteStarts: ascii ? null : byteLineStarts(bytes, textStart),
  };
}

/**
 * Stores a document parsed from a file (see {@link fileLines}). Section strings are copied
 * flat, so nothing refers to the text.
 */
export function storeModel(model: DocModel, file: FileLines): StoredModel {
  const count = model.lineStarts.length;
  let starts: Uint32Array | Float64Array;
  if (file.byteStarts === null) {
    starts = file.end > 0xffffffff ? new Float64Array(count) : new Uint32Array(count);
    for (let i = 0; i < count; i++) starts[i] = model.lineStarts[i]! + file.textStart;
  } else {
    if (file.byteStarts.length !== count) {
      throw new Error(
        `line table mismatch: ${file.byteStarts.length} byte lines, ${count} text lines`,
      );
    }
    starts = file.byteStarts; // made for this file: kept as it is
  }
  return {
    outline: outlineOf(model),
    lines: { starts, textStart: file.textStart, end: file.end },
    blocks: packBlocks(model.blocks),
  };
}

/**
 * Sets each section's heading path from its parent's (parents come before their children), so
 * the paths share the heading strings.
 */
export function fillHeadingPaths(sections: Section[]): void {
  for (const s of sections) {
    const parent = s.parent === -1 ? undefined : sections[s.parent];
    s.headingPath = parent ? [...parent.headingPath, s.heading] : [s.heading];
  }
}

/** The outline part of a parsed document, with its strings copied flat. */
export function outlineOf(model: DocModel): DocOutline {
  const sections: Section[] = [];
  for (const s of model.sections) {
    sections.push({
      index: s.index,
      slug: own(s.slug),
      level: s.level,
      heading: own(s.heading),
      headingPath: [],
      parent: s.parent,
      startLine: s.startLine,
      endLine: s.endLine,
      ownEndLine: s.ownEndLine,
    });
  }
  fillHeadingPaths(sections);
  const sectionChars = new Float64Array(sections.length);
  const sectionStarts = new Float64Array(sections.length);
  for (const s of model.sections) {
    sectionStarts[s.index] = lineStartOffset(model, s.startLine);
    sectionChars[s.index] =
      s.endLine < s.startLine
        ? 0
        : lineEndOffset(model, s.endLine) - lineStartOffset(model, s.startLine);
  }
  const title =
    model.title === null
      ? null
      : (sections.find((s) => s.level === 1)?.heading ?? sections[0]?.heading ?? own(model.title));
  return {
    sections,
    title,
    totalLines: model.totalLines,
    chars: model.text.length,
    frontMatter: model.frontMatter
      ? { startLine: model.frontMatter.startLine, endLine: model.frontMatter.endLine }
      : null,
    parser: model.parser,
    exact: model.exact,
    sectionChars,
    sectionStarts,
    rootEndLine: rootExtract(model, true).endLine,
    rootOwnEndLine: rootExtract(model, false).endLine,
  };
}

function packBlocks(blocks: readonly BlockRange[]): Uint32Array {
  const out = new Uint32Array(blocks.length * 3);
  blocks.forEach((b, i) => {
    out[3 * i] = b.kind === 'code' ? KIND_CODE : KIND_TABLE;
    out[3 * i + 1] = b.startLine;
    out[3 * i + 2] = b.endLine;
  });
  return out;
}

/** The blocks of {@link StoredModel.blocks} as the parser gave them. */
export function unpackBlocks(packed: Uint32Array): BlockRange[] {
  const out: BlockRange[] = [];
  for (let i = 0; i < packed.length; i += 3) {
    out.push({
      kind: packed[i] === KIND_CODE ? 'code' : 'table',
      startLine: packed[i + 1]!,
      endLine: packed[i + 2]!,
    });
  }
  return out;
}

/**
 * The byte range of lines `first..last` (inclusive) in the file, as `extractLines` cuts them
 * from the text: from the first line's start to the last line's end, without its line break.
 * Null when the range is empty.
 */
export function byteRange(
  lines: LineTable,
  first: number,
  last: number,
): { from: number; to: number } | null {
  if (last < first) return null;
  const from = lines.starts[first - 1] ?? lines.end;
  const to = lines.starts[last] ?? lines.end;
  return { from, to };
}

/** Trims one `\n` then one `\r` off the end of a line range's bytes, as `lineEndOffset` does. */
export function trimLineBreak(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 10) end--;
  if (end > 0 && bytes[end - 1] === 13) end--;
  return bytes.subarray(0, end);
}
