import { isUtf8 } from 'node:buffer';
import { findInvalidUtf8, findNul, hasBom, type LineEndings, ToolError } from '@lectern/core';

/** Lines between two checkpoints of a {@link TextFacts} index. */
export const CHECKPOINT_STEP = 256;

/**
 * What a full scan of a text file established: enough to find any line again without
 * rescanning the file. Derived from the bytes only, so it can be cached by SHA-256.
 */
export interface TextFacts {
  /** Size of the file in bytes. */
  size: number;
  /** True when the file starts with the UTF-8 byte-order mark. */
  bom: boolean;
  /** Byte offset of line 1 (3 after a BOM, else 0). */
  bodyStart: number;
  /** Exact number of lines (a final line break does not start another line). */
  totalLines: number;
  /** Line-ending style of the whole file. */
  endings: LineEndings;
  /** `checkpoints[j]` is the byte offset where line `j * CHECKPOINT_STEP + 1` starts. */
  checkpoints: Uint32Array;
}

/**
 * Validates a whole file as text and indexes its lines in one pass over the bytes; nothing is
 * decoded. Throws `BINARY_CONTENT` (NUL byte) or `INVALID_UTF8`, each with the file's byte
 * offset in the message and in `details.offset`.
 */
export function scanText(bytes: Buffer, subject: string): TextFacts {
  const nul = findNul(bytes);
  if (nul !== -1) {
    throw new ToolError(
      'BINARY_CONTENT',
      `${subject} contains a NUL byte at byte offset ${nul}, so it is binary, not text; use read_artifact for binary files.`,
      { details: { offset: nul } },
    );
  }
  if (!isUtf8(bytes)) {
    const at = findInvalidUtf8(bytes);
    throw new ToolError(
      'INVALID_UTF8',
      `${subject} is not valid UTF-8: malformed byte sequence at byte offset ${at}; use read_artifact to read its bytes.`,
      { details: { offset: at } },
    );
  }
  const size = bytes.length;
  const bom = hasBom(bytes);
  const bodyStart = bom ? 3 : 0;
  const checkpoints: number[] = [];
  let lines = 0;
  let lf = 0;
  let crlf = 0;
  let pos = bodyStart;
  if (pos < size) checkpoints.push(pos);
  for (;;) {
    const nl = bytes.indexOf(10, pos);
    if (nl === -1) break;
    lines++;
    if (nl > pos && bytes[nl - 1] === 13) crlf++;
    else lf++;
    pos = nl + 1;
    if (lines % CHECKPOINT_STEP === 0 && pos < size) checkpoints.push(pos);
  }
  if (pos < size) lines++;
  const endings: LineEndings =
    lf > 0 && crlf > 0 ? 'mixed' : crlf > 0 ? 'crlf' : lf > 0 ? 'lf' : 'none';
  return {
    size,
    bom,
    bodyStart,
    totalLines: lines,
    endings,
    checkpoints: Uint32Array.from(checkpoints),
  };
}

/** Random access to a file's bytes, either held in memory or read from an open handle. */
/** The part of a file handle the readers use: positioned reads. */
export interface ReadHandle {
  read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
}

export interface ByteSource {
  readonly size: number;
  /** Offset of the next `\n` at or after `from`, or -1. */
  indexOfLf(from: number): Promise<number>;
  /** Offset just after the `count`-th `\n` at or after `from`, or -1 when there are fewer. */
  skipLines(from: number, count: number): Promise<number>;
  /** The byte at `at` (0 <= at < size). */
  byteAt(at: number): Promise<number>;
  /** The bytes from `start` (inclusive) to `end` (exclusive). */
  slice(start: number, end: number): Promise<Buffer>;
  /** Hint: the next calls stay within `start`..`end`, so load that span at once if it can. */
  prefetch(start: number, end: number): Promise<void>;
  /**
   * The bytes from `start` to `end` when they are already in memory (no I/O), with the file
   * offset of their first byte; otherwise undefined.
   */
  loaded(start: number, end: number): Buffer | undefined;
}

