/**
 * Every SQL statement of the SQLite backend, in one place. Table layout (see `schema.ts`):
 * `files` (one row per indexed file), `chunks` (line and byte ranges, heading path, language
 * and field lengths; no text: the notes are files), the contentless FTS5 table `chunks_fts`
 * (rowid = chunk id) holding each chunk's analysed terms (stems) in the columns `title`,
 * `heading_path` and `body`, `champions` and `champion_terms` (the champion lists of the terms
 * in more than `championTuning.minDf` chunks: `lib/champions.ts`), `problems`, `sources`,
 * `meta` (with the totals the ranking needs and the lists' `champion_averages`).
 */

export const SQL = {
  // ---------------------------------------------------------------- meta
  getMeta: 'SELECT value FROM meta WHERE key = ?',
  setMeta: 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)',
  isBuilt: "SELECT 1 FROM meta WHERE key = 'built_at'",
  dataVersion: 'PRAGMA data_version',

  // ---------------------------------------------------------------- sources
  sources: 'SELECT id, root, indexed_at FROM sources',
  upsertSource: 'INSERT OR REPLACE INTO sources (id, root, indexed_at) VALUES (?, ?, ?)',
  deleteSource: 'DELETE FROM sources WHERE id = ?',

  // ---------------------------------------------------------------- files
  allFiles: 'SELECT id, source, path, size, mtime, ino, sha256, racy FROM files',
  fileStatus: 'SELECT source, path, size, mtime FROM files',
  fileByPath:
    'SELECT id, source, path, size, mtime, ino, sha256, racy FROM files WHERE source = ? AND path = ?',
  pathsOfSource: 'SELECT path FROM files WHERE source = ?',
  filesOfSource: 'SELECT id FROM files WHERE source = ?',
  filesNotIn: 'SELECT id FROM files WHERE source NOT IN (SELECT value FROM json_each(?))',
  filesForFilter: 'SELECT id, source, path FROM files',
  filesForFilterOfSource: 'SELECT id, source, path FROM files WHERE source = ?',
  insertFile:
    'INSERT INTO files (source, path, size, mtime, ino, sha256, indexed_at, racy, lang) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  updateFile:
    'UPDATE files SET source = ?, path = ?, size = ?, mtime = ?, ino = ?, sha256 = ?, indexed_at = ?, racy = ?, lang = ? WHERE id = ?',
  touchFile:
    'UPDATE files SET source = ?, path = ?, size = ?, mtime = ?, ino = ?, sha256 = ?, indexed_at = ?, racy = ? WHERE id = ?',
  deleteFile: 'DELETE FROM files WHERE id = ?',
  countFiles: 'SELECT COUNT(*) FROM files',

  // ---------------------------------------------------------------- chunks
  chunkIdsOfFile: 'SELECT id FROM chunks WHERE file = ?',
  insertChunk:
    'INSERT INTO chunks (file, start_line, end_line, start_byte, end_byte, heading_path, lang, title_len, headings_len, body_len) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  /** What the ranking needs of every chunk (cached by the reader until the index changes). */
  chunkFacts: 'SELECT id, file, lang, title_len, headings_len, body_len FROM chunks',
  deleteChunksOfFile: 'DELETE FROM chunks WHERE file = ?',
  countChunks: 'SELECT COUNT(*) FROM chunks',
  chunksPerSource:
    'SELECT f.source AS source, COUNT(*) AS n FROM chunks c JOIN files f ON f.id = c.file GROUP BY f.source',
  hitDetails: `SELECT c.id AS id, c.start_line, c.end_line, c.start_byte, c.end_byte, c.heading_path, c.lang,
      f.source, f.path, f.sha256, f.size, f.mtime
    FROM chunks c JOIN files f ON f.id = c.file
    WHERE c.id IN (SELECT value FROM json_each(?))`,

  // ---------------------------------------------------------------- full text
  ftsInsert: 'INSERT INTO chunks_fts (rowid, title, heading_path, body) VALUES (?, ?, ?, ?)',
  ftsDelete: 'DELETE FROM chunks_fts WHERE rowid = ?',
  ftsDeleteAll: "INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')",
  ftsOptimize: "INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')",
  /** Document frequency of one term (needs the per-connection `temp.chunks_vocab`). */
  documentFrequency: 'SELECT doc FROM temp.chunks_vocab WHERE term = ?',
  /** Indexed terms in a range, with their document frequencies (prefix expansion). */
  termsInRange:
    'SELECT term, doc FROM temp.chunks_vocab WHERE term >= ? AND term < ? ORDER BY term LIMIT 20000',
  /**
   * Every occurrence of one term as `chunk id * 4 + field` (0 title, 1 heading path, 2 body),
   * packed in one text value: one integer per occurrence costs a fraction of a row per
   * occurrence to hand to JavaScript (needs `temp.chunks_places`).
   */
  places:
    "SELECT group_concat(doc * 4 + CASE col WHEN 'title' THEN 0 WHEN 'heading_path' THEN 1 ELSE 2 END) FROM temp.chunks_places WHERE term = ?",
  /** {@link places} of every term from the first value to the second, both included. */
  placesBetween:
    "SELECT group_concat(doc * 4 + CASE col WHEN 'title' THEN 0 WHEN 'heading_path' THEN 1 ELSE 2 END) FROM temp.chunks_places WHERE term >= ? AND term <= ?",
  /** Chunks matching an FTS5 expression (over the analysed terms), highest ids first. */
  matching: 'SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT ?',
  /**
   * Every chunk matching an FTS5 expression, highest ids first (read lazily, stopped early):
   * three copies, one per field, so the three can be read at once.
   */
  matchingIn: [0, 1, 2].map(
    (f) => `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC /* ${f} */`,
  ),
  chunkCount: "SELECT value FROM meta WHERE key = 'chunk_count'",

  // ---------------------------------------------------------------- champion lists
  /** One list's chunks with the term's packed counts (`packCounts`); no rows: not listed. */
  championList: 'SELECT chunk, counts FROM champions WHERE term = ?',
  championInsert: 'INSERT OR REPLACE INTO champions (term, chunk, counts) VALUES (?, ?, ?)',
  championTermInsert: 'INSERT OR REPLACE INTO champion_terms (term, floor) VALUES (?, ?)',
  championTerms: 'SELECT term, floor FROM champion_terms',
  deleteChampionsOfChunk: 'DELETE FROM champions WHERE chunk = ?',

  // ---------------------------------------------------------------- postings (lib/postings.ts)
  /** A term's postings blob as of the last time they were written; no row: none. */
  postings: 'SELECT data FROM postings WHERE term = ?',
  /** The counts (`packCounts`) of a term with postings in chunks added since, ascending ids. */
  postingsAdded: 'SELECT chunk, counts FROM postings_added WHERE term = ? ORDER BY chunk',
  postingsInsert: 'INSERT OR REPLACE INTO postings (term, data) VALUES (?, ?)',
  postingsAddedInsert:
    'INSERT OR REPLACE INTO postings_added (term, chunk, counts) VALUES (?, ?, ?)',
  postingsClear: 'DELETE FROM postings; DELETE FROM postings_added;',
  postingsTerms: 'SELECT term FROM postings',

  // ---------------------------------------------------------------- problems
  problems: 'SELECT source, path, size, mtime, code, message FROM problems',
  problemStatus: 'SELECT source, path, size, mtime FROM problems',
  problemByPath:
    'SELECT source, path, size, mtime, code, message FROM problems WHERE source = ? AND path = ?',
  upsertProblem:
    'INSERT OR REPLACE INTO problems (source, path, size, mtime, code, message) VALUES (?, ?, ?, ?, ?, ?)',
  deleteProblem: 'DELETE FROM problems WHERE source = ? AND path = ?',
  deleteProblemsOfSource: 'DELETE FROM problems WHERE source = ?',

  // ---------------------------------------------------------------- whole index
  clear:
    "DELETE FROM chunks; DELETE FROM files; DELETE FROM problems; DELETE FROM champions; DELETE FROM champion_terms; DELETE FROM postings; DELETE FROM postings_added; DELETE FROM sqlite_sequence WHERE name = 'chunks';",
} as const;
