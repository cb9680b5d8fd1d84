import { isToolError, ToolError } from '@lectern/core';
import { renderPage } from './page.js';
import type { PageMeta, Wiki } from './wiki.js';
import { pageName } from './wikilinks.js';

/** Field weights: a word in a title or alias counts three times a word in the body. */
const WEIGHTS = { title: 3, aliases: 3, tags: 2, body: 1 } as const;
type Field = keyof typeof WEIGHTS;
const K1 = 1.2;
const B = 0.75;
/** Longest snippet, in characters. */
export const SNIPPET_CHARS = 240;

/** Per-page term statistics, cached on the page's listing entry. */
interface DocStats {
  tf: Record<Field, Map<string, number>>;
  length: number;
}

/** A query term: a word (any field) or a `#tag` (tags only). */
interface QueryTerm {
  term: string;
  tagOnly: boolean;
}

/** One search hit. */
export interface SearchHit {
  path: string;
  title: string;
  score: number;
  line: number;
  snippet: string;
  matched: Field[];
}

function stem(t: string): string {
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith('s') && !/(ss|us|is)$/.test(t)) return t.slice(0, -1);
  return t;
}

/** Lower-cased, accent-folded, lightly stemmed words of a text. */
export function tokenize(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu);
  return words ? words.map(stem) : [];
}

