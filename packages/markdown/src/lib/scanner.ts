import { toString as mdastToString } from 'mdast-util-to-string';
import {
  REMARK_DOCUMENT_CHARS,
  REMARK_HEADING_CHARS,
  REMARK_HEADINGS_TOTAL_CHARS,
  remarkAffordable,
} from './budget.js';
import type { BlockRange, OutlineScan, RawHeading } from './headings.js';
import { parseMdast, remarkHeadingText } from './remark.js';

/*
 * A fast outline scanner: CommonMark's block-structure algorithm (the one the spec's reference
 * implementation uses: open containers matched line by line, lazy paragraph continuation,
 * leaf-block starts in the spec's precedence) plus the GFM table and YAML front matter
 * constructs remark is configured with. It tracks only what decides where top-level headings
 * are, and it gives up (returns null, so the caller uses remark) whenever it meets a construct
 * whose outcome it does not model exactly: footnote definitions, a possible link reference
 * definition cut short by another block, a lone CR line ending, NUL, a table head on a lazy
 * line, or a heading whose inline text needs link definitions from elsewhere in the document.
 * Its equivalence with remark is tested on every CommonMark spec example and generated corpora.
 */

const DOC = 0;
const BQ = 1;
const LIST = 2;
const ITEM = 3;
const PARA = 4;
const FENCE = 5;
const ICODE = 6;
const HTML = 7;
const TABLE = 8;
const CLOSED_LEAF = 9; // ATX heading, thematic break, setext heading: never contain lines

const C_TAB = 9;
const C_SPACE = 32;
const C_GT = 62;
const C_LBRACKET = 91;

class Block {
  k: number;
  parent: Block | null;
  /** The open last child (the next block down the open chain), or null. */
  openChild: Block | null = null;
  /** Blocks above this one (0 for the document). */
  depth: number;
  hasChild = false;
  /** First and last line of a code block or table (recorded when it closes). */
  rangeStart = 0;
  rangeEnd = 0;
  // list items and lists
  markerOffset = 0;
  padding = 0;
  ordered = false;
  delim = '';
  // paragraphs
  startLine = 0;
  lines = 0;
  maybeDef = false;
  lastLine = 0;
  lastStart = 0;
  lastLazy = false;
  lastIndent = 0;
  // fences
  fch = 0;
  flen = 0;
  foff = 0;
  // html blocks
  htype = 0;
  /** Indented code begun on a lazy line: micromark ends it with that line. */
  oneLine = false;
  /** Content lines of a paragraph that may hold link reference definitions. */
  defLines: string[] | null = null;
  constructor(k: number, parent: Block | null) {
    this.k = k;
    this.parent = parent;
    this.depth = parent ? parent.depth + 1 : 0;
  }
}

/** Thrown where the scanner stops; one value, as an Error's stack trace costs per throw. */
class Unsure {}
const UNSURE = new Unsure();

function canContain(parent: number, child: number): boolean {
  switch (parent) {
    case DOC:
    case BQ:
      return child !== ITEM;
    case LIST:
      return child === ITEM;
    case ITEM:
      return child !== ITEM;
    default:
      return false;
  }
}

const acceptsLines = (k: number) =>
  k === PARA || k === FENCE || k === ICODE || k === HTML || k === TABLE;

const RE_ATX = /#{1,6}(?:[ \t]+|$)/y;
const RE_FENCE_OPEN = /`{3,}(?!.*`)|~{3,}/y;
const RE_FENCE_CLOSE = /(?:`{3,}|~{3,})(?=[ \t]*$)/y;
const RE_THEMATIC = /(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$/y;
const RE_SETEXT = /(?:=+|-+)[ \t]*$/y;
const RE_BULLET = /[*+-]/y;
const RE_ORDERED = /(\d{1,9})([.)])/y;

const RAW_NAMES = new Set(['pre', 'script', 'style', 'textarea']);
const BLOCK_NAMES =
  'address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul';
const BLOCK_NAME_SET = new Set(BLOCK_NAMES.split('|'));
const RE_HTML_OPEN: RegExp[] = [
  /(?!)/y,
  /<(?:script|pre|textarea|style)(?:[ \t]|>|$)/iy,
  /<!--/y,
  /<\?/y,
  /<![A-Za-z]/y,
  /<!\[CDATA\[/y,
  new RegExp(`</?(?:${BLOCK_NAMES})(?:[ \\t]|/?>|$)`, 'iy'),
];
const RE_HTML_CLOSE: RegExp[] = [
  /(?!)/,
  /<\/(?:script|pre|textarea|style)>/i,
  /-->/,
  /\?>/,
  />/,
  /\]\]>/,
];

function test(re: RegExp, s: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(s);
}

const isSpaceOrTab = (c: number) => c === C_SPACE || c === C_TAB;

/** True when `s` holds only spaces and tabs from `from` on. */
function blankFrom(s: string, from: number): boolean {
  for (let i = from; i < s.length; i++) if (!isSpaceOrTab(s.charCodeAt(i))) return false;
  return true;
}

/**
 * Most blocks open inside one another. Deeper container starts are read as text: CommonMark
 * sets no limit, but each line costs its depth, and remark overflows its stack near 4,000.
 */
export const MAX_NESTING = 32;

function isAsciiPunct(c: number): boolean {
  return (
    (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)
  );
}

/** Characters that may start a block other than a paragraph (or a GFM table delimiter row). */
function maybeSpecial(c: number): boolean {
  switch (c) {
    case 35: // #
    case 96: // `
    case 126: // ~
    case 42: // *
    case 43: // +
    case 95: // _
    case 61: // =
    case 60: // <
    case 62: // >
    case 45: // -
    case 124: // |
    case 58: // :
      return true;
    default:
      return c >= 48 && c <= 57;
  }
}

/** micromark's classifyCharacter on one UTF-16 code unit: 1 space, 2 punctuation, 0 other. */
function classify(code: number): number {
  if (code === -1) return 1;
  const ch = String.fromCharCode(code);
  if (/\s/.test(ch)) return 1;
  if (/\p{P}|\p{S}/u.test(ch)) return 2;
  return 0;
}

/** A run of `*` or `_` in heading text, resolved like micromark's attention construct. */
interface Run {
  marker: number;
  len: number;
  open: boolean;
  close: boolean;
  removed: boolean;
}

/**
 * Runs an opener is looked for among, when a heading has more than {@link MAX_EXACT_RUNS}
 * delimiter runs: micromark looks back without bound, which is quadratic on adversarial text.
 */
const RUN_LOOKBACK = 32;
/** Delimiter runs up to which emphasis is resolved exactly as micromark does. */
const MAX_EXACT_RUNS = 200;

