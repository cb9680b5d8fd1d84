import { type BigIntStats, closeSync, fstatSync, readSync, type Stats } from 'node:fs';
import {
  createRootSync,
  decodeUtf8,
  isToolError,
  type LineEndings,
  type LinePlan,
  openInRootSync,
  planLines,
  type Root,
  sha256,
  ToolError,
} from '@lectern/core';
import { type LineLimits, resolveLimits } from './limits.js';
import {
  BufferSource,
  type ByteSource,
  HandleSource,
  type LineExtent,
  lineExtents,
  type ReadHandle,
  scanText,
  type TextFacts,
} from './line-index.js';
import { Lru } from './lru.js';
import { isSha256, jsonBytes, SOURCE_TRUST } from './output.js';

/** What to read: a range from `start_line`, or the final `tail` lines. */
export interface ReadLinesRequest {
  /** File path relative to the root (or absolute inside it). */
  path: string;
  /** First line, 1-based (default 1). Not allowed with `tail`. */
  start_line?: number;
  /** Lines wanted from `start_line` (default `limits.defaultLines`, at most `limits.maxLines`). */
  line_count?: number;
  /** Read the final `tail` lines instead of a range (at most `limits.maxLines`). */
  tail?: number;
  /** When given and the file's SHA-256 differs, nothing is read and `FILE_CHANGED` is thrown. */
  expected_sha256?: string;
}

/** One numbered line of text. */
export interface NumberedLine {
  /** Line number, 1-based. */
  line: number;
  /** The line's text without its line ending (a BOM is never part of line 1). */
  text: string;
}

/** A window of whole lines of one file, as read_text returns it. */
export interface LineWindow {
  /** Workspace id, when the read came through a workspace. */
  workspace?: string;
  /** Normalised path relative to the root. */
  path: string;
  /** SHA-256 of the raw file bytes (BOM and line endings included). */
  sha256: string;
  /** File size in bytes. */
  size: number;
  bom: boolean;
  encoding: 'utf-8';
  line_endings: LineEndings;
  total_lines: number;
  start_line: number;
  end_line: number;
  has_more: boolean;
  has_earlier: boolean;
  next_start_line: number | null;
  /** True when the text or output budget ended the window before the requested line count. */
  output_limited: boolean;
  source_trust: typeof SOURCE_TRUST;
  lines: NumberedLine[];
}

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /** Lower limits than the defaults (see `DEFAULT_LINE_LIMITS`). */
  limits?: Partial<LineLimits>;
  /** Workspace id to report in the result. */
  workspace?: string;
}

/** Facts by content hash: valid for any file with those bytes. */
const factsByHash = new Lru<string, TextFacts>(64);
/** Content hash by file identity (dev, inode, size, mtime, ctime), only for settled files. */
const hashByIdentity = new Lru<string, string>(512);
/**
 * A file whose mtime and ctime are at least this old when it is hashed is "settled": any later
 * change moves its ctime, so its identity key can stand in for its hash (as git does for its
 * index). Younger files are re-hashed on every read.
 */
let SETTLED_MS = 2000;

/**
 * Overrides the settle time (tests only: a negative value treats every file as settled, so the
 * identity cache path can be exercised without waiting). Returns the previous value.
 */
export function setSettledMsForTests(ms: number): number {
  const previous = SETTLED_MS;
  SETTLED_MS = ms;
  return previous;
}

let identityHits = 0;

/** Empties the read caches (for tests and benchmarks). */
export function clearLineCaches(): void {
  factsByHash.clear();
  hashByIdentity.clear();
}

/** How many reads were served from the identity cache (reading only the window's bytes). */
export function identityCacheHits(): number {
  return identityHits;
}

function checkCount(name: string, value: number | undefined, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1) {
    throw new ToolError(
      'INVALID_RANGE',
      (n) => `${n(name)} must be a whole number of at least 1, got ${value}.`,
      { details: { param: name } },
    );
  }
  if (value > max) {
    throw new ToolError(
      'LINE_LIMIT_EXCEEDED',
      (n) =>
        `${n(name)} is ${value}, over the limit of ${max} lines per call; read the file in several calls with ${n('start_line')}.`,
      { details: { param: name, max_lines: max } },
    );
  }
}

