import { sha256, ToolError } from '@lectern/core';

/** Fingerprint of the parameters a cursor belongs to (16 hex characters). */
export function fingerprint(query: unknown): string {
  return sha256(JSON.stringify(query)).slice(0, 16);
}

function checksum(kind: string, query: string, position: unknown): string {
  return sha256(JSON.stringify(['lectern-lines-cursor', 1, kind, query, position])).slice(0, 16);
}

/**
 * Encodes a position as an opaque cursor: base64url of JSON `{ v, k, q, p, c }` where `k` is
 * the tool, `q` the fingerprint of the query it continues, `p` the position and `c` a checksum
 * of the rest (it detects edited or truncated cursors; it is not a secret).
 */
export function encodeCursor(kind: string, query: string, position: unknown): string {
  const payload = { v: 1, k: kind, q: query, p: position, c: checksum(kind, query, position) };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

function invalid(why: string): ToolError {
  return new ToolError(
    'INVALID_CURSOR',
    (n) =>
      `${n('cursor')} is not valid (${why}); pass ${n('next_cursor')} exactly as an earlier call returned it, or omit ${n('cursor')} to start from the beginning.`,
    { details: { param: 'cursor' } },
  );
}

/**
 * Decodes a cursor made by {@link encodeCursor} for the same tool and query. Throws
 * `INVALID_CURSOR` when it is not base64url JSON, has the wrong shape or a wrong checksum, and
 * `CURSOR_MISMATCH` when it was issued for another tool or other query parameters. `check`
 * validates the position's own shape.
 */
export function decodeCursor<P>(
  cursor: string,
  kind: string,
  query: string,
  check: (position: unknown) => position is P,
): P {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('not base64url');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('not an encoded position');
  }
  if (typeof payload !== 'object' || payload === null) throw invalid('not an encoded position');
  const { v, k, q, p, c } = payload as Record<string, unknown>;
  if (v !== 1 || typeof k !== 'string' || typeof q !== 'string' || typeof c !== 'string') {
    throw invalid('unknown format');
  }
  if (c !== checksum(k, q, p)) throw invalid('checksum mismatch: it was altered or truncated');
  if (k !== kind) {
    throw new ToolError(
      'CURSOR_MISMATCH',
      (n) =>
        `${n('cursor')} was issued by ${n(k)}, not ${n(kind)}; pass it back to the tool that returned it.`,
      { details: { param: 'cursor' } },
    );
  }
  if (q !== query) {
    throw new ToolError(
      'CURSOR_MISMATCH',
      (n) =>
        `${n('cursor')} was issued for different parameters; repeat the call with the same parameters as the call that returned it (only the page size may change), or omit ${n('cursor')} to start over.`,
      { details: { param: 'cursor' } },
    );
  }
  if (!check(p)) throw invalid('bad position');
  return p;
}
