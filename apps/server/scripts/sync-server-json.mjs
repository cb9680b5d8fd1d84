// Keeps server.json's version equal to package.json's (run after `changeset version`).
import { readFileSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const file = new URL('../server.json', import.meta.url);
const server = JSON.parse(readFileSync(file, 'utf8'));
server.version = pkg.version;
for (const p of server.packages ?? []) if (p.identifier === pkg.name) p.version = pkg.version;
writeFileSync(file, `${JSON.stringify(server, null, 2)}\n`);
