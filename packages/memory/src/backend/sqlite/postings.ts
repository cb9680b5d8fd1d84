import type Database from 'better-sqlite3';
import { unpackCounts } from '../../lib/champions.js';
import { countPostings, eachPosting, PostingsEncoder } from '../../lib/postings.js';
import { SQL } from './sql.js';

type Statement = Database.Statement;

/**
 * The SQLite store of the common terms' postings (`lib/postings.ts`): a blob per term in
 * `postings`, written from the full-text index's own occurrences after a full build, and a row
 * per (term, chunk) in `postings_added` for chunks added since. The meta row
 * {@link CHANGES_KEY} counts the chunks added and removed since the blobs were written.
 */

/** Meta key: chunks added or removed since the blobs were written. */
export const CHANGES_KEY = 'postings_changes';

/** Splits a packed list of `id * 4 + field` codes (see `SQL.places`). */
function eachPlace(packed: string, visit: (id: number, field: number) => void): void {
  let n = 0;
  for (let i = 0; i <= packed.length; i++) {
    const c = i < packed.length ? packed.charCodeAt(i) : 44;
    if (c === 44) {
      visit(Math.floor(n / 4), n % 4);
      n = 0;
    } else {
      n = n * 10 + (c - 48);
    }
  }
}

/**
 * Visits the chunks of packed occurrences (`SQL.places`) with their counts in the title,
 * headings and body: one visit per run of one chunk's occurrences (a term's come grouped by
 * chunk, in ascending order; several terms' read together visit a chunk once per term).
 */
export function eachPlacedChunk(
  packed: string | null,
  visit: (id: number, title: number, headings: number, body: number) => void,
): void {
  if (!packed) return;
  let at = -1;
  const counts = [0, 0, 0];
  eachPlace(packed, (id, field) => {
    if (id !== at) {
      if (at >= 0) visit(at, counts[0]!, counts[1]!, counts[2]!);
      at = id;
      counts.fill(0);
    }
    counts[field]! += 1;
  });
  if (at >= 0) visit(at, counts[0]!, counts[1]!, counts[2]!);
}

/**
 * Rewrites every blob, one per term of `terms` found in the index, from the full-text index's
 * occurrences (`temp.chunks_places` on the writer's connection, which sees the transaction's
 * writes), empties `postings_added` and resets the change count. About 0.3 µs per occurrence:
 * about 1 s for the 1,078 terms of 10,000 notes (4.5 million occurrences).
 */
export function writeAllPostings(stmt: (sql: string) => Statement, terms: Iterable<string>): void {
  for (const sql of SQL.postingsClear.split(';')) if (sql.trim()) stmt(sql).run();
  const places = stmt(SQL.places).pluck();
  const insert = stmt(SQL.postingsInsert);
  for (const term of terms) {
    const encoder = new PostingsEncoder();
    eachPlacedChunk(places.get(term) as string | null, (id, t, h, b) => encoder.add(id, t, h, b));
    if (encoder.count > 0) insert.run(term, encoder.finish());
  }
  stmt(SQL.setMeta).run(CHANGES_KEY, '0');
}

/** A term's postings as the reader finds them: the blob and the rows added since. */
export interface StoredPostings {
  blob: Uint8Array;
  added: Array<[number, number]>;
}

/** The term's postings, or `undefined` when it has none (not that common at the last full build). */
export function readPostings(
  stmt: (sql: string) => Statement,
  term: string,
): StoredPostings | undefined {
  const blob = stmt(SQL.postings).pluck().get(term) as Uint8Array | undefined;
  if (!blob) return undefined;
  const added = stmt(SQL.postingsAdded).raw(true).all(term) as Array<[number, number]>;
  return { blob, added };
}

/** How many chunks that `live` accepts hold the term. */
export function postingsFrequency(p: StoredPostings, live: (id: number) => boolean): number {
  let df = countPostings(p.blob, live);
  for (const [id] of p.added) if (live(id)) df++;
  return df;
}

/** Visits every chunk holding the term with its counts (removed chunks too: filter by id). */
export function eachStoredPosting(
  p: StoredPostings,
  visit: (id: number, title: number, headings: number, body: number) => void,
): void {
  eachPosting(p.blob, visit);
  for (const [id, packed] of p.added) {
    const [t, h, b] = unpackCounts(packed);
    visit(id, t, h, b);
  }
}
