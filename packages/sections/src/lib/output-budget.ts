import { cutStrings, ToolError, type ValuePath } from '@lectern/core';
import type { Section } from '@lectern/markdown';
import type { IndexedDoc } from './docs-index.js';

/** Bytes kept for a result's fixed fields (keys, counts, offsets) around its list. */
export const ENVELOPE_BYTES = 1024;

/**
 * A ranked result at `offset` that alone is over the byte budget of one response: the same
 * error, code and details as core's `collectPage`, so `next_offset` skips it.
 */
export function entryTooLarge(offset: number, bytes: number, maxBytes: number): ToolError {
  return new ToolError(
    'OUTPUT_TOO_LARGE',
    (n) =>
      `entry ${offset} of the list alone takes ${bytes} bytes of JSON, over the ${maxBytes}-byte budget of one response; pass ${n('offset')} ${offset + 1} to continue after it.`,
    { details: { offset, next_offset: offset + 1, bytes, max_bytes: maxBytes } },
  );
}

/**
 * docs_where answers in one response, without paging: when its best `limit` sections do not
 * fit the budget, it names the `limit` that does (or, when not even the best one fits, says so).
 */
export function whereTooLarge(
  fit: number,
  limit: number,
  bytes: number,
  maxBytes: number,
): ToolError {
  return new ToolError(
    'OUTPUT_TOO_LARGE',
    (n) =>
      fit > 0
        ? `the ${limit} sections asked for take more than the ${maxBytes}-byte budget of one response (their headings are long); only the best ${fit} fit: pass ${n('limit')} ${fit}, or page through them with ${n('docs_search')}.`
        : `the section found alone takes ${bytes} bytes of JSON, over the ${maxBytes}-byte budget of one response (its heading or heading path is very long).`,
    { details: { param: 'limit', fits: fit, bytes, max_bytes: maxBytes } },
  );
}

/** A section and the sections above it, outermost first (its heading path, as sections). */
export function sectionChain(doc: IndexedDoc, section: Section | null): Section[] {
  const chain: Section[] = [];
  for (let s = section; s; s = s.parent === -1 ? null : (doc.model.sections[s.parent] ?? null)) {
    chain.unshift(s);
  }
  return chain;
}

/**
 * A result about one section that alone is over the budget (a heading of 100,000 characters, a
 * huge heading path), made to fit: its long strings are cut with a marker that says how many
 * characters were kept and how to read the rest: docs_read of the whole document from the
 * offset where the heading's line starts (for inline text, which line of the text it is).
 * `sectionAt` tells which section a cut string belongs to (its path in the result); null when
 * it cannot be made to fit.
 */
export function cutSectionResult<T>(
  doc: IndexedDoc,
  value: T,
  maxBytes: number,
  sectionAt: (path: ValuePath) => Section | null,
): T | null {
  return cutStrings(value, maxBytes, (path, shown, total) => {
    const s = sectionAt(path);
    const how =
      doc.docId === null
        ? `it is line ${s?.startLine ?? 1} of the text`
        : `docs_read "${doc.docId}" from offset ${s ? (doc.model.sectionStarts[s.index] ?? 0) : 0} reads it whole`;
    return ` … [cut: ${shown} of ${total} characters; ${how}]`;
  });
}

/** {@link cutSectionResult} for a section reference (anchor, heading, heading_path, …). */
export function cutSectionRef<T>(
  doc: IndexedDoc,
  section: Section | null,
  value: T,
  maxBytes: number,
): T | null {
  const chain = sectionChain(doc, section);
  return cutSectionResult(doc, value, maxBytes, (path) =>
    path[0] === 'heading_path' && typeof path[1] === 'number'
      ? (chain[path[1]] ?? section)
      : section,
  );
}
