import { ToolError } from './errors.js';

/** One page of a character-paginated text. */
export interface CharPage {
  /** The characters of this page. */
  content: string;
  /** Offset (UTF-16 code units) this page starts at; may be one less than asked, see below. */
  offset: number;
  /** True when characters remain after this page. */
  has_more: boolean;
  /** Offset of the next page, or null when this page reaches the end. */
  next_offset: number | null;
  /** Length of the whole text in UTF-16 code units. */
  total_chars: number;
  /** True when the byte budget, not `maxChars`, ended the page. */
  limited_by_bytes: boolean;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Character pagination that never splits a surrogate pair. Offsets count UTF-16 code units
 * (JavaScript string indices). An `offset` that points between the halves of a pair is moved
 * back to the start of that character. A page is at most `maxChars` long, except that a page
 * always makes progress: when `maxChars` is 1 and the next character is astral, both halves
 * are returned. With `maxBytes`, the page also stops before its JSON string form (UTF-8, with
 * escapes) would exceed that many bytes, at least one character in. Throws
 * `OFFSET_OUT_OF_RANGE` for an offset past the end or negative.
 */
export function paginateChars(
  text: string,
  options: { offset?: number; maxChars: number; maxBytes?: number },
): CharPage {
  const total = text.length;
  let offset = options.offset ?? 0;
  const maxChars = Math.floor(options.maxChars);
  if (!Number.isInteger(offset) || offset < 0 || offset > total) {
    throw new ToolError(
      'OFFSET_OUT_OF_RANGE',
      `offset ${options.offset} is outside the text: valid offsets are 0 to ${total}.`,
      { details: { total_chars: total } },
    );
  }
  if (!(maxChars >= 1)) {
    throw new ToolError('INVALID_LIMIT', `max_chars must be at least 1, got ${options.maxChars}.`);
  }
  if (
    offset > 0 &&
    offset < total &&
    isLow(text.charCodeAt(offset)) &&
    isHigh(text.charCodeAt(offset - 1))
  ) {
    offset -= 1;
  }
  let end = Math.min(total, offset + maxChars);
  if (
    end < total &&
    end > offset &&
    isHigh(text.charCodeAt(end - 1)) &&
    isLow(text.charCodeAt(end))
  ) {
    end = end - 1 === offset ? end + 1 : end - 1;
  }
  let limited = false;
  if (options.maxBytes !== undefined) {
    const fit = jsonPrefixEnd(text, offset, end, options.maxBytes - 2);
    if (fit < end) {
      limited = true;
      const pair = isHigh(text.charCodeAt(offset)) && isLow(text.charCodeAt(offset + 1));
      end = fit > offset ? fit : Math.min(end, offset + (pair ? 2 : 1));
    }
  }
  const hasMore = end < total;
  return {
    content: text.slice(offset, end),
    offset,
    has_more: hasMore,
    next_offset: hasMore ? end : null,
    total_chars: total,
    limited_by_bytes: limited,
  };
}

/** Bytes one UTF-16 code unit at `i` adds to a JSON string (a surrogate pair counts 2 + 2). */
function jsonUnitBytes(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) {
    if (c === 0x22 || c === 0x5c) return 2;
    if (c >= 0x20) return 1;
    return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
  }
  if (c < 0x800) return 2;
  if (isHigh(c)) return isLow(text.charCodeAt(i + 1)) ? 2 : 6;
  if (isLow(c)) return isHigh(text.charCodeAt(i - 1)) ? 2 : 6;
  return 3;
}

/**
 * Where a prefix of `text[from, to)` ends whose JSON string body (escapes included, quotes not)
 * fits `maxBytes`, never inside a surrogate pair.
 */
function jsonPrefixEnd(text: string, from: number, to: number, maxBytes: number): number {
  let bytes = 0;
  let i = from;
  while (i < to) {
    const pair = isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1));
    const cost = pair ? 4 : jsonUnitBytes(text, i);
    if (bytes + cost > maxBytes) break;
    bytes += cost;
    i += pair ? 2 : 1;
  }
  return i;
}

/**
 * The byte budget of one tool response unless a package is configured otherwise: 64 KiB of
 * compact JSON, the same in every package, so an answer fits what MCP clients take by default
 * (Claude Code refuses a tool answer over 25,000 tokens). Lists stop before it with `has_more`
 * and a `next_…` to continue; a single value that cannot fit is cut with a marker and a way to
 * read on, or refused with a coded error, never cut silently. A package's `maxOutputBytes`
 * raises it for clients that take more.
 */
export const DEFAULT_OUTPUT_BYTES = 64 * 1024;

/** Smallest `maxOutputBytes` a package accepts: room for the fixed fields and one item. */
export const MIN_OUTPUT_BYTES = 4096;

/**
 * Checks a package's `maxOutputBytes` option and returns the budget to use:
 * {@link DEFAULT_OUTPUT_BYTES} when it is not set, else the value when it is a whole number of
 * at least {@link MIN_OUTPUT_BYTES}. Anything else throws `INVALID_LIMIT` naming the option.
 */
