/**
 * Compact postings of the common terms (those in more than {@link postingsMinDf} chunks at the
 * last full build, and not in more than 30%; see {@link postingsTerms}): every chunk holding the term, with its counts in the title, headings and
 * body, in one blob per term. A question whose words are each in thousands of chunks is scored
 * on all of them (see `veryCommon`: reading only the champion lists would change the ranking),
 * and an engine's own postings cost about 0.2 µs per occurrence to hand over (SQLite's
 * `fts5vocab` instances) where a blob decodes at a few nanoseconds per chunk.
 *
 * Layout, per chunk in ascending id order: the gap from the previous id less one (the first
 * from −1) as an unsigned LEB128 varint, then the counts in one byte, `title << 6 | headings
 * << 4 | body`, when they fit (title ≤ 3, headings ≤ 3, body ≤ 15, not all three at their
 * maximum), else the byte {@link WIDE} and the three counts as varints (each at most 65,535,
 * as `packCounts` keeps them). About 2.5 bytes per chunk.
 *
 * A blob is written for the chunks of the last full build; the chunks added since keep their
 * counts in rows of their own, and the ids of removed chunks are skipped by the reader (chunk
 * ids are never reused). The store rewrites every blob once the changes since the build pass
 * {@link POSTINGS_REFOLD_SHARE} of the index.
 */

import { COMMON_SHARE } from './rank.js';

/** The counts byte that announces three varints. */
const WIDE = 0xff;

const COUNT_MAX = 0xffff;

/** Changes (chunks added or removed) since the blobs were written, as a share of all chunks, past which they are rewritten. */
export const POSTINGS_REFOLD_SHARE = 0.1;

/**
 * @internal Which terms a full build writes postings for: those in more than `minDf` chunks
 * and more than `share` of all chunks (tests set small values for small indexes). Reading a
 * term's occurrences from FTS5 costs about 40 µs plus 0.2 µs per occurrence; below these a
 * blob saves little and costs a row.
 */
export const postingsTuning = { minDf: 50, share: 0.01 };

/** The document frequency above which a full build over `chunks` chunks writes a term's postings. */
export function postingsMinDf(chunks: number): number {
  return Math.max(postingsTuning.minDf, Math.floor(postingsTuning.share * chunks));
}

/**
 * The terms a full build over `chunks` chunks writes postings for, from every term's document
 * frequency: more than {@link postingsMinDf}, and at most `COMMON_SHARE` of the chunks. A term
 * in more is never read in full (a search reads its champion list, `veryCommon`), and its
 * occurrences were half of all the index's on the bench's notes: reading them at every full
 * build cost about 0.6 s for nothing.
 */
export function postingsTerms(
  frequencies: { terms: readonly string[]; df: ArrayLike<number> },
  chunks: number,
): string[] {
  const low = postingsMinDf(chunks);
  const high = COMMON_SHARE * chunks;
  const out: string[] = [];
  frequencies.terms.forEach((term, t) => {
    const df = frequencies.df[t]!;
    if (df > low && df <= high) out.push(term);
  });
  return out;
}

/** Writes one term's postings, chunk by chunk in ascending id order. */
export class PostingsEncoder {
  private bytes = new Uint8Array(256);
  private n = 0;
  private last = -1;
  /** Chunks written. */
  count = 0;

  /** Adds a chunk holding the term `title`, `headings` and `body` times. */
  add(id: number, title: number, headings: number, body: number): void {
    if (!Number.isSafeInteger(id) || id <= this.last) {
      throw new RangeError(`postings take ascending chunk ids: ${id} after ${this.last}`);
    }
    this.room(24);
    this.varint(id - this.last - 1);
    this.last = id;
    const t = Math.min(title, COUNT_MAX);
    const h = Math.min(headings, COUNT_MAX);
    const b = Math.min(body, COUNT_MAX);
    if (t <= 3 && h <= 3 && b <= 15 && (t << 6) + (h << 4) + b !== WIDE) {
      this.bytes[this.n++] = (t << 6) | (h << 4) | b;
    } else {
      this.bytes[this.n++] = WIDE;
      this.varint(t);
      this.varint(h);
      this.varint(b);
    }
    this.count++;
  }

  /** The blob (a copy the encoder no longer writes to). */
  finish(): Uint8Array {
    return this.bytes.slice(0, this.n);
  }

  private varint(v: number): void {
    while (v >= 0x80) {
      this.bytes[this.n++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.n++] = v;
  }

  private room(extra: number): void {
    if (this.n + extra <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.n + extra));
    next.set(this.bytes.subarray(0, this.n));
    this.bytes = next;
  }
}

/** Encodes `[id, title, headings, body]` rows in ascending id order. */
export function encodePostings(rows: Iterable<readonly [number, number, number, number]>) {
  const encoder = new PostingsEncoder();
  for (const [id, t, h, b] of rows) encoder.add(id, t, h, b);
  return encoder.finish();
}

/**
 * Visits every chunk of a blob in ascending id order with the term's counts there. Throws a
 * `RangeError` on a blob that ends inside a chunk (a damaged row).
 */
export function eachPosting(
  blob: Uint8Array,
  visit: (id: number, title: number, headings: number, body: number) => void,
): void {
  const n = blob.length;
  let i = 0;
  let id = -1;
  const varint = (): number => {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (i >= n) throw new RangeError('postings blob ends inside a varint');
      const c = blob[i++]!;
      v += (c & 0x7f) * scale;
      if (c < 0x80) return v;
      scale *= 0x80;
    }
  };
  while (i < n) {
    // The common case inline: a one-byte gap and one-byte counts.
    const g = blob[i]!;
    if (g < 0x80) i++;
    id += (g < 0x80 ? g : varint()) + 1;
    if (i >= n) throw new RangeError('postings blob ends before a chunk’s counts');
    const c = blob[i++]!;
    if (c !== WIDE) visit(id, c >> 6, (c >> 4) & 3, c & 15);
    else {
      const t = varint();
      const h = varint();
      visit(id, t, h, varint());
    }
  }
}

/** How many chunks of a blob `live` accepts (a term's document frequency among live chunks). */
export function countPostings(blob: Uint8Array, live: (id: number) => boolean): number {
  let df = 0;
  eachPosting(blob, (id) => {
    if (live(id)) df++;
  });
  return df;
}
