// A corpus of Markdown and text notes with Zipf-distributed invented words, and realistic
// queries drawn from the text written (the same model as packages/memory/bench).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRandom, syllableWords, zipf } from '../lib/random.mjs';

/**
 * Writes `count` notes into `dir` (100 per folder, every tenth a .txt) and returns
 * `{ dir, files, bytes, queries, editTargets }`: `queries` are `[kind, text]` pairs of the five
 * realistic kinds (a content word, two and three words of one real sentence, a stem with `*`,
 * a two-word phrase); `editTargets` are paths (absolute) to change for incremental reindexes.
 */
export function generateNotes(dir, { seed, count, queries: queryCount }) {
  const random = createRandom(seed, 'notes');
  const vocab = syllableWords(random, 30_000);
  const draw = zipf(random, vocab.length);
  const word = () => vocab[draw()];
  const sampled = [];
  const sentence = () => {
    const ws = Array.from({ length: random.int(6, 19) }, word);
    ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1);
    const s = `${ws.join(' ')}.`;
    if (random.next() < 0.01) sampled.push(s);
    return s;
  };
  const paragraph = () => Array.from({ length: random.int(2, 6) }, sentence).join(' ');
  const note = (i) => {
    const parts = [`# ${word()} ${word()} ${i}`, '', paragraph(), ''];
    for (let s = 0, n = random.int(3, 6); s < n; s++) {
      parts.push(`## ${word()} ${word()}`, '');
      for (let p = 0, m = random.int(1, 4); p < m; p++) parts.push(paragraph(), '');
      if (random.next() < 0.2) parts.push('```', `${word()} --${word()} ${word()}`, '```', '');
    }
    return parts.join('\n');
  };
  const files = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const folder = join(dir, `d${String(Math.floor(i / 100)).padStart(3, '0')}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    const path = join(folder, `note-${String(i).padStart(5, '0')}.${i % 10 === 9 ? 'txt' : 'md'}`);
    const text = note(i);
    writeFileSync(path, text);
    bytes += Buffer.byteLength(text);
    files.push(path);
  }
  if (sampled.length === 0) sampled.push(sentence());
  const KINDS = ['content_word', 'two_words', 'three_words', 'prefix', 'phrase'];
  const queries = [];
  const tokens = (s) => s.replace('.', '').toLowerCase().split(' ');
  const span = Math.min(20_000, vocab.length - 200);
  for (let q = 0; q < queryCount; q++) {
    const kind = KINDS[q % KINDS.length];
    const ws = tokens(random.pick(sampled));
    const at = random.int(0, Math.max(0, ws.length - 4));
    if (kind === 'content_word') queries.push([kind, vocab[200 + random.int(0, span - 1)]]);
    else if (kind === 'two_words') queries.push([kind, `${ws[at]} ${ws[at + 2] ?? ws[0]}`]);
    else if (kind === 'three_words') queries.push([kind, ws.slice(at, at + 3).join(' ')]);
    else if (kind === 'prefix') {
      const w = vocab[100 + random.int(0, 4999)];
      queries.push([kind, `${w.slice(0, Math.max(4, w.length - 2))}*`]);
    } else queries.push([kind, `"${ws.slice(at, at + 2).join(' ')}"`]);
  }
  const editTargets = Array.from({ length: 16 }, () => random.pick(files));
  return { dir, files, bytes, queries, editTargets, editWord: () => word() };
}