/** A {@link ByteSource} over bytes already in memory. */
export class BufferSource implements ByteSource {
  constructor(private readonly bytes: Buffer) {}
  get size(): number {
    return this.bytes.length;
  }
  async indexOfLf(from: number): Promise<number> {
    return this.bytes.indexOf(10, from);
  }
  async skipLines(from: number, count: number): Promise<number> {
    let pos = from;
    for (let k = 0; k < count; k++) {
      const nl = this.bytes.indexOf(10, pos);
      if (nl === -1) return -1;
      pos = nl + 1;
    }
    return pos;
  }
  async byteAt(at: number): Promise<number> {
    return this.bytes[at]!;
  }
  async slice(start: number, end: number): Promise<Buffer> {
    return this.bytes.subarray(start, end);
  }
  async prefetch(): Promise<void> {}
  loaded(start: number, end: number): Buffer | undefined {
    return this.bytes.subarray(start, end);
  }
}

const CHUNK = 64 * 1024;
/** Largest span {@link HandleSource.prefetch} reads in one go. */
const MAX_PREFETCH = 1024 * 1024;

/**
 * A {@link ByteSource} that reads an open file in 64 KiB chunks on demand (the last chunk is
 * kept), so a window of lines costs a few small reads instead of reading the whole file. A
 * prefetched span (at most 1 MiB) replaces the chunk, so a window usually costs one read.
 */
export class HandleSource implements ByteSource {
  #chunkStart = -1;
  #chunk: Buffer = Buffer.alloc(0);

  constructor(
    private readonly handle: ReadHandle,
    readonly size: number,
  ) {}

  async #load(at: number): Promise<void> {
    if (at >= this.#chunkStart && at < this.#chunkStart + this.#chunk.length) return;
    const start = at - (at % CHUNK);
    this.#chunk = await this.#read(start, Math.min(this.size, start + CHUNK));
    this.#chunkStart = start;
  }

