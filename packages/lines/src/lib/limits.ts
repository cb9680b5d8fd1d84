import { availableParallelism } from 'node:os';
import { ToolError } from '@lectern/core';

/**
 * Every limit the line tools enforce. Each one is checked before the work it bounds, and each
 * can only be lowered (see {@link resolveLimits}).
 */
export interface LineLimits {
  /** Largest file read_text and search_text accept, in bytes (16 MiB). */
  maxFileBytes: number;
  /** Most lines one read_text call returns (200). */
  maxLines: number;
  /** Lines read_text returns when `line_count` is not given (100). */
  defaultLines: number;
  /** Most UTF-8 bytes of line text one read_text call returns, line endings not counted (32 KiB). */
  maxTextBytes: number;
  /** Most bytes of serialized (compact JSON) output one read_text or search_text call returns (64 KiB). */
  maxOutputBytes: number;
  /** Largest file read_artifact accepts, in bytes (256 MiB). */
  maxArtifactFileBytes: number;
  /** Most bytes one read_artifact call returns (1 MiB). */
  maxArtifactChunkBytes: number;
  /** Bytes read_artifact returns when `length` is not given (64 KiB). */
  defaultArtifactChunkBytes: number;
  /** Most entries one list_files page returns (1000). */
  maxPageSize: number;
  /** Entries a list_files page returns when `limit` is not given (200). */
  defaultPageSize: number;
  /** Deepest folder level list_files and search_text descend to, 1 = direct children (64). */
  maxDepth: number;
  /** Folder entries one list_files or search_text call may visit before it stops early (100000). */
  maxScanEntries: number;
  /** Most matching lines one search_text page returns (500). */
  maxMatches: number;
  /** Matching lines a search_text page returns when `max_matches` is not given (100). */
  defaultMatches: number;
  /** Most matching lines search_text reports from one file (1000). */
  maxMatchesPerFile: number;
  /** Matching lines per file when `max_matches_per_file` is not given (20). */
  defaultMatchesPerFile: number;
  /** Most context lines before and after a match (10). */
  maxContextLines: number;
  /** Longest line text, in characters, search_text returns for a match or context line (400). */
  maxLineChars: number;
  /** Most file bytes one search_text call reads before it stops early (256 MiB). */
  maxSearchBytes: number;
  /** Time budget of the regular-expression scan of one search_text call, in milliseconds (5000). */
  regexTimeoutMs: number;
  /**
   * Most regular-expression worker threads alive at once in the process (the machine's cores);
   * search_text calls past it wait in line, and the wait counts in their `regexTimeoutMs`.
   */
  maxRegexWorkers: number;
}

const MiB = 1024 * 1024;

/** The default (and largest allowed) value of every limit. */
export const DEFAULT_LINE_LIMITS: Readonly<LineLimits> = Object.freeze({
  maxFileBytes: 16 * MiB,
  maxLines: 200,
  defaultLines: 100,
  maxTextBytes: 32 * 1024,
  maxOutputBytes: 64 * 1024,
  maxArtifactFileBytes: 256 * MiB,
  maxArtifactChunkBytes: MiB,
  defaultArtifactChunkBytes: 64 * 1024,
  maxPageSize: 1000,
  defaultPageSize: 200,
  maxDepth: 64,
  maxScanEntries: 100_000,
  maxMatches: 500,
  defaultMatches: 100,
  maxMatchesPerFile: 1000,
  defaultMatchesPerFile: 20,
  maxContextLines: 10,
  maxLineChars: 400,
  maxSearchBytes: 256 * MiB,
  regexTimeoutMs: 5000,
  maxRegexWorkers: Math.max(1, availableParallelism()),
});

/** Limits that may be zero (every other limit must be at least 1). */
const MAY_BE_ZERO = new Set<keyof LineLimits>(['maxContextLines']);

/** Pairs whose default must not exceed their maximum once a maximum is lowered. */
const DEFAULT_OF: ReadonlyArray<[keyof LineLimits, keyof LineLimits]> = [
  ['defaultLines', 'maxLines'],
  ['defaultArtifactChunkBytes', 'maxArtifactChunkBytes'],
  ['defaultPageSize', 'maxPageSize'],
  ['defaultMatches', 'maxMatches'],
  ['defaultMatchesPerFile', 'maxMatchesPerFile'],
];

/**
 * Merges overrides into {@link DEFAULT_LINE_LIMITS}. A limit can only be lowered: a value above
 * its default, a non-integer or a value below 1 (0 for `maxContextLines`) throws
 * `LIMIT_INVALID`; an unknown key throws `LIMIT_UNKNOWN`. A default (e.g. `defaultLines`) that
 * is left unset follows its lowered maximum down; one set above its maximum is an error.
 */
export function resolveLimits(overrides: Partial<LineLimits> = {}): LineLimits {
  const out: LineLimits = { ...DEFAULT_LINE_LIMITS };
  for (const [key, value] of Object.entries(overrides) as Array<[keyof LineLimits, unknown]>) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_LINE_LIMITS)) {
      throw new ToolError(
        'LIMIT_UNKNOWN',
        `unknown limit "${key}"; known limits: ${Object.keys(DEFAULT_LINE_LIMITS).join(', ')}.`,
      );
    }
    const max = DEFAULT_LINE_LIMITS[key];
    const min = MAY_BE_ZERO.has(key) ? 0 : 1;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new ToolError(
        'LIMIT_INVALID',
        `limit ${key} must be a whole number from ${min} to ${max} (limits can only be lowered), got ${String(value)}.`,
        { details: { limit: key, minimum: min, maximum: max } },
      );
    }
    out[key] = value;
  }
  for (const [def, max] of DEFAULT_OF) {
    if (out[def] > out[max]) {
      if (overrides[def] !== undefined) {
        throw new ToolError(
          'LIMIT_INVALID',
          `limit ${def} (${out[def]}) cannot exceed ${max} (${out[max]}).`,
          { details: { limit: def, maximum: out[max] } },
        );
      }
      out[def] = out[max];
    }
  }
  return out;
}
