/** One top-level heading found in a Markdown document. */
export interface RawHeading {
  /** 1 to 6 (`#` count, or 1 for `===` and 2 for `---` setext underlines). */
  level: number;
  /** Plain text of the heading, as mdast-util-to-string gives it for remark's heading node. */
  text: string;
  /** 1-based line the heading starts on. */
  line: number;
  /** 1-based line the heading ends on (the underline of a setext heading). */
  endLine: number;
}

/**
 * A block whose lines belong together at any depth (inside lists and block quotes too): a
 * fenced or indented code block, or a GFM table. Lines are 1-based and inclusive.
 */
export interface BlockRange {
  /** `code` (fenced or indented) or `table`. */
  kind: 'code' | 'table';
  /** First line: the opening fence, the first indented line, or the table's head row. */
  startLine: number;
  /** Last line: the closing fence (when there is one), the last code line or table row. */
  endLine: number;
}

/** What an outline parser reports about a document. */
export interface OutlineScan {
  /** Headings that are direct children of the document, in order. */
  headings: RawHeading[];
  /** Lines taken by YAML front matter (`---` fenced block on line 1), or null. */
  frontMatter: { startLine: number; endLine: number } | null;
  /** Code blocks and tables at any depth, in document order. */
  blocks: BlockRange[];
}
