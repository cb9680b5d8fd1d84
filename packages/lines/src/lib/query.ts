import { ToolError } from '@lectern/core';
import { makePrefilter } from './file-scan.js';
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

function finish(source: string, flags: string, options: QueryOptions): CompiledQuery {
  return {
    source,
    flags,
    literal: !options.regex,
    needle:
      !options.regex && options.caseSensitive ? Buffer.from(options.query, 'utf8') : undefined,
    mayMatch: options.regex
      ? undefined
      : makePrefilter({ query: options.query, caseSensitive: options.caseSensitive }),
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
