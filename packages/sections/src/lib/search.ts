import type { DocModel } from '@lectern/markdown';
import { extractLines, lineEndOffset, lineStartOffset, trimBlankTail } from '@lectern/markdown';
import { OWN_MAPPING_BYTES } from './malloc.js';

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

/**
 * Shares one copy of each term string between documents. Terms are sliced out of lower-cased
 * text, and a slice can keep its whole source string alive: the first copy of each term kept
 * here is flattened into a string of its own. Forgetting the table ({@link clear}) is always
 * safe: documents keep their strings, later documents just stop sharing them.
 */
export class TermTable {
  private readonly map = new Map<string, string>();
  /** Past this many terms the table starts over, so it never grows without bound. */
  constructor(private readonly maxTerms = 500_000) {}

  /** The shared copy of `term`. */
  intern(term: string): string {
    const known = this.map.get(term);
    if (known !== undefined) return known;
    if (this.map.size >= this.maxTerms) this.map.clear();
    // Joining forces a flat copy: no slice of a larger string survives in the index.
    const own = term.length > 12 ? [...term].join('') : term;
    this.map.set(own, own);
    return own;
  }

  /** Distinct terms held. */
  get size(): number {
    return this.map.size;
  }

  /** Drops every shared copy. */
  clear(): void {
    this.map.clear();
  }
}

/**
 * The per-document index, compact: the document's distinct terms in sorted order, and for
 * each the units holding it with the term's heading and body counts, as variable-length
 * integers (unit gaps, then counts) in one byte array.
 */
export interface DocSearchData {
  units: SearchUnit[];
  /** Distinct terms, sorted (code unit order). */
  terms: string[];
  /** Byte offset of each term's postings in {@link postings}; one extra entry at the end. */
  termStarts: Uint32Array;
  /** Per term: (unit gap, heading count, body count) triples, each a LEB128 varint. */
  postings: Uint8Array;
  totalLen: number;
}

/** Estimated bytes a {@link DocSearchData} holds (term strings are shared, so not counted). */
export function searchDataBytes(d: DocSearchData): number {
  return (
    64 + d.units.length * 72 + d.terms.length * 8 + d.termStarts.byteLength + d.postings.byteLength
  );
}

