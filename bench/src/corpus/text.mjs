// One large source-like text file (the lines scenarios read windows of it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `big.ts`, at most `bytes` bytes of whole lines of varying length with non-ASCII text,
 * into `dir`. Returns `{ path, rel, bytes, lines }`.
 */
export function generateTextFile(dir, { bytes }) {
  mkdirSync(dir, { recursive: true });
  const parts = [];
  let size = 0;
  for (let i = 1; ; i++) {
    const line = `  const value${i} = compute(${i}, "${'x'.repeat(i % 64)}"); // ünïcødé ${i % 7}\n`;
    const n = Buffer.byteLength(line);
    if (size + n > bytes) break;
    parts.push(line);
    size += n;
  }
  const rel = 'big.ts';
  writeFileSync(join(dir, rel), parts.join(''));
  return { path: join(dir, rel), rel, bytes: size, lines: parts.length };
}
