// A documentation tree of Markdown files (front matter, nested headings, paragraphs with inline
// markup, lists, tables, code fences) and one large handbook, generated from a seed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRandom, syllableWords, zipf } from '../lib/random.mjs';

const COMMON = `the a of to and in is for with on by that this as be are from or it can when your
you an at not use each one if which all will more see also new any only set run file files
server client request response config configuration option options value values default
install installation installing update upgrade build deploy deployment service services cache
index query queries search token tokens limit limits timeout retry retries error errors
handler handlers event events stream streams buffer buffers queue worker workers thread
process memory disk network socket port host route routes path paths folder root version
versions schema field fields record records table tables column row key keys secret user
users group role permission access log logs metric metrics trace alert monitor health check
backup restore snapshot replica cluster node nodes shard partition storage volume mount
container image registry release channel plugin module package library function method
class object array string number boolean null type types interface parameter argument return
callback promise async await export import command commands flag flags environment variable`
  .split(/\s+/)
  .filter(Boolean);

/** The marker word planted a fixed number of times, so text searches have a known answer. */
export const DOCS_NEEDLE = 'zanthoxylum';
/** Occurrences of {@link DOCS_NEEDLE} in the tree (one per planted line). */
export const DOCS_NEEDLE_COUNT = 24;

function makeWriter(random) {
  const rare = syllableWords(random, 4000);
  const vocab = [...COMMON, ...rare];
  const draw = zipf(random, vocab.length);
  const word = () => vocab[draw()];
  const words = (n) => Array.from({ length: n }, word).join(' ');
  const title = () => {
    const t = words(random.int(2, 5));
    return t[0].toUpperCase() + t.slice(1);
  };
  const inline = () => {
    const r = random.next();
    if (r < 0.08) return `\`${word()}_${word()}\``;
    if (r < 0.12) return `**${word()}**`;
    if (r < 0.15) return `[${word()} ${word()}](../${word()}/${word()}.md)`;
    if (r < 0.17) return `_${word()}_`;
    return word();
  };
  const sentence = () => {
    const n = random.int(6, 22);
    const parts = Array.from({ length: n }, inline);
    parts[0] = parts[0][0].toUpperCase() + parts[0].slice(1);
    return `${parts.join(' ')}.`;
  };
  const paragraph = () => {
    // Wrapped at ~90 columns, as hand-written docs are.
    const text = Array.from({ length: random.int(2, 6) }, sentence).join(' ');
    const lines = [];
    let line = '';
    for (const w of text.split(' ')) {
      if (line.length + w.length > 90) {
        lines.push(line);
        line = w;
      } else line = line ? `${line} ${w}` : w;
    }
    if (line) lines.push(line);
    return lines.join('\n');
  };
  const block = () => {
    const r = random.next();
    if (r < 0.55) return paragraph();
    if (r < 0.72)
      return Array.from(
        { length: random.int(2, 7) },
        (_, i) => `${random.next() < 0.5 ? '-' : `${i + 1}.`} ${words(random.int(3, 12))}`,
      ).join('\n');
    if (r < 0.87) {
      const lang = random.pick(['sh', 'ts', 'json', 'yaml', '']);
      const body = Array.from(
        { length: random.int(2, 12) },
        () =>
          `${random.pick(['', '  ', '    '])}${word()} ${word()}=${random.int(0, 9999)} # ${word()}`,
      );
      if (random.next() < 0.2) body.push('# not a heading: inside a fence');
      return ['```' + lang, ...body, '```'].join('\n');
    }
    if (r < 0.95) {
      const cols = random.int(2, 4);
      const row = () =>
        `| ${Array.from({ length: cols }, () => words(random.int(1, 3))).join(' | ')} |`;
      return [
        row(),
        `|${' --- |'.repeat(cols)}`,
        ...Array.from({ length: random.int(2, 6) }, row),
      ].join('\n');
    }
    return `> ${sentence()}\n> ${sentence()}`;
  };
  const section = (level, budget) => {
    const out = [`${'#'.repeat(level)} ${title()}`, ''];
    for (let i = 0, n = random.int(1, 4); i < n; i++) out.push(block(), '');
    let text = out.join('\n');
    while (level < 4 && text.length < budget && random.next() < 0.6) {
      text += section(level + 1, budget / 3);
    }
    return text;
  };
  /** One document of roughly `bytes` bytes. */
  const doc = (bytes) => {
    const parts = [];
    if (random.next() < 0.4)
      parts.push(`---\ntitle: ${title()}\ntags: [${word()}, ${word()}]\n---\n`);
    parts.push(`# ${title()}\n\n${paragraph()}\n\n`);
    let size = parts.join('').length;
    while (size < bytes) {
      const s = section(2, 6000);
      parts.push(s);
      size += s.length;
    }
    return parts.join('');
  };
  return { doc, title, paragraph, word };
}