/** Pairs emphasis delimiter runs in order; consumed characters leave `len`. */
function resolveRuns(runs: Run[]): void {
  const bounded = runs.length > MAX_EXACT_RUNS;
  for (let i = 0; i < runs.length; i++) {
    const c = runs[i]!;
    if (!c.close) continue;
    let j = i - 1;
    const stop = bounded ? Math.max(0, i - RUN_LOOKBACK) : 0;
    while (c.len > 0 && j >= stop) {
      const o = runs[j]!;
      if (o.removed || o.len === 0 || !o.open || o.marker !== c.marker) {
        j--;
        continue;
      }
      if ((o.close || c.open) && c.len % 3 !== 0 && (o.len + c.len) % 3 === 0) {
        j--;
        continue;
      }
      const use = o.len > 1 && c.len > 1 ? 2 : 1;
      o.len -= use;
      c.len -= use;
      // micromark resolves the runs between the pair again on their own (with their current
      // lengths), then they are plain text for everything outside
      const inner = runs.slice(j + 1, i).filter((r) => !r.removed && r.len > 0);
      if (inner.length > 1) resolveRuns(inner);
      for (let k = j + 1; k < i; k++) runs[k]!.removed = true;
      // look again from just before the closer, the opener may have more to give
      j = i - 1;
    }
  }
}

/** Characters {@link simpleInlineText} looks at: `\\`, backtick, `*`, `_`, `~`, `&`, brackets, NUL. */
function inlineSpecial(c: number): boolean {
  return (
    c === 92 ||
    c === 96 ||
    c === 42 ||
    c === 95 ||
    c === 126 ||
    c === 38 ||
    c === 91 ||
    c === 93 ||
    c === 0 ||
    c === 60
  );
}

/**
 * Finds code span closers in linear time: for each run length, the start offsets of the
 * maximal backtick runs of that length, consumed in order as the opener moves forward.
 */
class BacktickRuns {
  private readonly byLen = new Map<number, { starts: number[]; next: number }>();
  constructor(s: string) {
    let i = s.indexOf('`');
    while (i !== -1) {
      let e = i;
      while (e < s.length && s.charCodeAt(e) === 96) e++;
      let list = this.byLen.get(e - i);
      if (!list) {
        list = { starts: [], next: 0 };
        this.byLen.set(e - i, list);
      }
      list.starts.push(i);
      i = s.indexOf('`', e);
    }
  }
  /** Start of the first maximal run of exactly `len` backticks at or after `from`, or -1. */
  find(len: number, from: number): number {
    const list = this.byLen.get(len);
    if (!list) return -1;
    while (list.next < list.starts.length && list.starts[list.next]! < from) list.next++;
    return list.next < list.starts.length ? list.starts[list.next]! : -1;
  }
}

/**
 * Inline text of a one-line heading content without the constructs that need a full inline
 * parse: backslash escapes, code spans and `*`/`_` emphasis are resolved as micromark does;
 * null is returned when links, images, HTML, autolinks, entities, strikethrough or NUL could
 * be involved (the caller then asks remark). With `tolerant`, those constructs are kept as
 * literal text instead (an approximation, used where remark would be too slow to ask).
 */
export function simpleInlineText(raw: string, tolerant = false): string | null {
  let start = 0;
  let end = raw.length;
  while (start < end && isSpaceOrTab(raw.charCodeAt(start))) start++;
  while (end > start && isSpaceOrTab(raw.charCodeAt(end - 1))) end--;
  const s = raw.slice(start, end);
  if (!tolerant && s.includes('<')) return null;
  const n = s.length;
  let ticks: BacktickRuns | null = null;
  const pieces: Array<string | Run> = [];
  const runs: Run[] = [];
  let out = '';
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 92) {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : -1;
      if (next !== -1 && isAsciiPunct(next)) {
        out += s[i + 1];
        i += 2;
      } else {
        out += '\\';
        i++;
      }
      continue;
    }
    if (c === 96) {
      let m = i;
      while (m < n && s.charCodeAt(m) === 96) m++;
      const len = m - i;
      ticks ??= new BacktickRuns(s);
      const close = ticks.find(len, m);
      if (close === -1) {
        out += s.slice(i, m);
        i = m;
        continue;
      }
      let code = s.slice(m, close);
      if (
        code.length >= 2 &&
        code.charCodeAt(0) === C_SPACE &&
        code.charCodeAt(code.length - 1) === C_SPACE &&
        !/^ +$/.test(code)
      ) {
        code = code.slice(1, -1);
      }
      out += code;
      i = close + len;
      continue;
    }
    switch (c) {
      case 42: // *
      case 95: {
        // _
        let e = i;
        while (e < n && s.charCodeAt(e) === c) e++;
        const beforeCode = i > 0 ? s.charCodeAt(i - 1) : -1;
        const afterCode = e < n ? s.charCodeAt(e) : -1;
        const before = classify(beforeCode);
        const after = classify(afterCode);
        // GFM registers `~` as an attention marker too, which makes a neighbouring `~` count
        const open = after === 0 || (after === 2 && before !== 0) || afterCode === 126;
        const close = before === 0 || (before === 2 && after !== 0) || beforeCode === 126;
        const run: Run = {
          marker: c,
          len: e - i,
          open: c === 42 ? open : open && (before !== 0 || !close),
          close: c === 42 ? close : close && (after !== 0 || !open),
          removed: false,
        };
        pieces.push(out, run);
        runs.push(run);
        out = '';
        i = e;
        continue;
      }
      case 126: {
        // ~ (GFM strikethrough): only a run between spaces is certainly literal
        let e = i;
        while (e < n && s.charCodeAt(e) === c) e++;
        const before = i > 0 ? s.charCodeAt(i - 1) : 32;
        const after = e < n ? s.charCodeAt(e) : 32;
        if (!tolerant && !(isSpaceOrTab(before) && isSpaceOrTab(after))) return null;
        out += s.slice(i, e);
        i = e;
        continue;
      }
      case 38: {
        // &
        if (!tolerant) {
          if (RE_ENTITY.test(s.slice(i, i + 40))) return null;
          break;
        }
        const entity = decodeEntity(s, i);
        if (entity) {
          out += entity.text;
          i = entity.end;
          continue;
        }
        break;
      }
      case 91: // [
      case 93: // ]
      case 0:
        if (!tolerant) return null;
        if (c === 91) {
          const image = i > 0 && s.charCodeAt(i - 1) === 33 && out.endsWith('!');
          const link = simpleLink(s, i);
          if (link) {
            if (image) out = out.slice(0, -1);
            out += simpleInlineText(link.label, true) ?? link.label;
            i = link.end;
            continue;
          }
        }
    }
    if (tolerant && c === 60) {
      // <scheme:...> or <user@host> autolink: its text is what is inside
      const m = RE_AUTOLINK.exec(s.slice(i, i + 2048));
      if (m) {
        out += m[1];
        i += m[0].length;
        continue;
      }
    }
    // this character and the plain ones after it, in one slice
    let j = i + 1;
    while (j < n && !inlineSpecial(s.charCodeAt(j))) j++;
    out += s.slice(i, j);
    i = j;
  }
  if (runs.length === 0) return out;
  // GFM autolink literals may swallow delimiter characters into a URL or e-mail address
  if (!tolerant && /www\.|:\/\/|@/i.test(s)) return null;
  pieces.push(out);
  resolveRuns(runs);
  let text = '';
  for (const p of pieces)
    text += typeof p === 'string' ? p : String.fromCharCode(p.marker).repeat(p.len);
  return text;
}

