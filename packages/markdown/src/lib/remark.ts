import type { Heading, Nodes, Root } from 'mdast';
import { toString as mdastToString } from 'mdast-util-to-string';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { BlockRange, OutlineScan, RawHeading } from './headings.js';
import { computeLineStarts } from './lines.js';

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml']);

/** Parses Markdown into mdast with remark (CommonMark + GFM + YAML front matter). */
export function parseMdast(text: string): Root {
  return processor.parse(text) as Root;
}

function toRaw(node: Heading): RawHeading {
  return {
    level: node.depth,
    text: mdastToString(node),
    line: node.position?.start.line ?? 1,
    endLine: node.position?.end.line ?? node.position?.start.line ?? 1,
  };
}

/**
 * Code blocks and tables at any depth of `tree` (parsed from `source`), in document order,
 * each ending at its last non-blank line, with lines moved by `shift`. Iterative, so a deep
 * tree cannot overflow the stack.
 */
export function blocksOf(tree: Root, source: string, shift = 0): BlockRange[] {
  const out: BlockRange[] = [];
  const starts = computeLineStarts(source);
  const blank = (line: number) => {
    const from = starts[line - 1];
    if (from === undefined) return true;
    const to = starts[line] ?? source.length;
    return /^[ \t\r\n]*$/.test(source.slice(from, to));
  };
  const stack: Nodes[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if ((node.type === 'code' || node.type === 'table') && node.position) {
      const first = node.position.start.line;
      const { end } = node.position;
      let last = end.line;
      // a block closed by the end of its container ends after that container's markers on
      // the next line (or at the start of the next line): that line holds none of its content
      const from = starts[last - 1];
      if (
        last > first &&
        from !== undefined &&
        /^[ \t>]*$/.test(source.slice(from, from + end.column - 1))
      ) {
        last--;
      }
      while (last > first && blank(last)) last--;
      out.push({ kind: node.type, startLine: first + shift, endLine: last + shift });
      continue;
    }
    if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes);
    }
  }
  return out;
}

/**
 * The reference outline: remark's top-level headings (direct children of the root; headings
 * nested in block quotes, list items or footnote definitions do not start sections), the YAML
 * front matter's line range, and code blocks and tables at any depth. remark is slow (and
 * overflows its stack) on some inputs: see {@link remarkAffordable} before calling it.
 */
export function remarkOutline(text: string): OutlineScan {
  const tree = parseMdast(text);
  const headings: RawHeading[] = [];
  let frontMatter: OutlineScan['frontMatter'] = null;
  for (const node of tree.children) {
    if (node.type === 'heading') headings.push(toRaw(node));
    else if (node.type === 'yaml' && node.position) {
      frontMatter = { startLine: node.position.start.line, endLine: node.position.end.line };
    }
  }
  return { headings, frontMatter, blocks: blocksOf(tree, text) };
}

/**
 * The text of the single heading that `source` (one ATX line, or setext lines with their
 * underline) parses to, or null when it does not parse to exactly one heading.
 */
export function remarkHeadingText(source: string): string | null {
  const tree = parseMdast(source);
  if (tree.children.length !== 1) return null;
  const node = tree.children[0]!;
  return node.type === 'heading' ? mdastToString(node) : null;
}