/**
 * Writes the docs tree into `dir` and returns what the scenarios need: total bytes, file count,
 * the big document's doc_id and a section anchor in its middle, a medium document's doc_id and
 * the search words.
 * @param {{ seed: number, totalBytes: number, bigBytes: number }} options
 */
export function generateDocs(dir, { seed, totalBytes, bigBytes }) {
  const random = createRandom(seed, 'docs');
  const writer = makeWriter(random);
  mkdirSync(dir, { recursive: true });
  const files = [];
  let total = 0;
  const write = (rel, text) => {
    const path = join(dir, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    const bytes = Buffer.byteLength(text);
    files.push({ rel, bytes });
    total += bytes;
  };
  // The handbook: many H2 chapters; the anchor read is the one nearest the middle.
  const chapters = [];
  let big = `# Operations handbook\n\n${writer.paragraph()}\n\n`;
  for (let i = 0; Buffer.byteLength(big) < bigBytes; i++) {
    const heading = `Chapter ${i} ${writer.title().toLowerCase()}`;
    chapters.push({ heading, at: Buffer.byteLength(big) });
    big += `## ${heading}\n\n`;
    for (let k = 0; k < 3; k++) big += `${writer.paragraph()}\n\n`;
    big += `### Details of chapter ${i}\n\n${writer.paragraph()}\n\n`;
  }
  write('handbook/operations.md', big);
  const middle = chapters.reduce((best, c) =>
    Math.abs(c.at - bigBytes / 2) < Math.abs(best.at - bigBytes / 2) ? c : best,
  );
  // The tree: folders of 20 files of 4-60 KB each.
  let n = 0;
  while (total < totalBytes) {
    const folder = `section-${String(Math.floor(n / 20)).padStart(3, '0')}`;
    const size = Math.min(totalBytes - total, random.int(4_000, 60_000));
    write(`${folder}/page-${String(n).padStart(4, '0')}.md`, writer.doc(Math.max(size, 500)));
    n++;
  }
  // Plant the needle on its own line in evenly spread files (after generation, so the rest of
  // the corpus does not depend on the count).
  const plantedIn = [];
  for (let i = 0; i < DOCS_NEEDLE_COUNT; i++) {
    const f = files[1 + Math.floor((i * (files.length - 1)) / DOCS_NEEDLE_COUNT)];
    plantedIn.push(f.rel);
  }
  for (const rel of plantedIn) {
    const path = join(dir, rel);
    const text = `\nThe ${DOCS_NEEDLE} fallback applies here.\n`;
    writeFileSync(path, text, { flag: 'a' });
    total += Buffer.byteLength(text);
  }
  const slug = middle.heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
  const medium = files
    .slice(1)
    .reduce((best, f) => (Math.abs(f.bytes - 40_000) < Math.abs(best.bytes - 40_000) ? f : best));
  return {
    dir,
    bytes: total,
    files: files.length,
    big: {
      rel: 'handbook/operations.md',
      docId: 'handbook/operations',
      bytes: Buffer.byteLength(big),
      anchor: `handbook/operations#${slug}`,
      heading: middle.heading,
    },
    medium: { rel: medium.rel, docId: medium.rel.replace(/\.md$/, ''), bytes: medium.bytes },
    searchQuery: 'retry timeout cache',
  };
}
