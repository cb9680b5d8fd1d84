import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { championTuning, unpackCounts } from '../../lib/champions.js';
import { POSTINGS_REFOLD_SHARE, postingsMinDf, postingsTuning } from '../../lib/postings.js';
import { createMemory } from '../../store.js';
import { type TempDir, tempDir } from '../../test-helpers/fs.js';
import { writeNotes } from '../../test-helpers/notes.js';
import type { MemoryStore, SearchOptions } from '../../types.js';
import { sqliteBackend } from './backend.js';
import { CHANGES_KEY, eachStoredPosting } from './postings.js';
import { sqliteSearchTuning } from './search.js';

// The common terms' postings blobs (`postings.ts`) against the full-text index's own
// occurrences, through full builds, incremental changes and the rewrite past the refold share;
// and exact max-score pruning (`search.ts`) against scoring every clause's chunks.

type Postings = Map<string, Map<number, string>>;

let dir: TempDir;
let stores: MemoryStore[];
const tuning = { ...championTuning };
const postingsSaved = { ...postingsTuning };
const dbPath = () => join(dir.path, '.lectern', 'memory.db');

beforeEach(() => {
  dir = tempDir();
  stores = [];
  // Terms in more than 8 chunks are listed, and terms in more than 4 get postings, in these
  // small indexes.
  championTuning.minDf = 8;
  championTuning.size = 3;
  postingsTuning.minDf = 4;
  postingsTuning.share = 0;
});
afterEach(async () => {
  Object.assign(championTuning, tuning);
  Object.assign(postingsTuning, postingsSaved);
  sqliteSearchTuning.pruneCheckChunks = 500;
  sqliteSearchTuning.pruned = 0;
  sqliteSearchTuning.runs = true;
  sqliteSearchTuning.runsRead = 0;
  for (const s of stores) await s.close();
  dir.cleanup();
});

function open(): MemoryStore {
  const store = createMemory({
    sources: [{ id: 'notes', path: dir.path }],
    backend: sqliteBackend({ path: dbPath() }),
  });
  stores.push(store);
  return store;
}

/** What the database holds: live chunk ids, stored postings of live chunks, the vocabulary's. */
function inspect(): {
  stored: Postings;
  vocab: Postings;
  added: number;
  changes: number;
  maxId: number;
  chunks: number;
  /** Terms in more chunks than the threshold a full build would use now. */
  frequent: string[];
} {
  const db = new Database(dbPath(), { readonly: true });
  try {
    db.exec("CREATE VIRTUAL TABLE temp.places USING fts5vocab(main, 'chunks_fts', 'instance')");
    db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'chunks_fts', 'row')");
    const live = new Set(db.prepare('SELECT id FROM chunks').pluck().all() as number[]);
    const stored: Postings = new Map();
    const vocab: Postings = new Map();
    const rows = db.prepare('SELECT term, data FROM postings').raw(true).all() as Array<
      [string, Uint8Array]
    >;
    const addedOf = db.prepare('SELECT chunk, counts FROM postings_added WHERE term = ?').raw(true);
    const places = db
      .prepare(
        "SELECT group_concat(doc * 4 + CASE col WHEN 'title' THEN 0 WHEN 'heading_path' THEN 1 ELSE 2 END) FROM temp.places WHERE term = ?",
      )
      .pluck();
    for (const [term, blob] of rows) {
      const mine = new Map<number, string>();
      eachStoredPosting(
        { blob, added: addedOf.all(term) as Array<[number, number]> },
        (id, t, h, b) => {
          if (live.has(id)) mine.set(id, `${t}/${h}/${b}`);
        },
      );
      stored.set(term, mine);
      // The reference, parsed here: every occurrence as `chunk id * 4 + field`.
      const counts = new Map<number, number[]>();
      const packed = (places.get(term) as string | null) ?? '';
      for (const code of packed === '' ? [] : packed.split(',').map(Number)) {
        const c = counts.get(Math.floor(code / 4)) ?? [0, 0, 0];
        c[code % 4]! += 1;
        counts.set(Math.floor(code / 4), c);
      }
      vocab.set(term, new Map([...counts].map(([id, c]) => [id, c.join('/')])));
    }
    const get = (sql: string) => db.prepare(sql).pluck().get() as number | string | null;
    return {
      stored,
      vocab,
      added: Number(get('SELECT count(*) FROM postings_added')),
      changes: Number(get(`SELECT value FROM meta WHERE key = '${CHANGES_KEY}'`) ?? -1),
      maxId: Number(get('SELECT max(id) FROM chunks')),
      chunks: live.size,
      frequent: db
        .prepare('SELECT term FROM temp.vocab WHERE doc > ? AND doc <= ? ORDER BY term')
        .pluck()
        .all(postingsMinDf(live.size), 0.3 * live.size) as string[],
    };
  } finally {
    db.close();
  }
}