/** Checks a request against the limits without touching the disk. */
export function checkReadRequest(request: ReadLinesRequest, limits: LineLimits): void {
  if (typeof request.path !== 'string' || request.path === '') {
    throw new ToolError(
      'PATH_INVALID',
      (n) => `${n('path')} must be a non-empty file path relative to the workspace.`,
      { details: { param: 'path' } },
    );
  }
  if (request.tail !== undefined && request.start_line !== undefined) {
    throw new ToolError(
      'INVALID_RANGE',
      (n) =>
        `${n('tail')} reads the final lines and cannot be combined with ${n('start_line')}; pass one or the other.`,
      { details: { params: ['tail', 'start_line'] } },
    );
  }
  if (request.tail !== undefined && request.line_count !== undefined) {
    throw new ToolError(
      'INVALID_RANGE',
      (n) =>
        `${n('tail')} already says how many final lines to read; do not pass ${n('line_count')} with it.`,
      { details: { params: ['tail', 'line_count'] } },
    );
  }
  if (
    request.start_line !== undefined &&
    (!Number.isInteger(request.start_line) || request.start_line < 1)
  ) {
    throw new ToolError(
      'INVALID_RANGE',
      (n) => `${n('start_line')} must be a whole number of at least 1, got ${request.start_line}.`,
      { details: { param: 'start_line' } },
    );
  }
  checkCount('line_count', request.line_count, limits.maxLines);
  checkCount('tail', request.tail, limits.maxLines);
  if (request.expected_sha256 !== undefined && !isSha256(request.expected_sha256)) {
    throw new ToolError(
      'INVALID_SHA256',
      (n) =>
        `${n('expected_sha256')} must be 64 hexadecimal characters, as returned in ${n('sha256')} by an earlier read.`,
      { details: { param: 'expected_sha256' } },
    );
  }
}

/** An open file for a text read: reads are synchronous under a promise-shaped surface. */
export interface TextFile {
  handle: ReadHandle & { stat(options: { bigint: true }): Promise<BigIntStats> };
  stat: Stats;
  relativePath: string;
  close(): void;
}

/**
 * Opens a file for a text read through the root guard's synchronous variant (the same
 * checks), pointing oversized files to read_artifact. A read of a few hundred lines costs
 * less in blocking calls than in trips through the thread pool.
 */
export function openForText(root: Root, path: string, maxBytes: number): TextFile {
  let opened: ReturnType<typeof openInRootSync>;
  try {
    opened = openInRootSync(root, path, { maxBytes });
  } catch (error) {
    if (isToolError(error) && error.code === 'FILE_TOO_LARGE') {
      throw new ToolError(
        'FILE_TOO_LARGE',
        `${error.message} Text tools read files up to ${maxBytes} bytes; use read_artifact to read byte ranges of larger files.`,
        { details: { ...error.details } },
      );
    }
    throw error;
  }
  const fd = opened.fd;
  return {
    handle: {
      read: async (buffer, offset, length, position) => ({
        bytesRead: readSync(fd, buffer, offset, length, position),
      }),
      stat: async () => fstatSync(fd, { bigint: true }),
    },
    stat: opened.stat,
    relativePath: opened.relativePath,
    close: () => closeSync(fd),
  };
}

async function readAll(handle: ReadHandle, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buf, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === size ? buf : buf.subarray(0, filled);
}

function changed(path: string, expected: string, current: string): ToolError {
  return new ToolError(
    'FILE_CHANGED',
    `file ${path} changed: its SHA-256 is now ${current}, not the expected ${expected}, so no content was returned. Read it again to get the current lines.`,
    { details: { expected_sha256: expected.toLowerCase(), current_sha256: current } },
  );
}

function lineTooLong(path: string, e: LineExtent, budget: number, what: string): ToolError {
  const length = e.end - e.start;
  return new ToolError(
    'LINE_TOO_LONG',
    `line ${e.line} of ${path} is ${length} bytes, so it does not fit the ${budget}-byte ${what} of one read; read it as bytes with read_artifact (offset ${e.start}, length ${length}).`,
    { details: { line: e.line, offset: e.start, length, max_bytes: budget } },
  );
}

function tailTooLarge(
  path: string,
  tail: number,
  budget: number,
  what: string,
  bytes: number,
  fits: number,
): ToolError {
  return new ToolError(
    'TAIL_TOO_LARGE',
    (n) =>
      `the final ${tail} lines of ${path} need ${bytes} bytes, over the ${budget}-byte ${what} of one read; at most the final ${fits} lines fit, so ask for fewer, or page with ${n('start_line')}.`,
    { details: { tail, bytes, max_bytes: budget, max_tail: fits } },
  );
}