export function checkOutputBytes(value: unknown): number {
  const out = value ?? DEFAULT_OUTPUT_BYTES;
  if (typeof out !== 'number' || !Number.isSafeInteger(out) || out < MIN_OUTPUT_BYTES) {
    throw new ToolError(
      'INVALID_LIMIT',
      `maxOutputBytes must be a whole number of at least ${MIN_OUTPUT_BYTES}, got ${String(out)}.`,
      { details: { param: 'maxOutputBytes', minimum: MIN_OUTPUT_BYTES } },
    );
  }
  return out;
}

/** Size of `value` as compact JSON, in UTF-8 bytes. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * The byte budget of one result, spent as it is built: a tool reserves its fixed fields first,
 * then adds list items while they fit, and stops collecting once the next one would not.
 */
export class OutputBudget {
  private spent: number;

  /** `maxBytes`: the budget; `reserved`: bytes already committed (fixed fields, envelope). */
  constructor(
    readonly maxBytes: number,
    reserved = 0,
  ) {
    this.spent = reserved;
  }

  /** Bytes committed so far. */
  get used(): number {
    return this.spent;
  }

  /** Bytes still free. */
  get left(): number {
    return this.maxBytes - this.spent;
  }

  /** Commits the compact JSON of `value` plus one separator byte if it fits; true when it did. */
  take(value: unknown): boolean {
    return this.takeBytes(jsonBytes(value) + 1);
  }

  /** Commits `bytes` if they fit; true when they did. */
  takeBytes(bytes: number): boolean {
    if (this.spent + bytes > this.maxBytes) return false;
    this.spent += bytes;
    return true;
  }
}

/** One page of a list built under a byte budget; see {@link collectPage}. */
export interface BudgetPage<R> {
  /** Items of this page that were cut to fit (by the `cut` option), by index in `items`. */
  cut: number[];
  /** The items of this page, in order. */
  items: R[];
  /** True when items follow this page. */
  has_more: boolean;
  /** Offset of the next page, or null at the end. */
  next_offset: number | null;
  /** True when the byte budget, not `limit`, ended the page. */
  limited_by_bytes: boolean;
}

/**
 * Builds one page of `total` items from `offset`: item `i` is made by `item(i)` only when it is
 * reached, so nothing past the page is built. The page ends after `limit` items or before the
 * first item that does not fit `budget`. An item that alone does not fit an empty page is given
 * to `cut` (with the bytes left), which returns it made to fit with a marker saying how to read
 * the rest (see `cutStrings`), or null; without `cut`, or when it gives null, the call fails
 * with `OUTPUT_TOO_LARGE`, whose details give its offset and the `next_offset` that skips it.
 */
export function collectPage<R>(
  total: number,
  options: {
    offset: number;
    limit: number;
    budget: OutputBudget;
    item: (index: number) => R;
    cut?: (value: R, maxBytes: number, index: number) => R | null;
  },
): BudgetPage<R> {
  const { offset, limit, budget } = options;
  const items: R[] = [];
  const cut: number[] = [];
  let i = offset;
  let limited = false;
  for (; i < total && items.length < limit; i++) {
    const value = options.item(i);
    if (!budget.take(value)) {
      if (items.length === 0) {
        const smaller = options.cut?.(value, budget.left - 1, i) ?? null;
        if (smaller !== null && budget.take(smaller)) {
          cut.push(items.length);
          items.push(smaller);
          continue;
        }
        const bytes = jsonBytes(value);
        throw new ToolError(
          'OUTPUT_TOO_LARGE',
          (n) =>
            `entry ${i} of the list alone takes ${bytes} bytes of JSON, over the ${budget.maxBytes}-byte budget of one response; pass ${n('offset')} ${i + 1} to continue after it.`,
          { details: { offset: i, next_offset: i + 1, bytes, max_bytes: budget.maxBytes } },
        );
      }
      limited = true;
      break;
    }
    items.push(value);
  }
  const hasMore = i < total;
  return {
    items,
    cut,
    has_more: hasMore,
    next_offset: hasMore ? i : null,
    limited_by_bytes: limited,
  };
}

/** Where a line window starts and stops; see {@link planLines}. */
export interface LinePlan {
  /** First line returned, 1-based. */
  start_line: number;
  /** Last line returned, 1-based; `start_line - 1` when nothing is returned. */
  end_line: number;
  /** Lines in the whole text. */
  total_lines: number;
  /** True when lines exist after `end_line`. */
  has_more: boolean;
  /** True when lines exist before `start_line`. */
  has_earlier: boolean;
  /** Line to continue from, or null when `end_line` is the last line. */
  next_start_line: number | null;
  /** True when the byte budget, not the line count, ended the window early. */
  limited_by_bytes: boolean;
}