/** Position of `term` in `d.terms`, or -1. */
function findTerm(d: DocSearchData, term: string): number {
  let lo = 0;
  let hi = d.terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = d.terms[mid]!;
    if (t === term) return mid;
    if (t < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The postings of `term` in `d` as a flat [unit, headTf, bodyTf, ...] list, or null. */
export function postingsOf(d: DocSearchData, term: string): number[] | null {
  const k = findTerm(d, term);
  if (k === -1) return null;
  const bytes = d.postings;
  const end = d.termStarts[k + 1]!;
  const out: number[] = [];
  let i = d.termStarts[k]!;
  let unit = 0;
  let field = 0;
  while (i < end) {
    let v = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    if (field === 0) {
      unit += v;
      out.push(unit);
    } else out.push(v);
    field = field === 2 ? 0 : field + 1;
  }
  return out;
}

/** Largest slice a term's postings grow by in a {@link PostingPool}. */
const MAX_SLICE_BYTES = 4096;

/** Texts from this many characters on write their postings into a {@link PostingPool}. */
const POOL_FROM_CHARS = 1024 * 1024;

/** Bytes of a pool's slab: a block malloc maps and unmaps on its own. */
const SLAB_BYTES = OWN_MAPPING_BYTES;

/** Bytes of slice `i` of one term's postings in a pool: 8, 16, … up to 4 KiB. */
const sliceBytes = (i: number) => Math.min(8 << Math.min(i, 9), MAX_SLICE_BYTES);

/**
 * The bytes of every term's postings while a large document is indexed, in slabs: each term
 * writes into slices that double in size (8 bytes up to 4 KiB) as its list grows. A buffer per
 * term that doubled gave the allocator thousands of blocks of every size to free, and glibc
 * kept ~15 MB of them in its heap after a 10 MB document was indexed. (A small document keeps
 * a buffer per term: most of them stay on V8's heap, and a slab per small document kept more
 * memory across a tree of a thousand files than it saved.)
 */
class PostingPool {
  readonly slabs: Uint8Array[] = [];
  private tail = SLAB_BYTES;

  /** Room for `n` bytes (at most a slab) in one slab; returns its pool offset. */
  alloc(n: number): number {
    if (this.tail + n > SLAB_BYTES) {
      this.slabs.push(new Uint8Array(SLAB_BYTES));
      this.tail = 0;
    }
    const at = (this.slabs.length - 1) * SLAB_BYTES + this.tail;
    this.tail += n;
    return at;
  }
}

/** One term's postings while a document is indexed. */
interface PostingWriter {
  /** Bytes written. */
  readonly length: number;
  /** Appends one unit's (unit, heading count, body count) as varints. */
  add(unit: number, headTf: number, bodyTf: number): void;
  /** Copies the bytes written into `out` at `at`. */
  copyTo(out: Uint8Array, at: number): void;
}

/** The posting encoding both writers share; they differ only in where `put` stores a byte. */
abstract class VarintPostingWriter implements PostingWriter {
  length = 0;
  private lastUnit = 0;
  /** Stores one byte and counts it in `length`. */
  protected abstract readonly put: (b: number) => void;

  add(unit: number, headTf: number, bodyTf: number): void {
    varint(unit - this.lastUnit, this.put);
    this.lastUnit = unit;
    varint(headTf, this.put);
    varint(bodyTf, this.put);
  }

  abstract copyTo(out: Uint8Array, at: number): void;
}

/** Appends `v` (a non-negative integer) as LEB128 varint bytes through `byte`. */
function varint(v: number, byte: (b: number) => void): void {
  let x = v;
  while (x >= 0x80) {
    byte((x % 0x80) | 0x80);
    x = Math.floor(x / 0x80);
  }
  byte(x);
}

/** A term's postings in a buffer of its own that doubles (on V8's heap up to 64 bytes). */
class BufferWriter extends VarintPostingWriter {
  private bytes = new Uint8Array(8);
  protected readonly put = (b: number) => {
    if (this.length === this.bytes.length) {
      const next = new Uint8Array(this.bytes.length * 2);
      next.set(this.bytes);
      this.bytes = next;
    }
    this.bytes[this.length++] = b;
  };

  copyTo(out: Uint8Array, at: number): void {
    out.set(this.bytes.subarray(0, this.length), at);
  }
}

/** A term's postings in slices of a {@link PostingPool}. */
class SlabWriter extends VarintPostingWriter {
  /**
   * Pool offsets of the slices written, in order (the last one is being written); slice `i`
   * holds {@link sliceBytes}(i) bytes, all full but the last.
   */
  private readonly slices: number[] = [];
  private pos = 0;
  private end = 0;

  constructor(private readonly pool: PostingPool) {
    super();
  }

  protected readonly put = (b: number) => {
    if (this.pos === this.end) {
      const size = sliceBytes(this.slices.length);
      this.pos = this.pool.alloc(size);
      this.end = this.pos + size;
      this.slices.push(this.pos);
    }
    const at = this.pos++;
    this.pool.slabs[Math.floor(at / SLAB_BYTES)]![at % SLAB_BYTES] = b;
    this.length++;
  };

  /** Copies the bytes written into `out` at `at`. */
  copyTo(out: Uint8Array, at: number): void {
    let left = this.length;
    let to = at;
    for (let i = 0; i < this.slices.length && left > 0; i++) {
      const from = this.slices[i]!;
      const n = Math.min(sliceBytes(i), left);
      const slab = this.pool.slabs[Math.floor(from / SLAB_BYTES)]!;
      const off = from % SLAB_BYTES;
      out.set(slab.subarray(off, off + n), to);
      to += n;
      left -= n;
    }
  }
}

function countInto(map: Map<string, number>, tokens: string[]): void {
  for (const t of tokens) map.set(t, (map.get(t) ?? 0) + 1);
}

/**
 * The search index of one document while it is built: units are added in document order
 * ({@link addUnit}), then {@link finish} packs the postings.
 */
class SearchBuilder {
  private readonly units: SearchUnit[] = [];
  private readonly lists = new Map<string, PostingWriter>();
  /** Where a large document's postings are written; null for a small one. */
  private readonly pool: PostingPool | null;
  private totalLen = 0;

  constructor(
    private readonly doc: DocModel,
    private readonly table: TermTable,
  ) {
    this.pool = doc.text.length >= POOL_FROM_CHARS ? new PostingPool() : null;
  }

  /** Adds the unit of `section` (-1: the preamble). */
  addUnit(section: number, head: string, bodyFirst: number, bodyLast: number): void {
    const doc = this.doc;
    const headToks = tokenize(head);
    const body =
      bodyLast >= bodyFirst
        ? doc.text.slice(lineStartOffset(doc, bodyFirst), lineEndOffset(doc, bodyLast))
        : '';
    const bodyToks = tokenize(body);
    if (headToks.length === 0 && bodyToks.length === 0) return;
    const u = this.units.length;
    this.units.push({
      section,
      headLen: headToks.length,
      bodyLen: bodyToks.length,
      bodyFirst,
      bodyLast,
    });
    this.totalLen += headToks.length + bodyToks.length;
    const h = new Map<string, number>();
    const b = new Map<string, number>();
    countInto(h, headToks);
    countInto(b, bodyToks);
    const push = (t: string) => {
      let list = this.lists.get(t);
      if (!list) {
        list = this.pool ? new SlabWriter(this.pool) : new BufferWriter();
        this.lists.set(this.table.intern(t), list);
      }
      list.add(u, h.get(t) ?? 0, b.get(t) ?? 0);
    };
    for (const t of h.keys()) push(t);
    for (const t of b.keys()) if (!h.has(t)) push(t);
  }

  /** The text before the first heading (after front matter), when there is any. */
  addPreamble(): void {
    const doc = this.doc;
    const firstBody = doc.frontMatter ? doc.frontMatter.endLine + 1 : 1;
    const first = doc.sections[0];
    const last = trimBlankTail(doc, firstBody, first ? first.startLine - 1 : doc.totalLines);
    if (last >= firstBody) this.addUnit(-1, '', firstBody, last);
  }

  /**
   * Adds section `i`. Heading lines are everything from startLine to the line before the
   * body; setext headings take two or more lines, so the body starts after the heading's own
   * last line.
   */
  addSection(i: number): void {
    const s = this.doc.sections[i]!;
    this.addUnit(i, s.heading, s.startLine + headingLineCount(this.doc, i), s.ownEndLine);
  }

  finish(): DocSearchData {
    const lists = this.lists;
    const terms = [...lists.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const termStarts = new Uint32Array(terms.length + 1);
    let size = 0;
    for (const w of lists.values()) size += w.length;
    const postings = new Uint8Array(size);
    let at = 0;
    terms.forEach((t, k) => {
      termStarts[k] = at;
      const w = lists.get(t)!;
      w.copyTo(postings, at);
      at += w.length;
    });
    termStarts[terms.length] = at;
    return { units: this.units, terms, termStarts, postings, totalLen: this.totalLen };
  }
}

/**
 * Builds the search index of a parsed document. Terms are shared through `table` when given
 * (a {@link DocsIndex} passes its own), else through a table of this call.
 */
export function buildSearchData(doc: DocModel, table: TermTable = new TermTable()): DocSearchData {
  const builder = new SearchBuilder(doc, table);
  builder.addPreamble();
  for (let i = 0; i < doc.sections.length; i++) builder.addSection(i);
  return builder.finish();
}

/**
 * Milliseconds a slice of {@link buildSearchDataInSlices} runs for before it lets the event
 * loop turn. Small, because a request waiting meanwhile (a read: open, stat, read, close) needs
 * several turns to be answered.
 */
export const SEARCH_SLICE_MS = 2;

/** Lets the event loop run what is waiting (I/O included) before the next slice. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * {@link buildSearchData} in slices: once a slice has run for `sliceMs` milliseconds (checked
 * after each section, so one very large section is one slice) it waits for the event loop's
 * next turn, so a large document is indexed on the calling thread while other requests are
 * still answered. The result is the same as the one-go build's, whatever the slicing.
 */
export async function buildSearchDataInSlices(
  doc: DocModel,
  table: TermTable = new TermTable(),
  sliceMs: number = SEARCH_SLICE_MS,
): Promise<DocSearchData> {
  const builder = new SearchBuilder(doc, table);
  builder.addPreamble();
  let since = performance.now();
  for (let i = 0; i < doc.sections.length; i++) {
    builder.addSection(i);
    if (i + 1 < doc.sections.length && performance.now() - since >= sliceMs) {
      await nextTurn();
      since = performance.now();
    }
  }
  return builder.finish();
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
  // Each query term's postings in each document, decoded once.
  const lists = terms.map((t) => datas.map((d) => postingsOf(d, t)));
  const df = new Map<string, number>();
  terms.forEach((t, ti) => {
    let n = 0;
    for (const list of lists[ti]!) n += (list?.length ?? 0) / 3;
    df.set(t, n);
  });
  const acc = new Map<number, Hit>();
  const k1 = 1.2;
  const b = 0.75;
  datas.forEach((d, di) => {
    for (const [ti, t] of terms.entries()) {
      const list = lists[ti]![di];
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
  return snippetOf(extractLines(doc, unit.bodyFirst, unit.bodyLast).content, query, heading, width);
}

/** {@link snippet} of a unit's body text, already read. */
export function snippetOf(body: string, query: string, heading: string, width = 180): string {
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