  async #read(start: number, end: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(end - start);
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await this.handle.read(
        buf,
        filled,
        buf.length - filled,
        start + filled,
      );
      if (bytesRead === 0) {
        throw new ToolError(
          'FILE_CHANGED',
          'the file shrank while it was being read; read it again.',
        );
      }
      filled += bytesRead;
    }
    return buf;
  }

  async indexOfLf(from: number): Promise<number> {
    let pos = from;
    while (pos < this.size) {
      await this.#load(pos);
      const idx = this.#chunk.indexOf(10, pos - this.#chunkStart);
      if (idx !== -1) return this.#chunkStart + idx;
      pos = this.#chunkStart + this.#chunk.length;
    }
    return -1;
  }

  async skipLines(from: number, count: number): Promise<number> {
    let pos = from;
    let left = count;
    while (left > 0) {
      if (pos >= this.size) return -1;
      await this.#load(pos);
      const chunk = this.#chunk;
      const base = this.#chunkStart;
      let idx = chunk.indexOf(10, pos - base);
      while (idx !== -1 && left > 0) {
        left--;
        pos = base + idx + 1;
        if (left > 0) idx = chunk.indexOf(10, idx + 1);
      }
      if (left > 0 && idx === -1) pos = base + chunk.length;
    }
    return pos;
  }

  async prefetch(start: number, end: number): Promise<void> {
    const to = Math.min(this.size, end, start + MAX_PREFETCH);
    if (start < 0 || to <= start) return;
    if (start >= this.#chunkStart && to <= this.#chunkStart + this.#chunk.length) return;
    this.#chunk = await this.#read(start, to);
    this.#chunkStart = start;
  }

  loaded(start: number, end: number): Buffer | undefined {
    if (start < this.#chunkStart || end > this.#chunkStart + this.#chunk.length) return undefined;
    return this.#chunk.subarray(start - this.#chunkStart, end - this.#chunkStart);
  }

  async byteAt(at: number): Promise<number> {
    await this.#load(at);
    return this.#chunk[at - this.#chunkStart]!;
  }

  async slice(start: number, end: number): Promise<Buffer> {
    if (end <= start) return Buffer.alloc(0);
    if (start >= this.#chunkStart && end <= this.#chunkStart + this.#chunk.length) {
      return this.#chunk.subarray(start - this.#chunkStart, end - this.#chunkStart);
    }
    return this.#read(start, end);
  }
}

/** Byte extent of one line: `start` to `end` is its text; `next` is where the next line starts. */
export interface LineExtent {
  line: number;
  start: number;
  end: number;
  next: number;
}

/** Byte offset where line `n` (1 <= n <= totalLines) starts, found from the nearest checkpoint. */
export async function lineStart(facts: TextFacts, source: ByteSource, n: number): Promise<number> {
  const j = Math.floor((n - 1) / CHECKPOINT_STEP);
  const from = facts.checkpoints[j]!;
  const pos = await source.skipLines(from, n - 1 - j * CHECKPOINT_STEP);
  /* c8 ignore next */
  if (pos === -1) throw new ToolError('FILE_CHANGED', 'the file changed while it was being read.');
  return pos;
}

/**
 * Extents of lines `from`..`to`. With `stopAfterBytes`, stops after the first line that brings
 * the running total of text bytes above it (that line is included, so callers can see it).
 */
export async function lineExtents(
  facts: TextFacts,
  source: ByteSource,
  from: number,
  to: number,
  stopAfterBytes = Number.POSITIVE_INFINITY,
): Promise<LineExtent[]> {
  const out: LineExtent[] = [];
  if (to < from) return out;
  // Every byte needed lies between the checkpoint before `from` and the one after `to`.
  const first = facts.checkpoints[Math.floor((from - 1) / CHECKPOINT_STEP)];
  const after = facts.checkpoints[Math.floor((to - 1) / CHECKPOINT_STEP) + 1] ?? source.size;
  if (first !== undefined) {
    await source.prefetch(first, after);
    const view = source.loaded(first, after);
    if (view)
      return extentsIn(
        view,
        first,
        after === source.size,
        from - 1 - Math.floor((from - 1) / CHECKPOINT_STEP) * CHECKPOINT_STEP,
        from,
        to,
        stopAfterBytes,
      );
  }
  let pos = await lineStart(facts, source, from);
  let bytes = 0;
  for (let n = from; n <= to; n++) {
    const nl = await source.indexOfLf(pos);
    let end = nl === -1 ? source.size : nl;
    if (nl !== -1 && end > pos && (await source.byteAt(end - 1)) === 13) end -= 1;
    out.push({ line: n, start: pos, end, next: nl === -1 ? source.size : nl + 1 });
    bytes += end - pos;
    if (bytes > stopAfterBytes) break;
    pos = nl === -1 ? source.size : nl + 1;
  }
  return out;
}

/**
 * {@link lineExtents} over bytes in memory: `view` starts at file offset `base` at the start of
 * a line, `skip` lines before line `from`; `atEnd` says the view ends where the file ends.
 */
function extentsIn(
  view: Buffer,
  base: number,
  atEnd: boolean,
  skip: number,
  from: number,
  to: number,
  stopAfterBytes: number,
): LineExtent[] {
  const out: LineExtent[] = [];
  const size = base + view.length;
  let at = 0;
  for (let k = 0; k < skip; k++) {
    const nl = view.indexOf(10, at);
    /* c8 ignore next */
    if (nl === -1) throw new ToolError('FILE_CHANGED', 'the file changed while it was being read.');
    at = nl + 1;
  }
  let bytes = 0;
  for (let n = from; n <= to; n++) {
    const nl = view.indexOf(10, at);
    /* c8 ignore next 3 */
    if (nl === -1 && !atEnd) {
      throw new ToolError('FILE_CHANGED', 'the file changed while it was being read.');
    }
    let end = nl === -1 ? view.length : nl;
    if (nl !== -1 && end > at && view[end - 1] === 13) end -= 1;
    const next = nl === -1 ? size : base + nl + 1;
    out.push({ line: n, start: base + at, end: base + end, next });
    bytes += end - at;
    if (bytes > stopAfterBytes) break;
    at = nl === -1 ? view.length : nl + 1;
  }
  return out;
}