/** Options of {@link planLines}. */
export interface LinePlanOptions {
  /** Lines in the whole text. */
  totalLines: number;
  /** First line wanted, 1-based (default 1). Not allowed together with `tail`. */
  startLine?: number;
  /** How many lines are wanted from `startLine` (default 100). */
  lineCount?: number;
  /** Return the final `tail` lines instead of a range from `startLine`. */
  tail?: number;
  /** Byte budget for the returned lines; the window stops at a whole line before exceeding it. */
  maxBytes?: number;
  /** Cost in bytes of line `n` (1-based), usually its UTF-8 length plus its line ending. */
  lineBytes?: (line: number) => number;
}

/**
 * Plans a window of whole lines: a range (`startLine` + `lineCount`) or a tail, cut short at a
 * whole line when `maxBytes` would be exceeded. Pure and O(window). Errors (`ToolError`):
 * `INVALID_RANGE` for `tail` with `startLine` or a non-positive count, `LINE_OUT_OF_RANGE` for
 * a start past the end, `LINE_TOO_LONG` when the first line alone exceeds the budget, and
 * `TAIL_TOO_LARGE` when the requested tail does not fit the budget (ask for fewer lines).
 */
export function planLines(options: LinePlanOptions): LinePlan {
  const total = options.totalLines;
  const budget = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const cost = options.lineBytes ?? (() => 0);
  if (options.tail !== undefined) {
    if (options.startLine !== undefined) {
      throw new ToolError(
        'INVALID_RANGE',
        'tail reads the final lines and cannot be combined with a start line; pass one or the other.',
      );
    }
    if (!Number.isInteger(options.tail) || options.tail < 1) {
      throw new ToolError(
        'INVALID_RANGE',
        `tail must be a whole number of at least 1, got ${options.tail}.`,
      );
    }
    const start = Math.max(1, total - options.tail + 1);
    let bytes = 0;
    for (let n = start; n <= total; n++) bytes += cost(n);
    if (bytes > budget) {
      throw new ToolError(
        'TAIL_TOO_LARGE',
        `the final ${options.tail} lines need ${bytes} bytes, over the ${budget}-byte budget; ask for fewer lines.`,
        { details: { bytes, max_bytes: budget } },
      );
    }
    return {
      start_line: total === 0 ? 1 : start,
      end_line: total,
      total_lines: total,
      has_more: false,
      has_earlier: start > 1,
      next_start_line: null,
      limited_by_bytes: false,
    };
  }
  const startLine = options.startLine ?? 1;
  const lineCount = options.lineCount ?? 100;
  if (!Number.isInteger(startLine) || startLine < 1) {
    throw new ToolError(
      'INVALID_RANGE',
      `start line must be a whole number of at least 1, got ${startLine}.`,
    );
  }
  if (!Number.isInteger(lineCount) || lineCount < 1) {
    throw new ToolError(
      'INVALID_RANGE',
      `line count must be a whole number of at least 1, got ${lineCount}.`,
    );
  }
  if (startLine > Math.max(total, 1)) {
    throw new ToolError(
      'LINE_OUT_OF_RANGE',
      `start line ${startLine} is past the end: the text has ${total} line${total === 1 ? '' : 's'}.`,
      { details: { total_lines: total } },
    );
  }
  const last = Math.min(total, startLine + lineCount - 1);
  let end = startLine - 1;
  let bytes = 0;
  let limited = false;
  for (let n = startLine; n <= last; n++) {
    const c = cost(n);
    if (bytes + c > budget) {
      if (n === startLine) {
        throw new ToolError(
          'LINE_TOO_LONG',
          `line ${n} alone needs ${c} bytes, over the ${budget}-byte budget; read it as bytes instead.`,
          { details: { line: n, bytes: c, max_bytes: budget } },
        );
      }
      limited = true;
      break;
    }
    bytes += c;
    end = n;
  }
  return {
    start_line: startLine,
    end_line: end,
    total_lines: total,
    has_more: end < total,
    has_earlier: startLine > 1,
    next_start_line: end < total ? end + 1 : null,
    limited_by_bytes: limited,
  };
}

/** A page of lines: the plan plus the lines themselves, each with its 1-based number. */
export interface LinePage extends LinePlan {
  lines: Array<{ line: number; text: string }>;
}

/**
 * {@link planLines} over an array of lines already in memory. The byte cost of a line is its
 * UTF-8 length plus one for its line break.
 */
export function paginateLines(
  lines: readonly string[],
  options: Omit<LinePlanOptions, 'totalLines' | 'lineBytes'>,
): LinePage {
  const plan = planLines({
    ...options,
    totalLines: lines.length,
    lineBytes: (n) => Buffer.byteLength(lines[n - 1]!, 'utf8') + 1,
  });
  const out: Array<{ line: number; text: string }> = [];
  for (let n = plan.start_line; n <= plan.end_line; n++) out.push({ line: n, text: lines[n - 1]! });
  return { ...plan, lines: out };
}
