import { findWikiLinks, type WikiLink } from '@lectern/markdown';
import { frontMatterList, inSpans, type MarkdownStructure, scanMarkdown } from './markdown.js';
import { renderText } from './wikilinks.js';

/** A standard Markdown link (`[text](dest)`) whose destination may be a wiki file. */
export interface MarkdownLink {
  /** Offset of the destination as written (inside the parentheses, `<>` included). */
  start: number;
  /** Offset just after the destination as written. */
  end: number;
  /** Decoded file path of the destination, without `#fragment` or `?query`. */
  path: string;
  /** `#fragment` or `?query` as written, kept on rewrite. */
  suffix: string;
  /** Written as `<dest>` (spaces allowed, no percent-encoding). */
  angle: boolean;
}

/** Everything the wiki tools need from one page's text, computed once per version. */
export interface PageAnalysis {
  structure: MarkdownStructure;
  links: WikiLink[];
  markdownLinks: MarkdownLink[];
  /** Front matter `title`, else the first level-1 heading, else null. */
  title: string | null;
  aliases: string[];
  /** Front matter tags and `#tags` in the body, without `#`, de-duplicated. */
  tags: string[];
}

const MD_LINK_RE =
  /!?\[(?:[^[\]\n]|\[[^[\]\n]*\])*\]\([ \t]*(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()<>]*\)[^\s()<>]*)*)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)/dg;
const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function markdownLinks(text: string, structure: MarkdownStructure): MarkdownLink[] {
  const out: MarkdownLink[] = [];
  if (!text.includes('](')) return out;
  for (const m of text.matchAll(MD_LINK_RE)) {
    const [start, end] = m.indices![1]!;
    if (inSpans(structure.code, m.index!) || inSpans(structure.code, start)) continue;
    const raw = m[1]!;
    const angle = raw.startsWith('<');
    const inner = angle ? raw.slice(1, -1) : raw;
    if (inner === '' || inner.startsWith('#') || inner.startsWith('//') || SCHEME_RE.test(inner)) {
      continue;
    }
    const cut = inner.search(/[#?]/);
    const pathPart = cut === -1 ? inner : inner.slice(0, cut);
    const suffix = cut === -1 ? '' : inner.slice(cut);
    let path = pathPart;
    if (!angle) {
      try {
        path = decodeURI(pathPart);
      } catch {
        continue;
      }
    }
    if (path === '') continue;
    out.push({ start, end, path, suffix, angle });
  }
  return out;
}

/** Scans a page's text once: structure, links, title, aliases and tags. */
export function analyzePage(text: string): PageAnalysis {
  const structure = scanMarkdown(text);
  const links = findWikiLinks(text, structure.code);
  const data = structure.frontMatter?.data ?? null;
  const fmTitle =
    data && typeof data.title === 'string' && data.title.trim() !== '' ? data.title.trim() : null;
  const h1 = structure.headings.find((h) => h.level === 1 && h.text !== '');
  const tags = new Set<string>();
  for (const t of frontMatterList(data, 'tags', 'tag')) tags.add(t.replace(/^#/, ''));
  for (const t of structure.inlineTags) tags.add(t);
  return {
    structure,
    links,
    markdownLinks: markdownLinks(text, structure),
    title: fmTitle ?? (h1 ? renderInline(h1.text) : null),
    aliases: frontMatterList(data, 'aliases', 'alias'),
    tags: [...tags],
  };
}

/** Renders wikilinks inside a short piece of inline text (a heading, a snippet). */
export function renderInline(text: string, pageExtensions?: readonly string[]): string {
  return renderText(text, findWikiLinks(text, []), [], pageExtensions);
}

/**
 * The rendered form of a page: see {@link renderText}. Nested brackets such as `[[[[a]]]]`
 * can leave a complete link after one pass, so rendering repeats (at most three more times)
 * until no wikilink is left outside code.
 */
export function renderPage(
  text: string,
  analysis: PageAnalysis,
  pageExtensions?: readonly string[],
): string {
  let out = renderText(text, analysis.links, analysis.structure.code, pageExtensions);
  for (let pass = 0; pass < 3 && out.includes('[['); pass++) {
    const code = scanMarkdown(out).code;
    const left = findWikiLinks(out, code);
    if (left.length === 0) break;
    out = renderText(out, left, code, pageExtensions);
  }
  return out;
}
