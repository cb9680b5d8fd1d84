import type { DocModel } from '@lectern/markdown';
import { extractLines, lineEndOffset, lineStartOffset, trimBlankTail } from '@lectern/markdown';

/*
 * Full-text search over sections: a small inverted index per document (built on first use and
 * cached with the parse), scored with BM25 over heading and body fields.
 */

const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}';
const TOKEN_RE = new RegExp(`[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{N}])+`, 'gu');

/** Light English suffix folding so `install`, `installs`, `installing`, `installation` meet. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 7 && w.endsWith('ation')) w = w.slice(0, -5);
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Lower-cased, stemmed word tokens; each Han/Kana character is a token of its own. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(TOKEN_RE)) out.push(stem(m[0]));
  return out;
}

const STOPWORDS = new Set(
  (
    'a an and are as at be by can do does for from how i if in is it me my of on or should ' +
    'so than that the their then there these this to use used using was what when where ' +
    'which who why will with you your we our about into get set'
  ).split(' '),
);

/** Query tokens without English stop words (all tokens when nothing else is left). */
export function contentTokens(query: string): string[] {
  const raw = query
    .toLowerCase()
    .match(TOKEN_RE)
    ?.filter((w) => !STOPWORDS.has(w));
  const toks = raw && raw.length > 0 ? raw.map(stem) : tokenize(query);
  return [...new Set(toks)];
}

/** One searchable unit: a section's heading and its own body, or a document's preamble. */
export interface SearchUnit {
  /** Section index, or -1 for the text before the first heading. */
  section: number;
  headLen: number;
  bodyLen: number;
  /** Body lines (without the heading), for snippets. */
  bodyFirst: number;
  bodyLast: number;
}

/** The per-document index. */
export interface DocSearchData {
  units: SearchUnit[];
  /** token -> flat [unit, headTf, bodyTf, unit, headTf, bodyTf, ...] */
  postings: Map<string, number[]>;
  totalLen: number;
}

function countInto(map: Map<string, number>, tokens: string[]): void {
  for (const t of tokens) map.set(t, (map.get(t) ?? 0) + 1);
}

/** Builds the search index of a parsed document. */
export function buildSearchData(doc: DocModel): DocSearchData {
  const units: SearchUnit[] = [];
  const postings = new Map<string, number[]>();
  let totalLen = 0;
  const add = (section: number, head: string, bodyFirst: number, bodyLast: number) => {
    const headToks = tokenize(head);
    const body =
      bodyLast >= bodyFirst
        ? doc.text.slice(lineStartOffset(doc, bodyFirst), lineEndOffset(doc, bodyLast))
        : '';
    const bodyToks = tokenize(body);
    if (headToks.length === 0 && bodyToks.length === 0) return;
    const u = units.length;
    units.push({
      section,
      headLen: headToks.length,
      bodyLen: bodyToks.length,
      bodyFirst,
      bodyLast,
    });
    totalLen += headToks.length + bodyToks.length;
    const h = new Map<string, number>();
    const b = new Map<string, number>();
    countInto(h, headToks);
    countInto(b, bodyToks);
    for (const t of new Set([...h.keys(), ...b.keys()])) {
      let list = postings.get(t);
      if (!list) {
        list = [];
        postings.set(t, list);
      }
      list.push(u, h.get(t) ?? 0, b.get(t) ?? 0);
    }
  };
  const firstBody = doc.frontMatter ? doc.frontMatter.endLine + 1 : 1;
  const first = doc.sections[0];
  const preambleLast = trimBlankTail(doc, firstBody, first ? first.startLine - 1 : doc.totalLines);
  if (preambleLast >= firstBody) add(-1, '', firstBody, preambleLast);
  // Heading lines are everything from startLine to the line before the body; setext headings
  // take two or more lines, so the body starts after the heading's own last line.
  doc.sections.forEach((s, i) => {
    const headingLines = headingLineCount(doc, i);
    add(i, s.heading, s.startLine + headingLines, s.ownEndLine);
  });
  return { units, postings, totalLen };
}

