import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Folder of the bundled examples (docs, wiki, notes). Builds copy the repository's `examples/`
 * into the app package, so the same path works in the repository and when installed from npm.
 */
export function examplesDir(): string {
  const bundled = fileURLToPath(new URL('../examples/', import.meta.url));
  if (existsSync(join(bundled, 'docs'))) return bundled;
  const repo = fileURLToPath(new URL('../../../examples/', import.meta.url));
  if (existsSync(join(repo, 'docs'))) return repo;
  throw new Error(`bundled examples not found at ${bundled}; rebuild the lectern package`);
}

/**
 * Where the memory index of the bundled notes lives: a per-install folder under the OS temp dir,
 * so serving the examples never writes into the installed package.
 */
export function examplesMemoryDb(dir = examplesDir()): string {
  const key = createHash('sha256').update(dir).digest('hex').slice(0, 12);
  return join(tmpdir(), `lectern-examples-${key}`, 'memory.db');
}
