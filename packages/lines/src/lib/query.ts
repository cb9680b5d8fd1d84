import { ToolError } from '@lectern/core';
import type { ScanParams } from './regex-runner.js';

/** How a search query is interpreted. */
export interface QueryOptions {
  query: string;
  regex: boolean;
  caseSensitive: boolean;
  wholeWord: boolean;
}

/** A compiled query: the RegExp source and flags to scan with. */
export interface CompiledQuery {
  source: string;
  flags: string;
  /** True when the pattern cannot backtrack (an escaped literal): safe on the calling thread. */
  literal: boolean;
  /** UTF-8 bytes every matching file must contain (case-sensitive literals only), for a fast skip. */
  needle: Buffer | undefined;
  /**
   * A check on a file's raw bytes that is false only when the file cannot match (literals:
   * case-sensitive always, case-insensitive when the query is ASCII); undefined when there is
   * no cheap check and every file must be decoded and scanned.
   */
  mayMatch: ((bytes: Buffer) => boolean) | undefined;
}

const escapeLiteral = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Compiles a query into a RegExp source and flags (`g` and `m` always; `i` unless case
 * sensitive; `u` whenever the pattern allows it). A literal is escaped; whole_word wraps the
 * pattern in Unicode-aware word boundaries. A pattern that compiles in neither Unicode nor
 * legacy mode throws `INVALID_REGEX` with the engine's message.
 */
export function compileQuery(options: QueryOptions): CompiledQuery {
  const body = options.regex ? options.query : escapeLiteral(options.query);
  const ci = options.caseSensitive ? '' : 'i';
  const unicode = options.wholeWord ? `(?<![\\p{L}\\p{N}_])(?:${body})(?![\\p{L}\\p{N}_])` : body;
  try {
    new RegExp(unicode, `gmu${ci}`);
    return finish(unicode, `gmu${ci}`, options);
  } catch (unicodeError) {
    const legacy = options.wholeWord ? `(?<![A-Za-z0-9_])(?:${body})(?![A-Za-z0-9_])` : body;
    try {
      new RegExp(legacy, `gm${ci}`);
      return finish(legacy, `gm${ci}`, options);
    } catch (error) {
      const message = (error as Error).message || (unicodeError as Error).message;
      throw new ToolError(
        'INVALID_REGEX',
        `query is not a valid JavaScript regular expression: ${message}. Fix the pattern, or pass regex: false to search for the text literally.`,
        { details: { engine_message: message } },
      );
    }
  }
}

/**
 * The only non-ASCII characters that Unicode simple case folding (the `iu` flags) maps onto
 * ASCII letters: KELVIN SIGN onto k and LATIN SMALL LETTER LONG S onto s.
 */
const FOLDS_ONTO_ASCII: ReadonlyArray<readonly [string, Buffer]> = [
  ['k', Buffer.from('\u212A', 'utf8')],
  ['s', Buffer.from('\u017F', 'utf8')],
];

const ASCII = /^[\u0000-\u007f]*$/;

/**
 * A byte-level check that rules out files which cannot contain a literal: the UTF-8 needle
 * for a case-sensitive query; for a case-insensitive ASCII query, a legacy-mode `i` search over
 * the bytes read as Latin-1 (one character per byte, no decoding; ASCII letters then only match
 * ASCII letters, and in UTF-8 an ASCII byte is always that ASCII character), or the presence of
 * a character that folds onto one of the query's letters.
 */
function literalPrefilter(options: QueryOptions): ((bytes: Buffer) => boolean) | undefined {
  if (options.regex) return undefined;
  if (options.caseSensitive) {
    const needle = Buffer.from(options.query, 'utf8');
    return (bytes) => bytes.indexOf(needle) !== -1;
  }
  if (!ASCII.test(options.query)) return undefined;
  const re = new RegExp(escapeLiteral(options.query), 'i');
  const lower = options.query.toLowerCase();
  const folds = FOLDS_ONTO_ASCII.filter(([c]) => lower.includes(c)).map(([, b]) => b);
  return (bytes) => re.test(bytes.toString('latin1')) || folds.some((f) => bytes.indexOf(f) !== -1);
}

function finish(source: string, flags: string, options: QueryOptions): CompiledQuery {
  return {
    source,
    flags,
    literal: !options.regex,
    needle:
      !options.regex && options.caseSensitive ? Buffer.from(options.query, 'utf8') : undefined,
    mayMatch: literalPrefilter(options),
  };
}

/** The scan parameters of a compiled query. */
export function scanParams(
  compiled: CompiledQuery,
  cap: number,
  contextLines: number,
  maxChars: number,
): ScanParams {
  return { source: compiled.source, flags: compiled.flags, cap, contextLines, maxChars };
}