/** Plans the window with core's planner, turning its budget errors into ours. */
function plan(
  path: string,
  totalLines: number,
  request: { startLine?: number; lineCount?: number; tail?: number },
  budget: number,
  what: string,
  cost: (n: number) => number,
  extentOf: (n: number) => LineExtent | undefined,
): LinePlan {
  try {
    return planLines({ totalLines, ...request, maxBytes: budget, lineBytes: cost });
  } catch (error) {
    if (isToolError(error) && error.code === 'LINE_TOO_LONG') {
      const line = Number(error.details?.line);
      const extent = extentOf(line);
      if (extent) throw lineTooLong(path, extent, budget, what);
    }
    if (isToolError(error) && error.code === 'TAIL_TOO_LARGE' && request.tail !== undefined) {
      let fits = 0;
      let bytes = 0;
      for (let n = totalLines; n > totalLines - request.tail; n--) {
        bytes += cost(n);
        if (bytes > budget) break;
        fits++;
      }
      const last = extentOf(totalLines);
      if (fits === 0 && last) throw lineTooLong(path, last, budget, what);
      throw tailTooLarge(path, request.tail, budget, what, Number(error.details?.bytes), fits);
    }
    throw error;
  }
}

/** Splits decoded window text into its lines (line endings removed, lone CRs kept). */
function splitWindow(text: string, count: number): string[] {
  const parts = text.split('\n');
  /* c8 ignore next 3 */
  if (parts.length !== count) {
    throw new ToolError('FILE_CHANGED', 'the file changed while it was being read; read it again.');
  }
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i]!;
    if (p.endsWith('\r')) parts[i] = p.slice(0, -1);
  }
  return parts;
}

const digits = (n: number) => String(n).length;

/** Characters JSON.stringify escapes in a string of well-formed UTF-16 (decoded UTF-8). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/**
 * Reads a window of whole, numbered UTF-8 lines of one file inside a root: the engine behind
 * read_text. The file is opened through core's root guard (links, traversal and non-regular
 * files refused, size checked before reading). On a first read the whole file (at most
 * `maxFileBytes`) is read once, hashed from that buffer, checked to be NUL-free valid UTF-8
 * and indexed by line without being decoded; only the returned window is decoded. Facts are
 * cached by content hash, and by file identity once the file has been unchanged for two
 * seconds, so a repeated read of a settled file reads only the window's bytes.
 * `expected_sha256` always forces a full re-hash.
 *
 * Error codes: `PATH_*` and `FILE_TOO_LARGE` (core guard), `INVALID_RANGE`,
 * `LINE_LIMIT_EXCEEDED`, `LINE_OUT_OF_RANGE`, `LINE_TOO_LONG`, `TAIL_TOO_LARGE`,
 * `INVALID_SHA256`, `FILE_CHANGED` (details.current_sha256), `BINARY_CONTENT` and
 * `INVALID_UTF8` (details.offset).
 */
export async function readLines(
  root: Root | string,
  request: ReadLinesRequest,
  options: ReadLinesOptions = {},
): Promise<LineWindow> {
  const limits = resolveLimits(options.limits);
  const theRoot =
    typeof root === 'string' ? createRootSync(root, { maxFileBytes: limits.maxFileBytes }) : root;
  return readLinesWith(theRoot, request, limits, options.workspace);
}

/** {@link readLines} with limits already resolved. */
export async function readLinesWith(
  root: Root,
  request: ReadLinesRequest,
  limits: LineLimits,
  workspace?: string,
): Promise<LineWindow> {
  checkReadRequest(request, limits);
  const opened = openForText(root, request.path, limits.maxFileBytes);
  const path = opened.relativePath;
  const subject = `file ${path}`;
  try {
    // The guard's fstat of the open descriptor; exact nanoseconds only when an inode number
    // is too large for a double.
    const st = Number.isSafeInteger(opened.stat.ino)
      ? opened.stat
      : await opened.handle.stat({ bigint: true });
    const identity = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    const size = Number(st.size);
    let digest: string | undefined;
    let facts: TextFacts | undefined;
    let source: ByteSource;
    if (request.expected_sha256 === undefined) {
      digest = hashByIdentity.get(identity);
      facts = digest === undefined ? undefined : factsByHash.get(digest);
    }
    if (digest !== undefined && facts !== undefined && facts.size === size) {
      source = new HandleSource(opened.handle, size);
      identityHits++;
    } else {
      const startedAt = Date.now();
      const bytes = await readAll(opened.handle, size);
      digest = sha256(bytes);
      if (
        request.expected_sha256 !== undefined &&
        request.expected_sha256.toLowerCase() !== digest
      ) {
        throw changed(path, request.expected_sha256, digest);
      }
      facts = factsByHash.get(digest);
      if (facts === undefined) {
        facts = scanText(bytes, subject);
        factsByHash.set(digest, facts);
      }
      const youngest = Math.max(Number(st.mtimeMs), Number(st.ctimeMs));
      if (bytes.length === size && youngest < startedAt - SETTLED_MS) {
        hashByIdentity.set(identity, digest);
      }
      source = new BufferSource(bytes);
    }
    return await window(source, facts, digest, path, request, limits, workspace);
  } finally {
    opened.close();
  }
}

