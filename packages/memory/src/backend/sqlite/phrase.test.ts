import { join } from 'node:path';
import { BM25, bm25f, FIELD_WEIGHTS, idf } from '@lectern/text';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import type { MemoryStore } from '../../types.js';
import { sqliteBackend } from './backend.js';

// A phrase is found per field by FTS5 (`gather` in search.ts merges the fields' matches).
// Every chunk's score must be the one its fields give: each is checked against BM25F
// computed here from one FTS5 query per field, with notes holding both words in the title
// and in the heading path (which repeats the title) but the phrase in one of them only.

let dir: TempDir;
let store: MemoryStore;
const dbPath = () => join(dir.path, '.lectern', 'memory.db');

beforeEach(() => {
  dir = tempDir();
});
afterEach(async () => {
  await store?.close();
  dir.cleanup();
});

test('a phrase counts in exactly the fields that hold it, title and heading path told apart', async () => {
  const notes: Record<string, string> = {
    // Both words in the title and in the heading path, the phrase in one of them, or both.
    'both-words-title.md': '# alpha beta\n\n## beta alpha\n\nzeta\n',
    'both-words-heading.md': '# beta alpha gamma\n\n## gamma alpha beta\n\nzeta\n',
    'both.md': '# alpha beta\n\n## alpha beta\n\nzeta alpha beta\n',
    // Every word in one of the two only: decided by the counts.
    'title-only.md': '# alpha beta\n\n## gamma delta\n\nzeta\n',
    'heading-only.md': '# gamma delta\n\n## more alpha beta\n\nzeta\n',
    'body-only.md': '# gamma delta\n\n## more words\n\nzeta alpha beta zeta\n',
    // The words, never as the phrase.
    'apart.md': '# beta gamma alpha\n\n## delta alpha zeta\n\nbeta zeta alpha\n',
  };
  for (const [name, text] of Object.entries(notes)) dir.write(name, text);
  for (let i = 0; i < 6; i++)
    dir.write(`filler-${i}.md`, '# other words\n\n## more words\n\nfiller\n');
  store = createMemory({
    sources: [{ id: 'notes', path: dir.path }],
    backend: sqliteBackend({ path: dbPath() }),
  });
  await store.reindex({ full: true });
  const page = await store.search({ query: '"alpha beta"', limit: 50 });

  // The reference: one FTS5 query per field, BM25F over the flags they give.
  const db = new Database(dbPath(), { readonly: true });
  const ids = (q: string) =>
    new Set(db.prepare('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?').pluck().all(q));
  const fields = ['title', 'heading_path', 'body'].map((c) => ids(`{${c}} : "alpha beta"`));
  const rows = db
    .prepare(
      'SELECT c.id, f.path, c.start_line, c.title_len, c.headings_len, c.body_len FROM chunks c JOIN files f ON f.id = c.file',
    )
    .raw(true)
    .all() as Array<[number, string, number, number, number, number]>;
  const df = (word: string) => ids(`"${word}"`).size;
  const weight = idf(rows.length, df('alpha')) + idf(rows.length, df('beta'));
  db.close();
  const n = rows.length;
  const avg = { title: 0, headings: 0, body: 0 };
  for (const r of rows) {
    avg.title += r[3] / n;
    avg.headings += r[4] / n;
    avg.body += r[5] / n;
  }
  const expected = new Map<string, number>();
  for (const [id, path, line, t, h, b] of rows) {
    const flags = fields.map((f) => (f.has(id) ? 1 : 0));
    if (flags.every((x) => x === 0)) continue;
    const score = bm25f(
      { title: flags[0]!, headings: flags[1]!, body: flags[2]! },
      { title: t, headings: h, body: b },
      avg,
      weight,
      BM25,
      FIELD_WEIGHTS,
    );
    expected.set(`${path}:${line}`, score);
  }
  // Each field alone and together give different scores here, so a wrong field shows.
  expect(new Set([...expected.values()].map((s) => s.toFixed(2))).size).toBeGreaterThan(3);
  expect(
    page.results.map((r) => `${r.path.replace(/^notes\//, '')}:${r.start_line}`).sort(),
  ).toEqual([...expected.keys()].sort());
  for (const r of page.results) {
    const key = `${r.path.replace(/^notes\//, '')}:${r.start_line}`;
    expect(r.score, key).toBeCloseTo(expected.get(key)!, 2);
  }
  expect(page.results.some((r) => r.path.endsWith('apart.md'))).toBe(false);
});
