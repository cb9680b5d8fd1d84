import type { DocModel } from '@lectern/markdown';
import { lineEndOffset, lineStartOffset, trimBlankTail } from '@lectern/markdown';
import {
  DETECT_SAMPLE_CHARS,
  declaredLanguage,
  detectLanguage,
  type Language,
  terms,
} from '@lectern/text';
import { OWN_MAPPING_BYTES } from './malloc.js';
import { proseOf } from './prose.js';

/*
 * Full-text search over sections: a small inverted index per document (built on first use and
 * cached with the parse), its terms analysed by @lectern/text in the document's language. The
 * ranking is in rank.ts, snippets in snippet.ts.
 */

/** The language of documents that declare none and whose prose is too short to identify. */
export const FALLBACK_LANGUAGE: Language = 'en';

/**
 * Prose shorter than this is not identified: trigram profiles mistake a line or two of English
 * for Danish or Spanish, and a document's stop words and stems would then be those of the wrong
 * language.
 */
export const MIN_DETECT_CHARS = 256;

/**
 * The language a document is analysed in: the one its front matter declares (`lang:` or
 * `language:`), else the one its prose reads as (code blocks left out; at least
 * {@link MIN_DETECT_CHARS} characters of it), else English, whose endings docs_search has
 * always folded.
 */
export function documentLanguage(doc: DocModel): Language {
  const head = doc.text.slice(0, 16 * 1024);
  const declared = declaredLanguage(head.split('\n', 200));
  if (declared) return declared;
  const sample = proseSample(doc.text);
  if (sample.length < MIN_DETECT_CHARS) return FALLBACK_LANGUAGE;
  return detectLanguage(sample, { fallback: FALLBACK_LANGUAGE });
}

/** Up to {@link DETECT_SAMPLE_CHARS} characters of a text's lines outside fenced code. */
function proseSample(text: string): string {
  const out: string[] = [];
  let size = 0;
  let fence: string | null = null;
  let from = 0;
  while (from < text.length && size < DETECT_SAMPLE_CHARS) {
    let to = text.indexOf('\n', from);
    if (to === -1) to = text.length;
    const line = text.slice(from, to);
    from = to + 1;
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    out.push(line);
    size += line.length + 1;
  }
  return out.join('\n');
}

/** One searchable unit: a section's heading and its own body, or a document's preamble. */
export interface SearchUnit {
  /** Section index, or -1 for the text before the first heading. */
  section: number;
  /** Terms in its own heading (the BM25F `title` field). */
  headLen: number;
  /** Terms in the headings of its enclosing sections (the `headings` field). */
  pathLen: number;
  /** Terms in its own body (the `body` field). */
  bodyLen: number;
  /** Index of its last descendant unit (itself when it has none): its subsections follow it. */
  last: number;
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
  /** The language its terms were analysed in. */
  language: Language;
  /** Sums over its units of {@link SearchUnit.headLen}, `pathLen` and `bodyLen`. */
  titleLen: number;
  pathLen: number;
  bodyLen: number;
}

/** Estimated bytes a {@link DocSearchData} holds (term strings are shared, so not counted). */
export function searchDataBytes(d: DocSearchData): number {
  return (
    96 + d.units.length * 88 + d.terms.length * 8 + d.termStarts.byteLength + d.postings.byteLength
  );
}

/** Position of `term` in `d.terms`, or -1. */
export function findTerm(d: DocSearchData, term: string): number {
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
  return k === -1 ? null : postingsAt(d, k);
}