async function window(
  source: ByteSource,
  facts: TextFacts,
  digest: string,
  path: string,
  request: ReadLinesRequest,
  limits: LineLimits,
  workspace: string | undefined,
): Promise<LineWindow> {
  const total = facts.totalLines;
  const tail = request.tail;
  const startLine = request.start_line;
  const lineCount = tail === undefined ? (request.line_count ?? limits.defaultLines) : undefined;
  const ask = tail === undefined ? { startLine: startLine ?? 1, lineCount } : { tail };

  // 1. Which lines are candidates (validates the range against the file).
  const candidates = planLines({ totalLines: total, ...ask });
  // 2. Their byte extents; a range stops scanning once the text budget is exceeded.
  const stopAfter = tail === undefined ? limits.maxTextBytes : Number.POSITIVE_INFINITY;
  const extents = await lineExtents(
    facts,
    source,
    candidates.start_line,
    candidates.end_line,
    stopAfter,
  );
  const first = candidates.start_line;
  const extentOf = (n: number) => extents[n - first];
  const textCost = (n: number) => {
    const e = extentOf(n);
    return e === undefined ? Number.POSITIVE_INFINITY : e.end - e.start;
  };
  const byText = plan(path, total, ask, limits.maxTextBytes, 'text budget', textCost, extentOf);

  // 3. Decode only the window, strictly (offsets in errors are file offsets).
  const windowLines: string[] = [];
  if (byText.end_line >= byText.start_line) {
    const a = extentOf(byText.start_line)!;
    const b = extentOf(byText.end_line)!;
    const decoded = decodeUtf8(await source.slice(a.start, b.end), {
      subject: `file ${path}`,
      baseOffset: a.start,
    });
    const text = decoded.bom ? `\uFEFF${decoded.text}` : decoded.text;
    windowLines.push(...splitWindow(text, byText.end_line - byText.start_line + 1));
  }

  // 4. Serialized-output budget: the result without lines, plus each line's JSON entry.
  const skeleton: LineWindow = {
    ...(workspace === undefined ? {} : { workspace }),
    path,
    sha256: digest,
    size: facts.size,
    bom: facts.bom,
    encoding: 'utf-8',
    line_endings: facts.endings,
    total_lines: total,
    start_line: Math.max(total, 1),
    end_line: Math.max(total, 1),
    has_more: false,
    has_earlier: false,
    next_start_line: Math.max(total, 1),
    output_limited: false,
    source_trust: SOURCE_TRUST,
    lines: [],
  };
  const base = jsonBytes(skeleton) + 8;
  const jsonCost = (n: number) => {
    const text = windowLines[n - byText.start_line];
    if (text === undefined) return Number.POSITIVE_INFINITY;
    // Without a quote, backslash or control character, JSON adds only the two quotes.
    const json = NEEDS_ESCAPE.test(text) ? jsonBytes(text) : Buffer.byteLength(text, 'utf8') + 2;
    return 18 + digits(n) + json;
  };
  const count = byText.end_line - byText.start_line + 1;
  // One measure of the whole window bounds every line's entry from above (its JSON string
  // plus the widest line number); when that fits, no line needs measuring on its own.
  const upper = count === 0 ? 0 : jsonBytes(windowLines) + count * (18 + digits(byText.end_line));
  const cost = base + upper <= limits.maxOutputBytes ? () => 0 : jsonCost;
  const ask2 =
    tail === undefined
      ? { startLine: byText.start_line, lineCount: Math.max(count, 1) }
      : { tail: Math.max(count, 1) };
  const final =
    count === 0
      ? byText
      : plan(path, total, ask2, limits.maxOutputBytes - base, 'output budget', cost, extentOf);

  const lines: NumberedLine[] = [];
  for (let n = final.start_line; n <= final.end_line; n++) {
    lines.push({ line: n, text: windowLines[n - byText.start_line]! });
  }
  return {
    ...(workspace === undefined ? {} : { workspace }),
    path,
    sha256: digest,
    size: facts.size,
    bom: facts.bom,
    encoding: 'utf-8',
    line_endings: facts.endings,
    total_lines: total,
    start_line: final.start_line,
    end_line: final.end_line,
    has_more: final.has_more,
    has_earlier: final.has_earlier,
    next_start_line: final.next_start_line,
    output_limited: byText.limited_by_bytes || final.limited_by_bytes,
    source_trust: SOURCE_TRUST,
    lines,
  };
}
