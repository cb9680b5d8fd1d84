import { inSpans, type Span } from './spans.js';

/** One Obsidian wikilink or embed found in a page. */
export interface WikiLink {
  /** Offset of the first character (`!` for an embed, else the first `[`). */
  start: number;
  /** Offset just after the closing `]]`. */
  end: number;
  /** `![[...]]` rather than `[[...]]`. */
  embed: boolean;
  /** The link path as written (before `#` and `|`), untrimmed; `''` for a same-page link. */
  target: string;
  /** Everything after the first `#` (e.g. `Heading`, `A#B`, `^block`), or null. */
  fragment: string | null;
  /** Display text after the separator, or null. */
  alias: string | null;
  /** `|`, or `\|` inside a table, when an alias is present. */
  separator: '|' | '\\|' | null;
}

const LINK_RE = /(!?)\[\[([^[\]\n]+)\]\]/g;

/**
 * Parses the inside of `[[...]]` (target, `#fragment`, `|alias` or the table-escaped `\\|alias`);
 * null when it names neither a page nor a fragment.
 */
export function parseWikiLinkBody(body: string): Omit<WikiLink, 'start' | 'end' | 'embed'> | null {
  let target = body;
  let alias: string | null = null;
  let separator: WikiLink['separator'] = null;
  const bar = body.indexOf('|');
  if (bar !== -1) {
    const escaped = bar > 0 && body[bar - 1] === '\\';
    target = body.slice(0, escaped ? bar - 1 : bar);
    alias = body.slice(bar + 1);
    separator = escaped ? '\\|' : '|';
  }
  let fragment: string | null = null;
  const hash = target.indexOf('#');
  if (hash !== -1) {
    fragment = target.slice(hash + 1);
    target = target.slice(0, hash);
  }
  if (target.trim() === '' && (fragment === null || fragment.trim() === '')) return null;
  return { target, fragment, alias, separator };
}

/**
 * Every wikilink and embed in `text` outside the `code` spans (inline code and code blocks
 * keep their text literally, as Obsidian shows them). Links inside front matter count.
 */
export function findWikiLinks(text: string, code: readonly Span[]): WikiLink[] {
  const out: WikiLink[] = [];
  if (!text.includes('[[')) return out;
  for (const m of text.matchAll(LINK_RE)) {
    const start = m.index!;
    const end = start + m[0].length;
    if (inSpans(code, start) || inSpans(code, end - 1) || inSpans(code, start + m[1]!.length)) {
      continue;
    }
    const body = parseWikiLinkBody(m[2]!);
    if (!body) continue;
    out.push({ start, end, embed: m[1] === '!', ...body });
  }
  return out;
}

/** The link written back with a new target, keeping embed, fragment, alias and separator. */
export function formatWikiLink(link: WikiLink, target: string): string {
  const fragment = link.fragment === null ? '' : `#${link.fragment}`;
  const alias = link.alias === null ? '' : `${link.separator ?? '|'}${link.alias}`;
  return `${link.embed ? '!' : ''}[[${target}${fragment}${alias}]]`;
}