/** The postings of the term at position `k` of `d.terms`, as {@link postingsOf} gives them. */
export function postingsAt(d: DocSearchData, k: number): number[] {
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

/** A lower-case letter followed by an upper-case one: inside a camel-case word. */
const CAMEL_STEP = /\p{Ll}\p{Lu}/gu;

const LETTER = /\p{L}/u;
const LOWER = /\p{Ll}/u;
const UPPER = /\p{Lu}/u;

/** True when a lower-case letter at `i` is followed by an upper-case one (ASCII checked inline). */
function camelStepAt(text: string, i: number): boolean {
  const a = text.charCodeAt(i);
  if (a < 128) {
    if (a < 97 || a > 122) return false;
    const b = text.charCodeAt(i + 1);
    return b < 128 ? b >= 65 && b <= 90 : UPPER.test(text[i + 1]!);
  }
  return LOWER.test(text[i]!) && UPPER.test(text[i + 1]!);
}

/**
 * `text` with each camel-case word followed by its parts (`macOS` → `macOS mac OS`), so that a
 * question's `mac` or `hash map` finds `macOS` and `HashMap`; the whole word is kept too.
 * One pass over the text; only the words around a lower-to-upper step are looked at again.
 */
export function withCamelParts(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i + 1 < text.length; i++) {
    if (!camelStepAt(text, i)) continue;
    let start = i;
    while (start > from && LETTER.test(text[start - 1]!)) start--;
    let end = i + 2;
    while (end < text.length && LETTER.test(text[end]!)) end++;
    const word = text.slice(start, end);
    out += `${text.slice(from, end)} ${word.replace(CAMEL_STEP, (p) => `${p[0]} ${p[1]}`)}`;
    from = end;
    i = end - 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

function countInto(map: Map<string, number>, tokens: string[]): void {
  for (const t of tokens) map.set(t, (map.get(t) ?? 0) + 1);
}

/** A unit whose subsections may still follow, while a document is indexed. */
interface OpenUnit {
  level: number;
  unit: number;
  headLen: number;
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
  private readonly language: Language;
  /** The units of the enclosing sections of the next one, outermost first. */
  private readonly open: OpenUnit[] = [];
  /** Terms in the headings of {@link open}. */
  private openLen = 0;
  private titleLen = 0;
  private pathLen = 0;
  private bodyLen = 0;

  constructor(
    private readonly doc: DocModel,
    private readonly table: TermTable,
  ) {
    this.pool = doc.text.length >= POOL_FROM_CHARS ? new PostingPool() : null;
    this.language = documentLanguage(doc);
  }

  /** Closes the open sections of `level` and deeper: their subsections end here. */
  private close(level: number): void {
    while (this.open.length > 0 && this.open.at(-1)!.level >= level) {
      const o = this.open.pop()!;
      this.openLen -= o.headLen;
      this.units[o.unit]!.last = this.units.length - 1;
    }
  }

  /** Adds the unit of `section` (-1: the preamble) at heading `level` (0 for the preamble). */
  addUnit(section: number, level: number, head: string, bodyFirst: number, bodyLast: number): void {
    const doc = this.doc;
    if (level > 0) this.close(level);
    const headToks = terms(withCamelParts(head), this.language);
    const body =
      bodyLast >= bodyFirst
        ? doc.text.slice(lineStartOffset(doc, bodyFirst), lineEndOffset(doc, bodyLast))
        : '';
    const bodyToks = terms(withCamelParts(proseOf(body)), this.language);
    if (headToks.length === 0 && bodyToks.length === 0) return;
    const u = this.units.length;
    this.units.push({
      section,
      headLen: headToks.length,
      pathLen: this.openLen,
      bodyLen: bodyToks.length,
      last: u,
      bodyFirst,
      bodyLast,
    });
    this.titleLen += headToks.length;
    this.pathLen += this.openLen;
    this.bodyLen += bodyToks.length;
    if (level > 0) {
      this.open.push({ level, unit: u, headLen: headToks.length });
      this.openLen += headToks.length;
    }
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
    if (last >= firstBody) this.addUnit(-1, 0, '', firstBody, last);
  }

  /**
   * Adds section `i`. Heading lines are everything from startLine to the line before the
   * body; setext headings take two or more lines, so the body starts after the heading's own
   * last line.
   */
  addSection(i: number): void {
    const s = this.doc.sections[i]!;
    this.addUnit(i, s.level, s.heading, s.startLine + headingLineCount(this.doc, i), s.ownEndLine);
  }

  finish(): DocSearchData {
    this.close(1);
    const lists = this.lists;
    const sorted = [...lists.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const termStarts = new Uint32Array(sorted.length + 1);
    let size = 0;
    for (const w of lists.values()) size += w.length;
    const postings = new Uint8Array(size);
    let at = 0;
    sorted.forEach((t, k) => {
      termStarts[k] = at;
      const w = lists.get(t)!;
      w.copyTo(postings, at);
      at += w.length;
    });
    termStarts[sorted.length] = at;
    return {
      units: this.units,
      terms: sorted,
      termStarts,
      postings,
      language: this.language,
      titleLen: this.titleLen,
      pathLen: this.pathLen,
      bodyLen: this.bodyLen,
    };
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
