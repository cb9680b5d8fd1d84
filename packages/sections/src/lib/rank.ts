import {
  analyzeQuery,
  bm25f,
  type Field,
  idf,
  type Language,
  type QueryWord,
  words,
} from '@lectern/text';
import { type DocSearchData, findTerm, postingsAt } from './search.js';

/*
 * Ranking of sections for docs_search and docs_where: a question analysed by @lectern/text in
 * every language of the documents searched, scored per unit with its BM25F over three fields:
 * the unit's own heading (`title`), the headings of the sections enclosing it (`headings`) and
 * its own text (`body`), with the package's k1, b and field weights.
 */

/** One term of a query, as each document's language reads it. */
export interface QueryTerm {
  /** `word`: one stem per language; `prefix`: every term starting with the folded text. */
  kind: 'word' | 'prefix';
  /** The folded word as asked. */
  surface: string;
  /** The stem (or, for a prefix, the folded text) per language. */
  stems: Partial<Record<Language, string>>;
  /** A stop word in some language asked (a question's "how", "do", "I"). */
  stop: boolean;
}

/**
 * A term whose units make more than this share of the units searched is left out of a query
 * that has rarer terms: it would rank nearly every section, and BM25's idf alone still lets its
 * many weak matches add up. Set on the bench's agent questions (dev half): the answer is read
 * first for 23 of 41 questions leaving nothing out, 23 above a half, 20 above a quarter, 17
 * above a tenth; a half only drops words that say nothing.
 */
export const COMMON_SHARE = 0.5;

/** True when `query` has a letter or digit to search for. */
export function hasWords(query: string): boolean {
  return words(query).length > 0;
}

/**
 * The terms of a question: @lectern/text's query analysis in each of `languages`, phrases read
 * as their words (the index keeps no positions), stop words dropped when any other word is
 * left, each distinct term once.
 */
export function queryTerms(query: string, languages: readonly Language[]): QueryTerm[] {
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  const add = (kind: QueryTerm['kind'], w: QueryWord) => {
    const key = `${kind}\0${JSON.stringify(w.stems)}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ kind, surface: w.surface, stems: w.stems, stop: w.stop });
  };
  for (const clause of analyzeQuery(query, { languages })) {
    if (clause.kind === 'prefix') add('prefix', clause.words[0]!);
    else for (const w of clause.words) add('word', w);
  }
  const content = out.filter((t) => !t.stop);
  return content.length > 0 ? content : out;
}

/** The languages of the documents searched, each once (English when there are none). */
export function languagesOf(datas: readonly DocSearchData[]): Language[] {
  const set = new Set<Language>();
  for (const d of datas) set.add(d.language);
  return set.size > 0 ? [...set] : ['en'];
}

/** A scored unit. */
export interface Hit {
  doc: number;
  unit: number;
  score: number;
  /** How many distinct query terms the unit holds, and whether any is in its own heading. */
  matched: number;
  inHeading: boolean;
}

/** A term's postings in one document: [unit, headingTf, bodyTf, ...] by unit. */
function termPostings(d: DocSearchData, t: QueryTerm): number[] | null {
  const key = t.stems[d.language];
  if (key === undefined) return null;
  if (t.kind === 'word') {
    const k = findTerm(d, key);
    return k === -1 ? null : postingsAt(d, k);
  }
  // A prefix: every term from the first one at or after `key` while they start with it.
  let lo = 0;
  let hi = d.terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (d.terms[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  const byUnit = new Map<number, [number, number]>();
  for (let k = lo; k < d.terms.length && d.terms[k]!.startsWith(key); k++) {
    const list = postingsAt(d, k);
    for (let i = 0; i < list.length; i += 3) {
      const tf = byUnit.get(list[i]!) ?? [0, 0];
      tf[0] += list[i + 1]!;
      tf[1] += list[i + 2]!;
      byUnit.set(list[i]!, tf);
    }
  }
  if (byUnit.size === 0) return null;
  const out: number[] = [];
  for (const u of [...byUnit.keys()].sort((a, b) => a - b)) {
    const [h, b] = byUnit.get(u)!;
    out.push(u, h, b);
  }
  return out;
}

/**
 * Scores the units of every document against `terms` with @lectern/text's BM25F: a term in a
 * unit's heading counts in its `title` field and in the `headings` field of every unit under
 * that heading; `df` counts the units holding the term in a heading or text of their own. Terms
 * held by more than {@link COMMON_SHARE} of the units are left out while a rarer term remains.
 */
export function scoreAll(datas: readonly DocSearchData[], terms: readonly QueryTerm[]): Hit[] {
  let units = 0;
  const sum: Record<Field, number> = { title: 0, headings: 0, body: 0 };
  for (const d of datas) {
    units += d.units.length;
    sum.title += d.titleLen;
    sum.headings += d.pathLen;
    sum.body += d.bodyLen;
  }
  if (units === 0 || terms.length === 0) return [];
  const avg = { title: sum.title / units, headings: sum.headings / units, body: sum.body / units };
  // Each term's postings in each document, decoded once, and its document frequency.
  const lists = terms.map((t) => datas.map((d) => termPostings(d, t)));
  const df = lists.map((perDoc) => {
    let n = 0;
    for (const list of perDoc) n += (list?.length ?? 0) / 3;
    return n;
  });
  const rare = terms.map((_, ti) => df[ti]! <= units * COMMON_SHARE);
  const kept = rare.some((r) => r) ? rare : rare.map(() => true);
  const acc = new Map<number, Hit>();
  // One term's frequency per field in the units of one document, in arrays reused for every
  // document and term (only the units touched are visited and cleared again).
  let cap = 0;
  for (const d of datas) cap = Math.max(cap, d.units.length);
  const title = new Float64Array(cap);
  const headings = new Float64Array(cap);
  const body = new Float64Array(cap);
  const touched = new Int32Array(cap);
  const seen = new Uint8Array(cap);
  const tf = { title: 0, headings: 0, body: 0 };
  const len = { title: 0, headings: 0, body: 0 };
  datas.forEach((d, di) => {
    terms.forEach((_, ti) => {
      const list = lists[ti]![di];
      if (!list || !kept[ti]) return;
      const idfValue = idf(units, df[ti]!);
      let n = 0;
      const touch = (u: number) => {
        if (seen[u] === 0) {
          seen[u] = 1;
          touched[n++] = u;
        }
      };
      for (let i = 0; i < list.length; i += 3) {
        const u = list[i]!;
        const head = list[i + 1]!;
        touch(u);
        title[u]! += head;
        body[u]! += list[i + 2]!;
        if (head > 0) {
          const last = d.units[u]!.last;
          for (let v = u + 1; v <= last; v++) {
            touch(v);
            headings[v]! += head;
          }
        }
      }
      for (let k = 0; k < n; k++) {
        const u = touched[k]!;
        const unit = d.units[u]!;
        tf.title = title[u]!;
        tf.headings = headings[u]!;
        tf.body = body[u]!;
        len.title = unit.headLen;
        len.headings = unit.pathLen;
        len.body = unit.bodyLen;
        const s = bm25f(tf, len, avg, idfValue);
        const key = di * 0x1000000 + u;
        let hit = acc.get(key);
        if (!hit) {
          hit = { doc: di, unit: u, score: 0, matched: 0, inHeading: false };
          acc.set(key, hit);
        }
        hit.score += s;
        hit.matched++;
        if (tf.title > 0) hit.inHeading = true;
        title[u] = 0;
        headings[u] = 0;
        body[u] = 0;
        seen[u] = 0;
      }
    });
  });
  return [...acc.values()];
}
