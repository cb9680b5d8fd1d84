// An Obsidian-style wiki in the layout @lectern/wiki expects: index.md, log.md, SCHEMA.md and
// linked pages under wiki/, with ten ~8 KB pages the read and write scenarios use.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRandom } from '../lib/random.mjs';

const TOPICS = [
  'colony',
  'queen',
  'varroa',
  'swarm',
  'harvest',
  'forage',
  'brood',
  'comb',
  'smoker',
  'nectar',
];

/**
 * Writes a wiki of `pages` filler pages plus ten benchmark pages into `dir`; returns
 * `{ dir, pages: string[] }` with the benchmark pages' wiki paths (`wiki/bench-N.md`).
 */
export function generateWiki(dir, { seed, pages }) {
  const random = createRandom(seed, 'wiki');
  mkdirSync(join(dir, 'wiki'), { recursive: true });
  const para = (i) =>
    `Paragraph ${i} about ${random.pick(TOPICS)}s, [[filler-${random.int(0, pages - 1)}|a ${random.pick(TOPICS)}]] and [[bench-${i % 10}#Notes]]; see [[index]].\n`;
  writeFileSync(
    join(dir, 'SCHEMA.md'),
    '# Schema\n\nPages live under wiki/; link with [[wikilinks]].\n',
  );
  writeFileSync(join(dir, 'log.md'), '# Log\n');
  writeFileSync(
    join(dir, 'index.md'),
    `# Index\n\n${Array.from({ length: 10 }, (_, i) => `- [[bench-${i}]]`).join('\n')}\n`,
  );
  for (let i = 0; i < pages; i++) {
    const body = Array.from({ length: 5 }, (_, k) => para(k)).join('');
    writeFileSync(
      join(dir, 'wiki', `filler-${i}.md`),
      `---\ntitle: Filler ${i}\ntags: [filler]\n---\n# Filler ${i}\n\n${body}`,
    );
  }
  const bench = [];
  for (let i = 0; i < 10; i++) {
    const body = Array.from({ length: 60 }, (_, k) => para(k)).join('');
    writeFileSync(join(dir, 'wiki', `bench-${i}.md`), `# Bench ${i}\n\n## Notes\n\n${body}`);
    bench.push(`wiki/bench-${i}.md`);
  }
  return { dir, pages: bench };
}
