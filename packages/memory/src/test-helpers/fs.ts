import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temporary folder, removed by `cleanup`. */
export interface TempDir {
  path: string;
  /** Writes a file (creating folders), returns its absolute path. */
  write: (rel: string, content: string | Uint8Array) => string;
  cleanup: () => void;
}

/** Creates a temporary folder under the OS temp dir. */
export function tempDir(prefix = 'lectern-memory-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    write: (rel, content) => {
      const abs = join(path, rel);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
      return abs;
    },
    cleanup: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** The `{ error, code, suggestions?, details? }` payload of an `isError` tool result (text block). */
export function errorOf(result: { content?: unknown; isError?: boolean }): {
  error: string;
  code: string;
  suggestions?: string[];
  details?: Record<string, unknown>;
} {
  if (!result.isError) throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  const block = (result.content as Array<{ type: string; text?: string }>)[0];
  return JSON.parse(block?.text ?? '{}');
}