function counts(tokens: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** Parses a query into terms; `#tag` words only match tags. Throws `EMPTY_QUERY`. */
export function parseQuery(query: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  const seen = new Set<string>();
  for (const word of query.split(/\s+/)) {
    if (word === '') continue;
    const tagOnly = word.startsWith('#') && word.length > 1;
    for (const term of tokenize(tagOnly ? word.slice(1) : word)) {
      const key = `${tagOnly ? '#' : ''}${term}`;
      if (seen.has(key)) continue;
      seen.add(key);
      terms.push({ term, tagOnly });
    }
  }
  if (terms.length === 0) {
    throw new ToolError(
      'EMPTY_QUERY',
      'query has no searchable words (letters or digits); give at least one word, or #tag.',
    );
  }
  if (terms.length > 32) {
    throw new ToolError(
      'QUERY_TOO_LONG',
      `query has ${terms.length} distinct words; use at most 32.`,
    );
  }
  return terms;
}

/**
 * In-memory BM25F search over one wiki. Term statistics are computed once per page version
 * (cached on the page's listing entry, which is keyed by size, mtime, ctime and inode), so a
 * search after an edit re-reads only the changed pages.
 */
export class SearchIndex {
  constructor(private readonly wiki: Wiki) {}

  private async stats(meta: PageMeta): Promise<DocStats | null> {
    if (meta.problem) return null;
    if (meta.search) return meta.search as DocStats;
    let page: Awaited<ReturnType<Wiki['loadPage']>>;
    try {
      page = await this.wiki.loadPage(meta.path);
    } catch (e) {
      if (isToolError(e)) return null;
      throw e;
    }
    const a = page.analysis;
    const fm = a.structure.frontMatter;
    const body = renderPage(page.text, a, this.wiki.extensions).slice(fm ? fm.span.end : 0);
    const linkNames = a.links.map((l) => pageName(l.target, this.wiki.extensions)).join(' ');
    const tf: DocStats['tf'] = {
      title: counts(tokenize(`${meta.title} ${pageName(meta.path, this.wiki.extensions)}`)),
      aliases: counts(tokenize(a.aliases.join(' '))),
      tags: counts(a.tags.flatMap((t) => tokenize(t))),
      body: counts(tokenize(`${body} ${linkNames}`)),
    };
    let length = 0;
    for (const f of Object.keys(WEIGHTS) as Field[]) {
      for (const n of tf[f].values()) length += n * WEIGHTS[f];
    }
    const stats: DocStats = { tf, length };
    meta.search = stats;
    return stats;
  }

  /** Ranked pages for `query`, optionally under `folder` (a normalised prefix, `''` for all). */
  async search(
    query: string,
    options: { folder: string; offset: number; limit: number },
  ): Promise<{ hits: SearchHit[]; total: number }> {
    const terms = parseQuery(query);
    const metas = (await this.wiki.pageMetas()).filter(
      (m) => options.folder === '' || m.path.startsWith(`${options.folder}/`),
    );
    const docs: Array<{ meta: PageMeta; stats: DocStats }> = [];
    for (const meta of metas) {
      const stats = await this.stats(meta);
      if (stats) docs.push({ meta, stats });
    }
    const n = docs.length;
    const avg = n === 0 ? 1 : docs.reduce((s, d) => s + d.stats.length, 0) / n || 1;
    const weighted = (d: DocStats, q: QueryTerm): { tf: number; fields: Field[] } => {
      let tf = 0;
      const fields: Field[] = [];
      for (const f of q.tagOnly ? (['tags'] as Field[]) : (Object.keys(WEIGHTS) as Field[])) {
        const c = d.tf[f].get(q.term) ?? 0;
        if (c > 0) {
          tf += c * WEIGHTS[f];
          fields.push(f);
        }
      }
      return { tf, fields };
    };
    const df = terms.map((q) => docs.filter((d) => weighted(d.stats, q).tf > 0).length);
    const scored: Array<{ meta: PageMeta; score: number; matched: Set<Field> }> = [];
    for (const d of docs) {
      let score = 0;
      let hits = 0;
      const matched = new Set<Field>();
      terms.forEach((q, i) => {
        const { tf, fields } = weighted(d.stats, q);
        if (tf === 0) return;
        hits++;
        for (const f of fields) matched.add(f);
        const idf = Math.log(1 + (n - df[i]! + 0.5) / (df[i]! + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.stats.length) / avg));
      });
      if (hits === 0) continue;
      score *= 0.5 + (0.5 * hits) / terms.length;
      scored.push({ meta: d.meta, score, matched });
    }
    scored.sort((a, b) => b.score - a.score || (a.meta.path < b.meta.path ? -1 : 1));
    const window = scored.slice(options.offset, options.offset + options.limit);
    const hits: SearchHit[] = [];
    for (const s of window) {
      const { line, snippet } = await this.snippet(s.meta, terms);
      hits.push({
        path: s.meta.path,
        title: s.meta.title,
        score: Math.round(s.score * 1000) / 1000,
        line,
        snippet,
        matched: (Object.keys(WEIGHTS) as Field[]).filter((f) => s.matched.has(f)),
      });
    }
    return { hits, total: scored.length };
  }

  /** The rendered body line with the most query words (first non-empty line otherwise). */
  private async snippet(
    meta: PageMeta,
    terms: QueryTerm[],
  ): Promise<{ line: number; snippet: string }> {
    let page: Awaited<ReturnType<Wiki['loadPage']>>;
    try {
      page = await this.wiki.loadPage(meta.path);
    } catch {
      return { line: 1, snippet: '' };
    }
    const a = page.analysis;
    const rendered = renderPage(page.text, a, this.wiki.extensions);
    const lines = rendered.split('\n');
    const firstBody = a.structure.frontMatter
      ? rendered.slice(0, a.structure.frontMatter.span.end).split('\n').length - 1
      : 0;
    const wanted = new Set(terms.filter((t) => !t.tagOnly).map((t) => t.term));
    let best = -1;
    let bestScore = 0;
    let fallback = -1;
    for (let i = firstBody; i < lines.length; i++) {
      const text = lines[i]!.replace(/\r$/, '');
      if (text.trim() === '') continue;
      if (fallback === -1 && !/^\s*#{1,6}\s/.test(text)) fallback = i;
      if (wanted.size === 0) continue;
      const found = new Set(tokenize(text).filter((t) => wanted.has(t))).size;
      if (found > bestScore) {
        bestScore = found;
        best = i;
      }
    }
    const index = best !== -1 ? best : fallback !== -1 ? fallback : firstBody;
    const text = (lines[index] ?? '').replace(/\r$/, '').trim();
    return {
      line: Math.min(index + 1, Math.max(lines.length, 1)),
      snippet: clipSnippet(text, wanted),
    };
  }
}

/**
 * At most {@link SNIPPET_CHARS} characters (code points, so no surrogate pair is split) of a
 * line, around the first query word, with `…` marking each cut.
 */
export function clipSnippet(text: string, wanted: ReadonlySet<string>): string {
  const chars = Array.from(text);
  if (chars.length <= SNIPPET_CHARS) return text;
  let atUnit = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (wanted.has(tokenize(m[0])[0] ?? '')) {
      atUnit = m.index!;
      break;
    }
  }
  const at = Array.from(text.slice(0, atUnit)).length;
  const start = Math.max(0, Math.min(at - 60, chars.length - SNIPPET_CHARS));
  const end = start + SNIPPET_CHARS;
  const out = chars.slice(start, end);
  if (start > 0) out[0] = '…';
  if (end < chars.length) out[out.length - 1] = '…';
  return out.join('');
}