describe('SQLite postings of common terms', () => {
  test('hold every live chunk of every common term with its counts, through changes and rewrites', async () => {
    writeNotes(dir, 90);
    const store = open();
    await store.reindex({ full: true });
    let seen = inspect();
    expect(seen.stored.size).toBeGreaterThan(5);
    // Exactly the terms in more chunks than the threshold, and in at most 30%, have postings.
    expect([...seen.stored.keys()].sort()).toEqual(seen.frequent);
    expect(seen.stored).toEqual(seen.vocab);
    expect(seen.added).toBe(0);
    expect(seen.changes).toBe(0);

    // A few changes: rows of their own for the new chunks, blobs untouched.
    // Words with postings (in more than 4 chunks, at most 30%).
    const [a, b, c] = [...seen.stored.keys()].sort();
    dir.write('n/003.md', `# ${a} ${b}\n\n${a} ${a} ${c} and a new body\n`);
    dir.write('n/new.md', `# ${b}\n\n${a} ${c}\n`);
    rmSync(join(dir.path, 'n/004.md'));
    await store.reindex();
    seen = inspect();
    expect(seen.added).toBeGreaterThan(0);
    expect(seen.changes).toBeGreaterThan(0);
    expect(seen.stored).toEqual(seen.vocab);
    // The term's counts in the changed note are the new ones.
    const changed = [...seen.stored.get(a!)!.values()];
    expect(changed.some((c) => c.startsWith('1/0/') && Number(c.split('/')[2]) >= 2)).toBe(true);

    // Changes past the share of the index: every blob rewritten, the rows folded in.
    const chunks = seen.chunks;
    let n = 0;
    for (let i = 10; n <= POSTINGS_REFOLD_SHARE * chunks + 2; i++, n++) {
      dir.write(
        `n/${String(i).padStart(3, '0')}.md`,
        `# ${b} ${i}\n\n${a} ${`${c} `.repeat(i % 5)}\n`,
      );
    }
    await store.reindex();
    seen = inspect();
    // Each rewritten note removed and added its chunks: 2n changes, more than the share; what
    // is left counted is what the reindex's transactions wrote after the rewrite.
    expect(2 * n).toBeGreaterThan(POSTINGS_REFOLD_SHARE * chunks);
    expect(seen.changes).toBeLessThanOrEqual(POSTINGS_REFOLD_SHARE * chunks);
    expect(seen.added).toBeLessThan(n);
    expect(seen.stored).toEqual(seen.vocab);
    // A full reindex writes the blobs alone.
    await store.reindex({ full: true });
    seen = inspect();
    expect([seen.added, seen.changes]).toEqual([0, 0]);
    expect(seen.stored).toEqual(seen.vocab);
  });

  test('chunk ids are never reused, so a removed chunk’s postings cannot be taken for a new one', async () => {
    writeNotes(dir, 40);
    const store = open();
    await store.reindex({ full: true });
    const before = inspect();
    // Remove the note holding the highest chunk id, then add one: its chunks get new ids.
    const db = new Database(dbPath(), { readonly: true });
    const last = db
      .prepare('SELECT f.path FROM chunks c JOIN files f ON f.id = c.file ORDER BY c.id DESC')
      .pluck()
      .get() as string;
    db.close();
    rmSync(join(dir.path, last));
    await store.reindex();
    dir.write('n/zz.md', '# va0q\n\nva0q vb1q\n');
    await store.reindex();
    const after = inspect();
    expect(after.maxId).toBeGreaterThan(before.maxId);
    expect(after.stored).toEqual(after.vocab);
    // A full reindex starts the ids again.
    await store.reindex({ full: true });
    expect(inspect().maxId).toBeLessThanOrEqual(before.maxId + 1);
  });

  test('pruned or not, pages equal the scoring of every clause’s chunks (brute force over many questions)', async () => {
    writeNotes(dir, 120);
    const store = open();
    await store.reindex({ full: true });
    const terms = [...inspect().stored.keys()].sort();
    const rare = ['vx23q', 'vy24q', 'vz25q', 'vd29q', 'vc28q'];
    const questions: SearchOptions[] = [];
    for (let q = 0; q < 60; q++) {
      const a = terms[q % terms.length]!;
      const b = terms[(q * 7 + 3) % terms.length]!;
      const r = rare[q % rare.length]!;
      const query =
        q % 5 === 0
          ? `"${a} ${b}" ${r}`
          : q % 5 === 1
            ? `${a.slice(0, 2)}* ${r} ${b}`
            : q % 5 === 2
              ? `${a} ${b}`
              : `${r} ${a} ${b} ${terms[(q * 3) % terms.length]}`;
      questions.push({ query, limit: 1 + (q % 8), offset: q % 3 === 0 ? 2 : 0 });
    }
    const page = async (options: SearchOptions) => {
      const r = await store.search(options);
      return { match: r.match, rows: r.results.map((h) => [h.path, h.start_line, h.score]) };
    };
    let hits = 0;
    for (const options of questions) {
      sqliteSearchTuning.pruneCheckChunks = Number.POSITIVE_INFINITY;
      const full = await page(options);
      hits += full.rows.length;
      for (const check of [0, 8]) {
        sqliteSearchTuning.pruneCheckChunks = check;
        expect(await page(options), `${JSON.stringify(options)} (check ${check})`).toEqual(full);
      }
    }
    expect(hits).toBeGreaterThan(120);
    // The comparison is worth something only if clauses were pruned.
    expect(sqliteSearchTuning.pruned).toBeGreaterThan(10);
  });
});

