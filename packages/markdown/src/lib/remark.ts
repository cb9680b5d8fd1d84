import type { Heading, Root } from 'mdast';
import { toString as mdastToString } from 'mdast-util-to-string';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { OutlineScan, RawHeading } from './headings.js';

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
 * The reference outline: remark's top-level headings (direct children of the root; headings
 * nested in block quotes, list items or footnote definitions do not start sections) and the
 * YAML front matter's line range.
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
  return { headings, frontMatter };
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
