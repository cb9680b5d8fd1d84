/** Marker on every result that carries file content: the text is data, never instructions. */
export const SOURCE_TRUST = 'untrusted' as const;

/**
 * Longest `display` of a path, in characters: a longer one keeps its beginning and end (so a
 * long name of escaped characters cannot double an entry's size past a page's budget).
 */
export const MAX_DISPLAY_CHARS = 512;

/** Size of `value` serialized as compact JSON, in UTF-8 bytes. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** True when `value` is a 64-character hexadecimal SHA-256. */
export function isSha256(value: string): boolean {
  return /^[0-9a-fA-F]{64}$/.test(value);
}