/**
 * The content of an ATX heading line after its opening sequence, without the optional closing
 * sequence (a run of `#` that is the whole content or follows a space or tab). Linear, unlike
 * the equivalent regular expressions on long runs of spaces.
 */
export function atxContent(s: string): string {
  let e = s.length;
  while (e > 0 && isSpaceOrTab(s.charCodeAt(e - 1))) e--;
  let k = e;
  while (k > 0 && s.charCodeAt(k - 1) === 35) k--;
  if (k === e) return s;
  let b = k;
  while (b > 0 && isSpaceOrTab(s.charCodeAt(b - 1))) b--;
  if (b === 0) return '';
  return b < k ? s.slice(0, b) : s;
}

const RE_AUTOLINK =
  /^<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)>/;
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00A0',
  copy: '\u00A9',
  reg: '\u00AE',
  trade: '\u2122',
  hellip: '\u2026',
  mdash: '\u2014',
  ndash: '\u2013',
  larr: '\u2190',
  rarr: '\u2192',
};

/** A numeric or common named character reference at `i`, decoded; null otherwise. */
function decodeEntity(s: string, i: number): { text: string; end: number } | null {
  const m = RE_ENTITY.exec(s.slice(i, i + 40));
  if (!m) return null;
  const body = m[0].slice(1, -1);
  let text: string | undefined;
  if (body.startsWith('#')) {
    const code =
      body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : Number(body.slice(1));
    text =
      code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)
        ? '\uFFFD'
        : String.fromCodePoint(code);
  } else {
    text = NAMED_ENTITIES[body];
  }
  return text === undefined ? null : { text, end: i + m[0].length };
}

/**
 * An inline link `[label](destination "title")` at `i` in its simplest form (no brackets,
 * backslashes or backticks in the label, no spaces or parentheses in the destination), as the
 * approximation of {@link simpleInlineText} reads it; null for anything else.
 */
function simpleLink(s: string, i: number): { label: string; end: number } | null {
  const m = RE_SIMPLE_LINK.exec(s.slice(i, i + 4096));
  return m ? { label: m[1]!, end: i + m[0].length } : null;
}

