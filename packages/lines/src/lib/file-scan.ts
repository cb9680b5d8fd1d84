import { isUtf8 } from 'node:buffer';
import { closeSync, readSync } from 'node:fs';
import { isToolError, openInRootSync, type Root } from '@lectern/core';
import { type FileMatches, findLineMatches } from './match.js';

/*
 * The per-file work of a search, written so that the main thread and the search workers run
 * the very same code: every function here is self-contained (it refers to nothing outside its
 * own body and its arguments), because the worker runs it from its source text.
 */

/** What a literal search needs to rule files out by their bytes (see {@link makePrefilter}). */
export interface PrefilterSpec {
  query: string;
  caseSensitive: boolean;
}

/** What one file turned out to be, in the order the checks run. */
export type FileVerdict =
  | { kind: 'too_large' }
  | { kind: 'unreadable' }
  | { kind: 'binary'; length: number }
  | { kind: 'invalid_utf8'; length: number }
  /** Searched: `result` when the scan ran here, `text` when the caller scans it (regex). */
  | { kind: 'text'; length: number; result?: FileMatches; text?: string };

/** Scan parameters, as {@link findLineMatches} takes them. */
export interface JudgeParams {
  source: string;
  flags: string;
  cap: number;
  contextLines: number;
  maxChars: number;
}

/**
 * A byte-level check that rules out files which cannot contain a literal: the UTF-8 needle
 * for a case-sensitive query; for a case-insensitive ASCII query, the query with ASCII letters
 * matched in either case over the raw bytes (no decoding: in UTF-8 an ASCII byte is always
 * that ASCII character, and an ASCII letter only matches ASCII letters), or the presence of a
 * character that folds onto one of the query's letters (KELVIN SIGN onto k, LONG S onto s:
 * the only non-ASCII characters Unicode simple case folding maps onto ASCII letters).
 * Undefined when there is no cheap check. Self-contained (also run inside the search workers).
 *
 * The case-insensitive byte search is a Horspool search with ASCII case folding for queries of
 * 5 bytes or more; shorter ones (where Horspool's skips are too short to pay) use a legacy-mode
 * `i` RegExp over the bytes read as Latin-1, which accepts exactly the same files: legacy
 * case-insensitive matching never maps a character above U+007F onto one below it.
 */