/** How many lines the heading of section `i` takes (2+ for setext headings). */
export function headingLineCount(doc: DocModel, i: number): number {
  const s = doc.sections[i]!;
  const line = doc.text.slice(lineStartOffset(doc, s.startLine), lineEndOffset(doc, s.startLine));
  if (/^ {0,3}#/.test(line)) return 1;
  // setext: the underline is the first line made of = or - after the start
  for (let l = s.startLine + 1; l <= s.ownEndLine; l++) {
    const t = doc.text.slice(lineStartOffset(doc, l), lineEndOffset(doc, l));
    if (/^ {0,3}(?:=+|-+)[ \t]*$/.test(t)) return l - s.startLine + 1;
  }
  return 1;
}

/** Weights of the heading and body fields. */
export interface FieldWeights {
  head: number;
  body: number;
}

/** A scored unit. */
export interface Hit {
  doc: number;
  unit: number;
  score: number;
  /** How many distinct query tokens the unit holds, and whether any is in its heading. */
  matched: number;
  inHeading: boolean;
}

/**
 * Scores every unit of every document against `terms` with BM25 (k1 1.2, b 0.75) over the
 * weighted sum of heading and body term frequencies, scaled by the share of query terms found.
 */
export function scoreAll(
  datas: readonly DocSearchData[],
  terms: readonly string[],
  weights: FieldWeights,
): Hit[] {
  let units = 0;
  let len = 0;
  for (const d of datas) {
    units += d.units.length;
    len += d.totalLen;
  }
  if (units === 0 || terms.length === 0) return [];
  const avg = len / units || 1;
  const df = new Map<string, number>();
  for (const t of terms) {
    let n = 0;
    for (const d of datas) n += (d.postings.get(t)?.length ?? 0) / 3;
    df.set(t, n);
  }
  const acc = new Map<number, Hit>();
  const k1 = 1.2;
  const b = 0.75;
  datas.forEach((d, di) => {
    for (const t of terms) {
      const list = d.postings.get(t);
      if (!list) continue;
      const n = df.get(t)!;
      const idf = Math.log(1 + (units - n + 0.5) / (n + 0.5));
      for (let i = 0; i < list.length; i += 3) {
        const u = list[i]!;
        const unit = d.units[u]!;
        const tf = weights.head * list[i + 1]! + weights.body * list[i + 2]!;
        const ulen = weights.head * unit.headLen + unit.bodyLen;
        const s = (idf * (tf * (k1 + 1))) / (tf + k1 * (1 - b + (b * ulen) / avg));
        const key = di * 0x1000000 + u;
        let hit = acc.get(key);
        if (!hit) {
          hit = { doc: di, unit: u, score: 0, matched: 0, inHeading: false };
          acc.set(key, hit);
        }
        hit.score += s;
        hit.matched++;
        if (list[i + 1]! > 0) hit.inHeading = true;
      }
    }
  });
  const hits = [...acc.values()];
  for (const h of hits) h.score *= h.matched / terms.length;
  return hits;
}

/** A snippet of up to `width` characters around the first match of any query word. */
export function snippet(
  doc: DocModel,
  unit: SearchUnit,
  query: string,
  heading: string,
  width = 180,
): string {
  const body = extractLines(doc, unit.bodyFirst, unit.bodyLast).content;
  const flat = body.replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return heading;
  const lower = flat.toLowerCase();
  const words = query.toLowerCase().match(TOKEN_RE) ?? [];
  let at = -1;
  const phrase = lower.indexOf(query.toLowerCase().trim());
  if (phrase !== -1) at = phrase;
  else {
    for (const w of words) {
      for (const probe of [w, stem(w)]) {
        const i = lower.indexOf(probe);
        if (i !== -1 && (at === -1 || i < at)) at = i;
      }
    }
  }
  if (at === -1) at = 0;
  let start = Math.max(0, at - Math.floor(width / 3));
  let end = Math.min(flat.length, start + width);
  start = Math.max(0, end - width);
  // never split a surrogate pair
  if (start > 0 && /[\udc00-\udfff]/.test(flat[start]!)) start--;
  if (end < flat.length && /[\ud800-\udbff]/.test(flat[end - 1]!)) end--;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}