// Keep `unpackCounts` in step with the rows `postings_added` holds (packed as the lists are).
test('postings_added rows unpack as champion rows do', () => {
  expect(unpackCounts(2 ** 32 * 1 + 2 ** 16 * 2 + 3)).toEqual([1, 2, 3]);
});

test('a prefix reads its small terms a run of index terms at a time, with the same page', async () => {
  writeNotes(dir, 120);
  // More terms under one prefix than a prefix keeps (64), a few common, most in few chunks.
  for (let i = 0; i < 90; i++)
    dir.write(`p/${i}.md`, `# pre${i}x\n\npre${i}x ${'pre1x '.repeat(i % 3)}va0q\n`);
  const store = open();
  await store.reindex({ full: true });
  const page = async (query: string) =>
    (await store.search({ query, limit: 30 })).results.map((h) => [h.path, h.start_line, h.score]);
  for (const query of ['pre*', 'pre1*', 'v*', 'va*', 'pre* va0q']) {
    sqliteSearchTuning.runs = false;
    const each = await page(query);
    sqliteSearchTuning.runs = true;
    expect(await page(query), query).toEqual(each);
    expect(each.length).toBeGreaterThan(0);
  }
  expect(sqliteSearchTuning.runsRead).toBeGreaterThan(3);
});
