// Copies the repository's bundled examples into the app package so they ship with it on npm.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../../../examples/', import.meta.url));
const to = fileURLToPath(new URL('../examples/', import.meta.url));
if (!existsSync(from)) {
  console.error(`copy-examples: ${from} is missing`);
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, {
  recursive: true,
  filter: (src) => !/[\\/]\.lectern([\\/]|$)/.test(src),
});
