// The plain-remark peer: what a server without a cache or a fast path does to answer an
// outline or a section read (read the file, parse it with unified + remark-parse, walk the
// top-level headings). Used in-process for per-call figures and as a child process
// (`node remark.mjs <dir>`) for the cold index, so it starts as cold as a fresh server.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const processor = unified().use(remarkParse);

function headingText(node) {
  if (typeof node.value === 'string') return node.value;
  return (node.children ?? []).map(headingText).join('');
}

/** Parses Markdown and returns its top-level headings with their start offsets. */
export function remarkHeadings(text) {
  const tree = processor.parse(text);
  return tree.children
    .filter((n) => n.type === 'heading')
    .map((n) => ({
      depth: n.depth,
      text: headingText(n),
      start: n.position.start.offset,
      line: n.position.start.line,
    }));
}

/** Outline of one file: read + parse. */
export function remarkOutlineFile(path) {
  return remarkHeadings(readFileSync(path, 'utf8'));
}

/**
 * One section of a file by heading text: read + parse + slice from the heading to the next
 * heading of the same or a higher level. Returns the section's text (throws when missing).
 */
export function remarkSection(path, heading) {
  const text = readFileSync(path, 'utf8');
  const hs = remarkHeadings(text);
  const i = hs.findIndex((h) => h.text === heading);
  if (i === -1) throw new Error(`remark peer: no heading ${heading}`);
  const end = hs.slice(i + 1).find((h) => h.depth <= hs[i].depth);
  return text.slice(hs[i].start, end ? end.start : text.length);
}

/** Outlines every Markdown file under `dir`; returns `{ files, bytes, headings }`. */
export function remarkOutlineTree(dir) {
  let files = 0;
  let bytes = 0;
  let headings = 0;
  const names = readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith('.md'))
    .sort();
  for (const name of names) {
    const text = readFileSync(join(dir, name), 'utf8');
    files++;
    bytes += Buffer.byteLength(text);
    headings += remarkHeadings(text).length;
  }
  return { files, bytes, headings };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const out = remarkOutlineTree(process.argv[2]);
  const ms = performance.now() - t0;
  const rss = Number((process.resourceUsage().maxRSS / 1024).toFixed(1));
  process.stdout.write(JSON.stringify({ ms, rss_mb: rss, ...out }));
}
