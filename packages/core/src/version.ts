import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { ToolError } from './errors.js';

/** SHA-256 of the raw bytes as 64 lowercase hex characters: Lectern's version of a file. */
export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * SHA-256 of an open file read in chunks from position 0, so a large file is never held
 * in memory at once. `chunkSize` defaults to 1 MiB.
 */
export async function sha256Handle(handle: FileHandle, chunkSize = 1 << 20): Promise<string> {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(chunkSize);
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buf, 0, chunkSize, position);
    if (bytesRead === 0) break;
    hash.update(buf.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest('hex');
}

/** True for a well-formed version string (64 hex characters, any case). */
export function isVersion(value: string): boolean {
  return /^[0-9a-f]{64}$/i.test(value);
}

/**
 * Throws `VERSION_MISMATCH` when `expected` is given and differs from `actual`
 * (case-insensitive). The error's details carry `current_version` so the caller can re-read.
 */
export function assertVersion(
  expected: string | undefined | null,
  actual: string,
  subject = 'the file',
): void {
  if (expected === undefined || expected === null) return;
  if (expected.toLowerCase() === actual.toLowerCase()) return;
  throw new ToolError(
    'VERSION_MISMATCH',
    `${subject} changed: expected version ${expected} but it is now ${actual}. Read it again and retry with the current version.`,
    { details: { expected_version: expected, current_version: actual } },
  );
}