export function makePrefilter(spec: PrefilterSpec): ((bytes: Buffer) => boolean) | undefined {
  if (spec.caseSensitive) {
    const needle = Buffer.from(spec.query, 'utf8');
    return (bytes) => bytes.indexOf(needle) !== -1;
  }
  if (!/^[\u0000-\u007f]*$/.test(spec.query)) return undefined;
  const lower = spec.query.toLowerCase();
  const folds: Buffer[] = [];
  if (lower.includes('k')) folds.push(Buffer.from('\u212A', 'utf8'));
  if (lower.includes('s')) folds.push(Buffer.from('\u017F', 'utf8'));
  const folded = (bytes: Buffer) => folds.some((f) => bytes.indexOf(f) !== -1);
  const m = lower.length;
  if (m < 5) {
    const re = new RegExp(spec.query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
    return (bytes) => re.test(bytes.toString('latin1')) || folded(bytes);
  }
  // Horspool: `pat` is the query in lower case; `low` folds a byte's ASCII capital to lower
  // case; `skip[b]` is how far the window may move when byte b is under its last position
  // (0 for the last letter itself, in either case: then the window is compared).
  const pat = Buffer.from(lower, 'latin1');
  const low = new Uint8Array(256);
  for (let c = 0; c < 256; c++) low[c] = c >= 65 && c <= 90 ? c + 32 : c;
  const skip = new Int32Array(256).fill(m);
  const last = pat[m - 1]!;
  let again = m;
  for (let i = 0; i < m - 1; i++) {
    const c = pat[i]!;
    skip[c] = m - 1 - i;
    if (c >= 97 && c <= 122) skip[c - 32] = m - 1 - i;
    if (c === last) again = m - 1 - i;
  }
  skip[last] = 0;
  if (last >= 97 && last <= 122) skip[last - 32] = 0;
  const found = (bytes: Buffer): boolean => {
    const n = bytes.length;
    let i = m - 1;
    for (;;) {
      while (i < n) {
        const s = skip[bytes[i]!]!;
        if (s === 0) break;
        i += s;
      }
      if (i >= n) return false;
      let j = m - 2;
      let k = i - 1;
      while (j >= 0 && low[bytes[k]!] === pat[j]) {
        j--;
        k--;
      }
      if (j < 0) return true;
      i += again;
    }
  };
  return (bytes) => found(bytes) || folded(bytes);
}

/**
 * A thread's reusable read buffer (see {@link readBounded}): the bytes of one file live in it
 * only until the next file is read on the same thread, so nothing may keep them.
 */
export interface ReadScratch {
  buf: Buffer | undefined;
}

/**
 * Reads the whole file open as `fd` whose fstat size was `size`, as the root guard's bounded
 * read does: at most size + 1 bytes, positioned reads (so the descriptor's offset is never
 * used), refused as `too_large` when it grew past `cap` while being read, and cut to `size`.
 * With `scratch`, a file of up to 1 MiB is read into that thread's reusable buffer instead of
 * a new one (a search reads every file once and keeps none of their bytes: fresh buffers for
 * each cost allocation, page faults and garbage collection on every search); the returned
 * bytes are then only valid until the next read with the same scratch.
 * Self-contained (also run inside the search workers).
 */
export function readBounded(
  fd: number,
  size: number,
  cap: number,
  read: typeof readSync,
  scratch?: ReadScratch,
): Buffer | 'too_large' {
  const want = size + 1;
  const reuseUpTo = 1024 * 1024 + 1;
  let buf: Buffer;
  if (scratch !== undefined && want <= reuseUpTo) {
    let held = scratch.buf;
    if (held === undefined || held.length < want) {
      held = Buffer.allocUnsafeSlow(
        Math.min(reuseUpTo, Math.max(want, 2 * (held?.length ?? 0), 65536)),
      );
      scratch.buf = held;
    }
    buf = held;
  } else {
    buf = Buffer.allocUnsafe(want);
  }
  let total = 0;
  for (;;) {
    const n = read(fd, buf, total, want - total, total);
    if (n === 0) break;
    total += n;
    if (total === want) break;
    // Under the cap, the extra byte could not make the file too large (it is cut off anyway),
    // so the read that would only confirm the end is skipped.
    if (total >= size && size < cap) break;
  }
  if (total > size && total > cap) return 'too_large';
  return buf.subarray(0, Math.min(total, size));
}

/**
 * Judges one file's bytes in the order search_text always has: a prefilter miss is a searched
 * file with no match (whatever its bytes), then NUL bytes (binary), then invalid UTF-8, then
 * the text without its BOM, scanned with `find` when given or returned for the caller to scan.
 * Self-contained (also run inside the search workers).
 */
export function judgeBytes(
  bytes: Buffer,
  mayMatch: ((bytes: Buffer) => boolean) | undefined,
  params: JudgeParams,
  find: typeof findLineMatches | undefined,
  utf8: (bytes: Buffer) => boolean,
): FileVerdict {
  const length = bytes.length;
  if (mayMatch && !mayMatch(bytes)) {
    return { kind: 'text', length, result: { matches: [], capped: false } };
  }
  if (bytes.indexOf(0) !== -1) return { kind: 'binary', length };
  if (!utf8(bytes)) return { kind: 'invalid_utf8', length };
  const bom = length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const text = (bom ? bytes.subarray(3) : bytes).toString('utf8');
  if (!find) return { kind: 'text', length, text };
  return {
    kind: 'text',
    length,
    result: find(
      text,
      params.source,
      params.flags,
      params.cap,
      params.contextLines,
      params.maxChars,
    ),
  };
}

/** What {@link loadAndJudge} calls: the root guard's open and Node built-ins. */
export interface JudgeDeps {
  openInRootSync: typeof openInRootSync;
  isToolError: typeof isToolError;
  readSync: typeof readSync;
  closeSync: typeof closeSync;
  isUtf8: (bytes: Buffer) => boolean;
  readBounded: typeof readBounded;
  /** This thread's read buffer, reused from file to file. */
  scratch: ReadScratch;
  judgeBytes: typeof judgeBytes;
  findLineMatches: typeof findLineMatches;
}

/**
 * Opens one file through the root guard (the descriptor-checked open: links, hard links,
 * reserved names and swaps refused as everywhere else), reads it bounded by `cap` and judges
 * it; `scan` false returns a text file's decoded text instead of scanning it. Any refusal or
 * read failure is `unreadable`, except a file over the cap, which is `too_large`.
 * Self-contained (also run inside the search workers, with their own copy of the guard).
 */
export function loadAndJudge(
  root: Root,
  path: string,
  cap: number,
  mayMatch: ((bytes: Buffer) => boolean) | undefined,
  params: JudgeParams,
  scan: boolean,
  deps: JudgeDeps,
): FileVerdict {
  let file: { fd: number; stat: { size: number } };
  try {
    file = deps.openInRootSync(root, path, { maxBytes: cap });
  } catch (error) {
    return deps.isToolError(error) && error.code === 'FILE_TOO_LARGE'
      ? { kind: 'too_large' }
      : { kind: 'unreadable' };
  }
  let bytes: Buffer | 'too_large';
  try {
    bytes = deps.readBounded(file.fd, file.stat.size, cap, deps.readSync, deps.scratch);
  } catch {
    return { kind: 'unreadable' };
  } finally {
    deps.closeSync(file.fd);
  }
  if (bytes === 'too_large') return { kind: 'too_large' };
  return deps.judgeBytes(
    bytes,
    mayMatch,
    params,
    scan ? deps.findLineMatches : undefined,
    deps.isUtf8,
  );
}

/** {@link JudgeDeps} on this thread. */
export const HERE: JudgeDeps = {
  openInRootSync,
  isToolError,
  readSync,
  closeSync,
  isUtf8,
  readBounded,
  scratch: { buf: undefined },
  judgeBytes,
  findLineMatches,
};
