// Removes a package's dist/ before tsc writes it again: tsc never deletes the output of a source
// file that was moved or removed, and a stale file would ship in the package.
// Usage (from a package folder): node ../../scripts/clean-dist.mjs
import { rmSync } from 'node:fs';
import { join } from 'node:path';

rmSync(join(process.cwd(), 'dist'), { recursive: true, force: true });
