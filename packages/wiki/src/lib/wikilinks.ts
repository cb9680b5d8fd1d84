import type { WikiLink } from '@lectern/markdown';
import type { Span } from './markdown.js';
import { inSpans } from './markdown.js';

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