const RE_SIMPLE_LINK =
  /^\[([^[\]\\`\n]*)\]\([ \t]*(?:<[^<>\n\\]*>|[^\s()<>\\]+)?(?:[ \t]+(?:"[^"\n\\]*"|'[^'\n\\]*'))?[ \t]*\)/;

const RE_ENTITY = /^&(?:#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)/;

const isAsciiAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAsciiAlnum = (c: number) => isAsciiAlpha(c) || (c >= 48 && c <= 57);

/**
 * True when `s` from `i` is a complete open or closing tag followed only by spaces or tabs
 * (HTML block type 7), following micromark's html-flow state machine exactly (it differs from
 * the spec's regular expressions on a few inputs, e.g. an unquoted value stops at `/`).
 */
function completeTagLine(s: string, i: number): boolean {
  const n = s.length;
  const at = (k: number) => (k < n ? s.charCodeAt(k) : -1);
  if (at(i) !== 60) return false;
  i++;
  let closing = false;
  if (at(i) === 47) {
    closing = true;
    i++;
  }
  if (!isAsciiAlpha(at(i))) return false;
  const nameStart = i;
  while (at(i) === 45 || isAsciiAlnum(at(i))) i++;
  const c0 = at(i);
  if (!(c0 === -1 || c0 === 47 || c0 === 62 || isSpaceOrTab(c0))) return false;
  const name = s.slice(nameStart, i).toLowerCase();
  if (!closing && c0 !== 47 && RAW_NAMES.has(name)) return false;
  if (BLOCK_NAME_SET.has(name)) return false;
  const end = (k: number): boolean => {
    if (at(k) !== 62) return false;
    k++;
    while (isSpaceOrTab(at(k))) k++;
    return k >= n;
  };
  if (closing) {
    while (isSpaceOrTab(at(i))) i++;
    return end(i);
  }
  // attributes: micromark's completeAttribute* states
  const NAME_BEFORE = 0;
  const NAME = 1;
  const NAME_AFTER = 2;
  const VALUE_BEFORE = 3;
  const VALUE_QUOTED = 4;
  const VALUE_UNQUOTED = 5;
  const QUOTED_AFTER = 6;
  let state = NAME_BEFORE;
  let quote = 0;
  for (;;) {
    const c = at(i);
    switch (state) {
      case NAME_BEFORE:
        if (c === 47) return end(i + 1);
        if (c === 58 || c === 95 || isAsciiAlpha(c)) state = NAME;
        else if (!isSpaceOrTab(c)) return end(i);
        i++;
        break;
      case NAME:
        if (c === 45 || c === 46 || c === 58 || c === 95 || isAsciiAlnum(c)) i++;
        else state = NAME_AFTER;
        break;
      case NAME_AFTER:
        if (c === 61) {
          state = VALUE_BEFORE;
          i++;
        } else if (isSpaceOrTab(c)) i++;
        else state = NAME_BEFORE;
        break;
      case VALUE_BEFORE:
        if (c === -1 || c === 60 || c === 61 || c === 62 || c === 96) return false;
        if (c === 34 || c === 39) {
          quote = c;
          state = VALUE_QUOTED;
          i++;
        } else if (isSpaceOrTab(c)) i++;
        else state = VALUE_UNQUOTED;
        break;
      case VALUE_QUOTED:
        if (c === -1) return false;
        if (c === quote) state = QUOTED_AFTER;
        i++;
        break;
      case VALUE_UNQUOTED:
        if (
          c === -1 ||
          c === 34 ||
          c === 39 ||
          c === 47 ||
          c === 60 ||
          c === 61 ||
          c === 62 ||
          c === 96 ||
          isSpaceOrTab(c)
        ) {
          state = NAME_AFTER;
        } else i++;
        break;
      default:
        // QUOTED_AFTER
        if (c === 47 || c === 62 || isSpaceOrTab(c)) state = NAME_BEFORE;
        else return false;
    }
  }
}

/** Counts cells of a GFM table head row the way micromark-extension-gfm-table does. */
function headRowSize(s: string, from: number): number {
  const n = s.length;
  let size = 0;
  let sizeB = 0;
  let seen = false;
  let i = from;
  if (i < n && s.charCodeAt(i) !== 124) {
    seen = true;
    sizeB += 1;
  }
  while (i < n) {
    const c = s.charCodeAt(i);
    if (isSpaceOrTab(c)) {
      i++;
      continue;
    }
    sizeB += 1;
    if (seen) {
      seen = false;
      size += 1;
    }
    if (c === 124) {
      seen = true;
      i++;
      continue;
    }
    // data
    while (i < n) {
      const d = s.charCodeAt(i);
      if (d === 124 || isSpaceOrTab(d)) break;
      i++;
      if (d === 92 && i < n) {
        const e = s.charCodeAt(i);
        if (e === 92 || e === 124) i++;
      }
    }
  }
  return sizeB > 1 ? size : -1;
}

/**
 * Cell count of a GFM delimiter row starting at `from` (indentation already skipped), or -1
 * when the line is not one. Mirrors micromark-extension-gfm-table, which needs a pipe or a
 * colon somewhere (`---` alone is a setext underline or thematic break, never a delimiter row).
 */
function delimiterRowSize(s: string, from: number): number {
  const n = s.length;
  let i = from;
  let sizeB = 0;
  let seen = false;
  for (;;) {
    // headDelimiterBefore
    let c = i < n ? s.charCodeAt(i) : -1;
    if (c === 124) {
      seen = true;
      i++;
      while (i < n && isSpaceOrTab(s.charCodeAt(i))) i++;
      c = i < n ? s.charCodeAt(i) : -1;
    } else if (c !== 45 && c !== 58) {
      return -1;
    }
    // headDelimiterValueBefore
    if (c === 58 || c === 45) {
      sizeB += 1;
      if (c === 58) {
        seen = true;
        i++;
        c = i < n ? s.charCodeAt(i) : -1;
      }
      if (c !== 45) return -1;
      while (i < n && s.charCodeAt(i) === 45) i++;
      if (i < n && s.charCodeAt(i) === 58) {
        seen = true;
        i++;
      }
      while (i < n && isSpaceOrTab(s.charCodeAt(i))) i++;
    } else if (c !== -1) {
      return -1;
    }
    // headDelimiterCellAfter
    c = i < n ? s.charCodeAt(i) : -1;
    if (c === 124) continue;
    if (c === -1) return seen ? sizeB : -1;
    return -1;
  }
}

/** The outcome of scanning from some line: finished, or stopped where it was unsure. */
/** The outcome of scanning from some line: finished, or stopped where it was unsure. */
export type ScanStep =
  | {
      done: true;
      headings: RawHeading[];
      frontMatter: OutlineScan['frontMatter'];
      blocks: BlockRange[];
      /** True when a bound was applied (see {@link ScanOptions.lenientUntil}, nesting). */
      inexact: boolean;
    }
  | {
      done: false;
      /** Headings found before `cleanLine` (all of them certain). */
      headings: RawHeading[];
      frontMatter: OutlineScan['frontMatter'];
      /** Code blocks and tables that ended before `cleanLine`. */
      blocks: BlockRange[];
      inexact: boolean;
      /**
       * True when a heading's text needs link definitions from elsewhere in the document,
       * so only a parse of the whole document can decide it.
       */
      global: boolean;
      /** Last line before the unsure one at which no block was open: a fresh parser state. */
      cleanLine: number;
      /** Offset where `cleanLine` starts. */
      cleanPos: number;
      /** The line the scanner could not decide. */
      unsureLine: number;
    };

/** Options of {@link scanFrom}. */
export interface ScanOptions {
  /**
   * Decide every construct up to this line (and on to the next line at which no block is
   * open) by the reference algorithm, where micromark may differ, instead of stopping: the
   * caller found remark too slow for that stretch. `Infinity` scans the whole text this way.
   */
  lenientUntil?: number;
  /**
   * Facts about the whole text from {@link textFacts}, when the caller scans one text several
   * times (finding them costs a pass over the text). The text must then have no NUL.
   */
  facts?: TextFacts;
}

/** What a scan needs to know about the whole text before it starts. */
export interface TextFacts {
  /** The text has `]:`, so it may hold link reference definitions or footnotes. */
  hasDefinitions: boolean;
  /** The text has a CR not followed by LF. */
  loneCr: boolean;
  /**
   * Characters of heading sources remark may still be given for their inline text, over all
   * scans of the text (remark costs tens of microseconds per heading; see
   * `REMARK_HEADINGS_TOTAL_CHARS`).
   */
  headingBudget: number;
}

/** The {@link TextFacts} of `text`, in one pass. */
export function textFacts(text: string): TextFacts {
  return {
    hasDefinitions: text.includes(']:'),
    loneCr: /\r(?!\n)/.test(text),
    headingBudget: REMARK_HEADINGS_TOTAL_CHARS,
  };
}

/** Replaces NUL by U+FFFD as CommonMark (and micromark) do; offsets stay the same. */
export function replaceNul(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}

/**
 * Scans `text` from offset `pos` (the start of line `line`) with a fresh parser state, as if
 * the document began there (front matter is only looked for at offset 0). Stops at the first
 * construct it does not model exactly and reports the last clean line before it, so a caller
 * can let remark decide a window of the document and resume after it. Lines end at `\n`,
 * `\r\n` or a lone `\r`; NUL reads as U+FFFD. Linear in the length of the text.
 */
export function scanFrom(text: string, pos = 0, line = 1, options: ScanOptions = {}): ScanStep {
  const clean = options.facts ? text : replaceNul(text);
  const scanner = new Scanner(clean, options.lenientUntil ?? -1, options.facts ?? textFacts(clean));
  return scanner.run(pos, line - 1);
}

/**
 * Scans `text` for its top-level headings, YAML front matter, code blocks and tables, or
 * returns null when the document holds a construct the scanner does not model exactly (the
 * caller then parses it with remark). `text` must not start with a BOM.
 */
export function scanOutline(text: string): OutlineScan | null {
  const step = scanFrom(text);
  return step.done
    ? { headings: step.headings, frontMatter: step.frontMatter, blocks: step.blocks }
    : null;
}

/** Most characters of heading sources given to remark in one parse. */
const HEADING_BATCH_CHARS = 32 * 1024;

/** Text of a heading the scanner decides without remark (links, HTML and entities literal). */
function approximateHeadingText(source: string, content: string | null): string {
  if (content !== null) return simpleInlineText(content, true) ?? content;
  // setext: the paragraph lines without the underline, joined as remark joins them
  const lines = source.split(/\r\n|\r|\n/);
  lines.pop();
  return simpleInlineText(lines.map((l) => l.trim()).join('\n'), true) ?? '';
}

class Scanner {
  private readonly text: string;
  private readonly facts: TextFacts;
  private readonly hasDefinitions: boolean;
  /** The text has a lone CR line ending (rare: lines are then cut character by character). */
  private readonly loneCr: boolean;
  private readonly headings: RawHeading[] = [];
  private readonly blocks: BlockRange[] = [];
  private readonly doc = new Block(DOC, null);
  private tip: Block = this.doc;
  private oldtip: Block = this.doc;
  private lastMatchedContainer: Block = this.doc;
  private allClosed = true;
  /** Deciding by the reference algorithm where micromark may differ (see ScanOptions). */
  private lenient: boolean;
  private readonly lenientUntil: number;
  /** Block quotes and list items never open (after an unclosed front matter fence). */
  private noContainers = false;
  /** Some bound was applied: nesting cut, a lenient decision, an approximated heading. */
  private inexact = false;
  // current line state
  private ln = '';
  private lineNo = 0;
  private offset = 0;
  private column = 0;
  private nextNonspace = 0;
  private nextNonspaceColumn = 0;
  private indent = 0;
  private indented = false;
  private blank = false;
  private partiallyConsumedTab = false;
  /**
   * micromark's `interrupt` for container starts: every container continued and a paragraph or
   * indented code was open on the previous line. Then a list item must not be empty and an
   * ordered one must start at 1.
   */
  private interrupt = false;
  /** Some open container did not continue and no new container has started on this line. */
  private lazyLine = false;
  /** Last offset of the line holding a character other than `*_-`, space, tab (-2: unknown). */
  private lastOther = -2;
  /** Paragraphs that may hold link reference definitions, in document order. */
  private readonly defParas: string[] = [];
  /** Headings whose text waits for one remark parse with other headings. */
  private deferred: Array<{ index: number; source: string; content: string | null }> = [];
  /** Headings whose text waits for the document's definitions. */
  private readonly pending: Array<{ index: number; source: string; content: string | null }> = [];
  /** Start offsets (in `text`) of each line scanned, by line number less `lineBase`. */
  private readonly lineStarts: number[] = [];
  /** The line number before the first line scanned. */
  private lineBase = 0;

  constructor(text: string, lenientUntil: number, facts: TextFacts) {
    this.text = text;
    this.facts = facts;
    this.hasDefinitions = facts.hasDefinitions;
    this.loneCr = facts.loneCr;
    this.lenientUntil = lenientUntil;
    this.lenient = lenientUntil >= 0;
  }

  /** Runs from `start` (after line `lineNo`). */
  run(start: number, lineNo: number): ScanStep {
    const text = this.text;
    const n = text.length;
    let pos = start;
    let frontMatter: OutlineScan['frontMatter'] = null;
    // YAML front matter: `---` on line 1 up to the next `---` line (both may carry trailing
    // spaces or tabs), as micromark-extension-frontmatter recognises it. Without a closing
    // line there is none, and line 1 is read as a thematic break.
    if (start === 0 && text.startsWith('---')) {
      const first = this.rawLine(0);
      if (first.end < n && /^---[ \t]*$/.test(first.line)) {
        let p = first.next;
        let ln = 1;
        const last = text.charCodeAt(n - 1);
        while (p < n || (p === n && (last === 10 || last === 13))) {
          const l = this.rawLine(p);
          ln++;
          if (/^---[ \t]*$/.test(l.line)) {
            frontMatter = { startLine: 1, endLine: ln };
            pos = l.next;
            lineNo = ln;
            break;
          }
          if (l.next >= n) break;
          p = l.next;
        }
        // micromark-extension-frontmatter, having tried and failed, leaves micromark unable to
        // open block quotes and list items for the rest of the document: do as remark does
        if (!frontMatter) this.noContainers = true;
      }
    }
    this.lineNo = lineNo;
    this.lineBase = lineNo;
    this.lineStarts.push(pos);
    let cleanLine = lineNo + 1;
    let cleanPos = pos;
    let cleanCount = 0;
    let cleanBlocks = 0;
    const footnotes = this.hasDefinitions;
    let prevBlank = false;
    try {
      while (pos < n) {
        const l = this.rawLine(pos);
        this.lineNo++;
        this.lineStarts[this.lineNo - this.lineBase] = pos;
        if (this.tip === this.doc) {
          cleanLine = this.lineNo;
          cleanPos = pos;
          cleanCount = this.headings.length;
          cleanBlocks = this.blocks.length;
          if (this.lenient && this.lineNo > this.lenientUntil) this.lenient = false;
        }
        const blank = blankFrom(l.line, 0);
        // A blank line after a blank line changes nothing: the first one closed what a blank
        // line closes, and every block still open continues through blank lines. Skipping it
        // keeps a run of blank lines inside deep nesting from costing its depth per line.
        if (blank && prevBlank) {
          pos = l.next;
          continue;
        }
        prevBlank = blank;
        // a GFM footnote definition is a container the scanner does not model
        if (footnotes && l.line.includes('[^')) this.unsure();
        this.incorporateLine(l.line, pos);
        pos = l.next;
      }
      // finalize everything at EOF
      this.blank = true;
      while (this.tip !== this.doc) this.finalize(this.tip, true);
    } catch (e) {
      if (!(e instanceof Unsure)) throw e;
      const resolved = this.resolveDeferred(cleanCount);
      return {
        done: false,
        headings: this.headings.slice(0, cleanCount),
        frontMatter,
        blocks: this.blocks.slice(0, cleanBlocks),
        inexact: this.inexact,
        // definitions in windows remark decides would be missed: remark must see everything
        global: !resolved || this.pending.some((p) => p.index < cleanCount),
        cleanLine,
        cleanPos,
        unsureLine: this.lineNo,
      };
    }
    const resolved = this.resolveDeferred(this.headings.length);
    // pending headings need every definition of the document: only a scan from the start
    // has seen them all
    if (!resolved || (this.pending.length > 0 && !(start === 0 && this.resolvePending()))) {
      if (this.lenientUntil !== Infinity) {
        return {
          done: false,
          headings: [],
          frontMatter,
          blocks: [],
          inexact: this.inexact,
          global: true,
          cleanLine: 1,
          cleanPos: 0,
          unsureLine: 1,
        };
      }
      this.inexact = true;
      for (const p of this.pending) {
        this.headings[p.index]!.text = approximateHeadingText(p.source, p.content);
      }
    }
    return {
      done: true,
      headings: this.headings,
      frontMatter,
      blocks: this.blocks,
      inexact: this.inexact,
    };
  }

  /**
   * Gives the deferred headings before `upto` their text from remark, many headings to a
   * parse (one parse per heading cost a millisecond each: a page of 100,000 headings with a
   * link each took a minute). False when remark reads some heading's source as anything but
   * one heading, in a strict scan; a lenient one approximates that heading's text instead.
   */
  private resolveDeferred(upto: number): boolean {
    const todo = this.deferred.filter((d) => d.index < upto);
    this.deferred = this.deferred.filter((d) => d.index >= upto);
    let ok = true;
    for (let i = 0; i < todo.length; ) {
      let j = i;
      let size = 0;
      while (j < todo.length && (j === i || size + todo[j]!.source.length <= HEADING_BATCH_CHARS)) {
        size += todo[j]!.source.length + 2;
        j++;
      }
      const group = todo.slice(i, j);
      const tree = parseMdast(group.map((d) => d.source).join('\n\n'));
      const batched =
        tree.children.length === group.length && tree.children.every((n) => n.type === 'heading');
      for (let k = 0; k < group.length; k++) {
        const d = group[k]!;
        let text = batched ? mdastToString(tree.children[k]!) : remarkHeadingText(d.source);
        if (text === null) {
          if (!this.lenient) ok = false;
          this.inexact = true;
          text = approximateHeadingText(d.source, d.content);
        }
        this.headings[d.index]!.text = text;
      }
      i = j;
    }
    return ok;
  }

  /** Gives pending headings their text from one remark parse with all definition paragraphs. */
  private resolvePending(): boolean {
    const src = `${this.pending.map((p) => p.source).join('\n\n')}\n\n${this.defParas.join('\n\n')}\n`;
    if (!remarkAffordable(src, REMARK_DOCUMENT_CHARS)) return false;
    const tree = parseMdast(src);
    for (let i = 0; i < this.pending.length; i++) {
      const node = tree.children[i];
      if (node?.type !== 'heading') return false;
      this.headings[this.pending[i]!.index]!.text = mdastToString(node);
    }
    return true;
  }

  private rawLine(pos: number): { line: string; end: number; next: number } {
    const text = this.text;
    if (this.loneCr) {
      let i = pos;
      const n = text.length;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 10) return { line: text.slice(pos, i), end: i, next: i + 1 };
        if (c === 13) {
          const next = text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
          return { line: text.slice(pos, i), end: i, next };
        }
        i++;
      }
      return { line: text.slice(pos), end: n, next: n + 1 };
    }
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = text.length;
    let end = nl;
    if (end > pos && text.charCodeAt(end - 1) === 13) end--;
    return { line: text.slice(pos, end), end, next: nl + 1 };
  }

  // ---- line cursor helpers (ported from the reference implementation) ----

  private findNextNonspace(): void {
    const ln = this.ln;
    let i = this.offset;
    let cols = this.column;
    let c = -1;
    while (i < ln.length) {
      c = ln.charCodeAt(i);
      if (c === C_SPACE) {
        i++;
        cols++;
      } else if (c === C_TAB) {
        i++;
        cols += 4 - (cols % 4);
      } else {
        break;
      }
    }
    this.blank = i >= ln.length;
    this.nextNonspace = i;
    this.nextNonspaceColumn = cols;
    this.indent = this.nextNonspaceColumn - this.column;
    this.indented = this.indent >= 4;
  }

  private advanceNextNonspace(): void {
    this.offset = this.nextNonspace;
    this.column = this.nextNonspaceColumn;
    this.partiallyConsumedTab = false;
  }

  private advanceOffset(count: number, columns: boolean): void {
    const ln = this.ln;
    while (count > 0 && this.offset < ln.length) {
      const c = ln.charCodeAt(this.offset);
      if (c === C_TAB) {
        const charsToTab = 4 - (this.column % 4);
        if (columns) {
          this.partiallyConsumedTab = charsToTab > count;
          const charsToAdvance = Math.min(count, charsToTab);
          this.column += charsToAdvance;
          this.offset += this.partiallyConsumedTab ? 0 : 1;
          count -= charsToAdvance;
        } else {
          this.partiallyConsumedTab = false;
          this.column += charsToTab;
          this.offset += 1;
          count -= 1;
        }
      } else {
        this.partiallyConsumedTab = false;
        this.offset += 1;
        this.column += 1;
        count -= 1;
      }
    }
  }

  private peek(i: number): number {
    return i < this.ln.length ? this.ln.charCodeAt(i) : -1;
  }

  // ---- tree ----

  private addChild(k: number): Block {
    while (!canContain(this.tip.k, k)) this.finalize(this.tip, false);
    const b = new Block(k, this.tip);
    this.tip.hasChild = true;
    this.tip.openChild = b;
    this.tip = b;
    return b;
  }

  private finalize(block: Block, atEof: boolean): void {
    if (block.k === PARA && block.maybeDef && !atEof && !this.blank) {
      // A paragraph that may hold a link reference definition was cut short by another block:
      // micromark may let the definition run on into that line, the reference algorithm not.
      this.unsure();
    }
    if (block.defLines) this.defParas.push(block.defLines.join('\n'));
    if (block.k === FENCE || block.k === ICODE || block.k === TABLE) this.recordBlock(block);
    this.up(block.parent!);
  }

  private closeUnmatchedBlocks(): void {
    if (!this.allClosed) {
      while (this.oldtip !== this.lastMatchedContainer) {
        const parent = this.oldtip.parent!;
        this.finalize(this.oldtip, false);
        this.oldtip = parent;
      }
      this.allClosed = true;
    }
  }

  /**
   * True when the line holds only `*`, `_`, `-`, spaces and tabs from `at` on. Found once per
   * line, so nested containers on one long line do not each scan the rest of it.
   */
  private onlyBreakCharsFrom(at: number): boolean {
    if (this.lastOther === -2) {
      const ln = this.ln;
      let i = ln.length - 1;
      for (; i >= 0; i--) {
        const c = ln.charCodeAt(i);
        if (c !== 42 && c !== 95 && c !== 45 && c !== C_SPACE && c !== C_TAB) break;
      }
      this.lastOther = i;
    }
    return this.lastOther < at;
  }

  /** True when `extra` more blocks may open inside `container`; notes the cut otherwise. */
  private deepEnough(container: Block, extra: number): boolean {
    if (container.depth + extra <= MAX_NESTING) return true;
    this.inexact = true;
    return false;
  }

  /** Goes on where the reference algorithm and micromark may differ, or gives up. */
  private unsure(): void {
    if (!this.lenient) throw UNSURE;
    this.inexact = true;
  }

  private recordBlock(b: Block): void {
    this.blocks.push({
      kind: b.k === TABLE ? 'table' : 'code',
      startLine: b.rangeStart,
      endLine: b.rangeEnd,
    });
  }

  /** Makes `b` (an ancestor of the tip, or the tip) the innermost open block. */
  private up(b: Block): void {
    b.openChild = null;
    this.tip = b;
  }

  // ---- continuation of open blocks ----

  /** 0 = matched, 1 = not matched, 2 = line consumed (closing fence). */
  private continueBlock(b: Block): number {
    switch (b.k) {
      case DOC:
      case LIST:
        return 0;
      case BQ: {
        if (!this.indented && this.peek(this.nextNonspace) === C_GT) {
          this.advanceNextNonspace();
          this.advanceOffset(1, false);
          if (isSpaceOrTab(this.peek(this.offset))) this.advanceOffset(1, true);
          return 0;
        }
        return 1;
      }
      case ITEM: {
        if (this.blank) {
          if (!b.hasChild) return 1;
          this.advanceNextNonspace();
        } else if (this.indent >= b.markerOffset + b.padding) {
          this.advanceOffset(b.markerOffset + b.padding, true);
        } else {
          return 1;
        }
        return 0;
      }
      case FENCE: {
        const ln = this.ln;
        if (
          !this.indented &&
          this.peek(this.nextNonspace) === b.fch &&
          test(RE_FENCE_CLOSE, ln, this.nextNonspace) &&
          RE_FENCE_CLOSE.lastIndex - this.nextNonspace >= b.flen
        ) {
          b.rangeEnd = this.lineNo;
          this.finalize(b, false);
          return 2;
        }
        let i = b.foff;
        while (i > 0 && isSpaceOrTab(this.peek(this.offset))) {
          this.advanceOffset(1, true);
          i--;
        }
        return 0;
      }
      case ICODE: {
        if (b.oneLine) return 1;
        if (this.indent >= 4) this.advanceOffset(4, true);
        else if (this.blank) this.advanceNextNonspace();
        else return 1;
        return 0;
      }
      case HTML:
        return this.blank && (b.htype === 6 || b.htype === 7) ? 1 : 0;
      case PARA:
      case TABLE:
        return this.blank ? 1 : 0;
      default:
        return 1;
    }
  }

  // ---- block starts; 0 = no match, 1 = container start, 2 = leaf start ----

  private blockStart(container: Block): number {
    const ln = this.ln;
    const c = this.peek(this.nextNonspace);
    if (!this.indented) {
      // block quote
      if (c === C_GT && !this.noContainers && this.deepEnough(container, 1)) {
        this.advanceNextNonspace();
        this.advanceOffset(1, false);
        if (isSpaceOrTab(this.peek(this.offset))) this.advanceOffset(1, true);
        this.closeUnmatchedBlocks();
        this.addChild(BQ);
        return 1;
      }
      // ATX heading
      if (c === 35 && test(RE_ATX, ln, this.nextNonspace)) {
        const markEnd = RE_ATX.lastIndex;
        let level = 0;
        while (ln.charCodeAt(this.nextNonspace + level) === 35) level++;
        this.advanceNextNonspace();
        this.advanceOffset(markEnd - this.nextNonspace, false);
        this.closeUnmatchedBlocks();
        const h = this.addChild(CLOSED_LEAF);
        const content = atxContent(ln.slice(this.offset));
        if (h.parent === this.doc) {
          this.record(level, content, this.lineNo, this.lineNo);
        }
        this.finalize(h, false);
        this.offset = ln.length;
        return 2;
      }
      // fenced code
      if ((c === 96 || c === 126) && test(RE_FENCE_OPEN, ln, this.nextNonspace)) {
        const len = RE_FENCE_OPEN.lastIndex - this.nextNonspace;
        this.closeUnmatchedBlocks();
        const f = this.addChild(FENCE);
        f.rangeStart = this.lineNo;
        f.rangeEnd = this.lineNo;
        f.fch = c;
        f.flen = len;
        f.foff = this.indent;
        this.advanceNextNonspace();
        this.advanceOffset(len, false);
        return 2;
      }
      // HTML block
      if (c === 60) {
        for (let t = 1; t <= 7; t++) {
          // micromark lets type 7 interrupt a lazy paragraph line, not a matched one
          if (
            t < 7
              ? test(RE_HTML_OPEN[t]!, ln, this.nextNonspace)
              : container.k !== PARA && completeTagLine(ln, this.nextNonspace)
          ) {
            // micromark keeps a type 7 block that cuts a lazy line inside the container
            if (t === 7 && !this.allClosed && this.tip.k === PARA) this.unsure();
            this.closeUnmatchedBlocks();
            const h = this.addChild(HTML);
            h.htype = t;
            return 2;
          }
        }
      }
      // setext heading
      if (
        (c === 61 || c === 45) &&
        container.k === PARA &&
        test(RE_SETEXT, ln, this.nextNonspace)
      ) {
        this.closeUnmatchedBlocks();
        const para = container;
        if (para.maybeDef) this.unsure();
        const level = c === 61 ? 1 : 2;
        if (para.parent === this.doc) this.recordSetext(para, level);
        // replace the paragraph by a closed heading
        this.up(para.parent!);
        const h = this.addChild(CLOSED_LEAF);
        this.up(h.parent!);
        this.offset = ln.length;
        return 2;
      }
      // thematic break
      if (
        (c === 42 || c === 95 || c === 45) &&
        this.onlyBreakCharsFrom(this.nextNonspace) &&
        test(RE_THEMATIC, ln, this.nextNonspace)
      ) {
        this.closeUnmatchedBlocks();
        const h = this.addChild(CLOSED_LEAF);
        this.up(h.parent!);
        this.offset = ln.length;
        return 2;
      }
    }
    // list item
    if ((!this.indented || container.k === LIST) && !this.noContainers) {
      if (this.listItemStart(container)) return 1;
    }
    // GFM table: the paragraph's last line becomes the head row
    if (!this.indented && container.k === PARA && (c === 124 || c === 45 || c === 58)) {
      if (this.tableStart(container)) return 2;
    }
    // indented code
    if (this.indented && this.tip.k !== PARA && !this.blank) {
      this.advanceOffset(4, true);
      this.closeUnmatchedBlocks();
      const code = this.addChild(ICODE);
      code.rangeStart = this.lineNo;
      code.rangeEnd = this.lineNo;
      code.oneLine = this.lazyLine;
      return 2;
    }
    return 0;
  }

  private listItemStart(container: Block): boolean {
    const ln = this.ln;
    if (this.indent >= 4) return false;
    const at = this.nextNonspace;
    let ordered = false;
    let delim = '';
    let markerLen = 0;
    if (test(RE_BULLET, ln, at)) {
      delim = ln[at]!;
      markerLen = 1;
    } else {
      const m = test(RE_ORDERED, ln, at);
      if (!m || (this.interrupt && m[1] !== '1')) return false;
      ordered = true;
      delim = m[2]!;
      markerLen = m[0].length;
    }
    const nextc = this.peek(at + markerLen);
    if (!(nextc === -1 || nextc === C_TAB || nextc === C_SPACE)) return false;
    if (this.interrupt && blankFrom(ln, at + markerLen)) return false;
    if (!this.deepEnough(container, 2)) return false;
    // a match
    this.advanceNextNonspace();
    this.advanceOffset(markerLen, true);
    const spacesStartCol = this.column;
    const spacesStartOffset = this.offset;
    let c: number;
    do {
      this.advanceOffset(1, true);
      c = this.peek(this.offset);
    } while (this.column - spacesStartCol < 5 && isSpaceOrTab(c));
    const blankItem = this.peek(this.offset) === -1;
    const spacesAfterMarker = this.column - spacesStartCol;
    let padding: number;
    if (spacesAfterMarker >= 5 || spacesAfterMarker < 1 || blankItem) {
      padding = markerLen + 1;
      this.column = spacesStartCol;
      this.offset = spacesStartOffset;
      if (isSpaceOrTab(this.peek(this.offset))) this.advanceOffset(1, true);
    } else {
      padding = markerLen + spacesAfterMarker;
    }
    this.closeUnmatchedBlocks();
    if (this.tip.k !== LIST || this.tip.ordered !== ordered || this.tip.delim !== delim) {
      const list = this.addChild(LIST);
      list.ordered = ordered;
      list.delim = delim;
    }
    const item = this.addChild(ITEM);
    item.markerOffset = this.indent;
    item.padding = padding;
    return true;
  }

  private tableStart(para: Block): boolean {
    const ln = this.ln;
    const size = delimiterRowSize(ln, this.nextNonspace);
    if (size < 0) return false;
    if (para.lastLazy || para.lastIndent >= 4) this.unsure();
    const head = this.lineText(para.lastLine);
    if (headRowSize(head, para.lastStart) !== size) return false;
    // the lines before the head row stay a paragraph (closed here); head + delimiter = table
    if (para.lines > 1 && para.maybeDef) this.unsure();
    this.closeUnmatchedBlocks();
    this.up(para.parent!);
    const table = this.addChild(TABLE);
    table.rangeStart = para.lastLine;
    table.rangeEnd = this.lineNo;
    this.offset = ln.length;
    return true;
  }

  private lineText(lineNo: number): string {
    return this.rawLine(this.lineStarts[lineNo - this.lineBase]!).line;
  }

  // ---- one line ----

  private incorporateLine(ln: string, _pos: number): void {
    let container: Block = this.doc;
    this.oldtip = this.tip;
    this.offset = 0;
    this.column = 0;
    this.blank = false;
    this.partiallyConsumedTab = false;
    this.ln = ln;
    this.lastOther = -2;

    // match open blocks, descending through open last children
    let failed: Block | null = null;
    for (;;) {
      const child: Block | null = container.openChild;
      if (!child) break;
      container = child;
      this.findNextNonspace();
      const r = this.continueBlock(container);
      if (r === 2) return;
      if (r === 1) {
        failed = container;
        container = container.parent!;
        break;
      }
    }
    const containersContinued = failed === null || failed.k === PARA || failed.k === ICODE;
    this.interrupt =
      containersContinued &&
      (this.oldtip.k === PARA || (this.oldtip.k === ICODE && !this.oldtip.oneLine));
    this.lazyLine = !containersContinued;
    this.allClosed = container === this.oldtip;
    this.lastMatchedContainer = container;

    let matchedLeaf = container.k !== PARA && acceptsLines(container.k) && container.k !== TABLE;
    while (!matchedLeaf) {
      this.findNextNonspace();
      if (!this.indented && !maybeSpecial(this.peek(this.nextNonspace))) {
        this.advanceNextNonspace();
        break;
      }
      const res = this.blockStart(container);
      if (res === 1) {
        container = this.tip;
        this.lazyLine = false;
      } else if (res === 2) {
        container = this.tip;
        matchedLeaf = true;
        if (this.offset >= ln.length && container.k !== FENCE && container.k !== HTML) {
          // closed leaf (heading, thematic break, table head): nothing more on this line
          return;
        }
      } else {
        this.advanceNextNonspace();
        break;
      }
    }

    // what remains is text for the innermost container
    if (!this.allClosed && !this.blank && this.tip.k === PARA) {
      // lazy paragraph continuation
      this.addParaLine(this.tip, true);
      return;
    }
    this.closeUnmatchedBlocks();
    const t = container.k;
    if (acceptsLines(t)) {
      // a range ends at its last non-blank line
      if ((t === FENCE || t === TABLE || t === ICODE) && !this.blank) {
        container.rangeEnd = this.lineNo;
      }
      if (t === PARA) this.addParaLine(container, false);
      else if (t === HTML && container.htype >= 1 && container.htype <= 5) {
        if (RE_HTML_CLOSE[container.htype]!.test(ln.slice(this.offset))) {
          this.finalize(container, false);
        }
      }
    } else if (this.offset < ln.length && !this.blank) {
      const para = this.addChild(PARA);
      this.advanceNextNonspace();
      para.startLine = this.lineNo;
      para.maybeDef =
        ln.charCodeAt(this.offset) === C_LBRACKET &&
        (ln.includes(']:', this.offset) || !ln.includes(']', this.offset));
      if (para.maybeDef && this.hasDefinitions) para.defLines = [];
      this.addParaLine(para, false);
    }
  }

  private addParaLine(para: Block, lazy: boolean): void {
    para.defLines?.push(this.ln.slice(this.nextNonspace));
    para.lines++;
    para.lastLine = this.lineNo;
    para.lastLazy = lazy;
    // the head-row candidate starts at the first non-space character of the remaining text
    para.lastStart = this.nextNonspace;
    para.lastIndent = this.indent;
  }

  // ---- recording headings ----

  private record(level: number, content: string, line: number, endLine: number): void {
    let text = simpleInlineText(content);
    if (text === null) text = this.fullInlineText(line, endLine, content);
    this.headings.push({ level, text, line, endLine });
  }

  private recordSetext(para: Block, level: number): void {
    if (para.lines === 1) {
      const line = this.lineText(para.startLine);
      this.record(level, line, para.startLine, this.lineNo);
      return;
    }
    this.headings.push({
      level,
      text: this.fullInlineText(para.startLine, this.lineNo, null),
      line: para.startLine,
      endLine: this.lineNo,
    });
  }

  /** Inline text via remark on the heading's own source lines (top-level, so no prefixes). */
  private fullInlineText(line: number, endLine: number, content: string | null): string {
    const start = this.lineStarts[line - this.lineBase]!;
    const end = this.rawLine(this.lineStarts[endLine - this.lineBase]!).end;
    const source = this.text.slice(start, end);
    if (this.hasDefinitions && (content === null || source.includes('[') || source.includes(']'))) {
      // a reference link may resolve against a definition anywhere in the document: decide
      // it at the end, with every definition paragraph in the same remark parse
      this.pending.push({ index: this.headings.length, source, content });
      return '';
    }
    if (
      this.facts.headingBudget >= source.length &&
      remarkAffordable(source, REMARK_HEADING_CHARS)
    ) {
      this.facts.headingBudget -= source.length;
      // decided by remark later, together with other headings
      this.deferred.push({ index: this.headings.length, source, content });
      return '';
    }
    this.unsure();
    return approximateHeadingText(source, content);
  }
}
