import { inSpans, type Span } from './markdown.js';

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

/** Parses the inside of `[[...]]`; null when it names nothing. */
export function parseLinkBody(body: string): Omit<WikiLink, 'start' | 'end' | 'embed'> | null {
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
    const body = parseLinkBody(m[2]!);
    if (!body) continue;
    out.push({ start, end, embed: m[1] === '!', ...body });
  }
  return out;
}

/** The page name a link shows: the last path segment, without a `.md` extension. */
export function pageName(target: string, pageExtensions: readonly string[] = ['.md']): string {
  const trimmed = target.trim().replace(/\/+$/, '');
  const base = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  const lower = base.toLowerCase();
  for (const ext of pageExtensions) {
    if (lower.endsWith(ext) && base.length > ext.length) return base.slice(0, -ext.length);
  }
  return base;
}

const SIZE_RE = /^\s*\d+(?:\s*x\s*\d+)?\s*$/;

/**
 * Display text of a link as a reader sees it: the alias when there is one, else the page
 * name, with heading fragments as `Page > Heading` (`A#B` becomes `A > B`). An embed becomes
 * a short `[embed: ...]` marker (an image size such as `|300` is not an alias).
 */
export function displayText(link: WikiLink, pageExtensions: readonly string[] = ['.md']): string {
  const name = pageName(link.target, pageExtensions);
  const parts = name === '' ? [] : [name];
  if (link.fragment !== null) {
    for (const piece of link.fragment.split('#')) {
      if (piece.trim() !== '') parts.push(piece.trim());
    }
  }
  const plain = parts.join(' > ');
  const alias = link.alias !== null && link.alias.trim() !== '' ? link.alias.trim() : null;
  if (link.embed) {
    const shown = alias !== null && !SIZE_RE.test(alias) ? alias : plain;
    return `[embed: ${shown}]`;
  }
  return alias ?? plain;
}

/** The link written back with a new target, keeping embed, fragment, alias and separator. */
export function formatLink(link: WikiLink, target: string): string {
  const fragment = link.fragment === null ? '' : `#${link.fragment}`;
  const alias = link.alias === null ? '' : `${link.separator ?? '|'}${link.alias}`;
  return `${link.embed ? '!' : ''}[[${target}${fragment}${alias}]]`;
}

/** Replaces non-overlapping ranges of `text`, given in any order. */
export function spliceAll(
  text: string,
  edits: ReadonlyArray<{ start: number; end: number; text: string }>,
): string {
  if (edits.length === 0) return text;
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

const TRAILING_BLOCK_ID_RE = /([ \t]*)\^[A-Za-z0-9-]+([ \t]*)(?=\r?\n|$)/g;

/**
 * Text as a reader sees it: every wikilink replaced by {@link displayText}, embeds by a marker
 * and block identifiers (`^id` closing a line) hidden. Code keeps its text. Line breaks are
 * never added or removed, so line numbers match the raw page.
 */
export function renderText(
  text: string,
  links: readonly WikiLink[],
  code: readonly Span[],
  pageExtensions: readonly string[] = ['.md'],
): string {
  const edits: Array<{ start: number; end: number; text: string }> = links.map((l) => ({
    start: l.start,
    end: l.end,
    text: displayText(l, pageExtensions),
  }));
  for (const m of text.matchAll(TRAILING_BLOCK_ID_RE)) {
    const caret = m.index! + m[1]!.length;
    // Only a caret that starts the line or follows whitespace marks a block.
    const before = m.index! === 0 ? '\n' : text[m.index! - 1]!;
    if (m[1] === '' && before !== '\n') continue;
    if (inSpans(code, caret) || links.some((l) => caret >= l.start && caret < l.end)) continue;
    edits.push({ start: m.index!, end: m.index! + m[0].length, text: '' });
  }
  return spliceAll(text, edits);
}
