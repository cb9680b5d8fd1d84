import { ToolError } from '@lectern/core';

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
