/**
 * Every SQL statement of the SQLite backend, in one place. Table layout (see `schema.ts`):
 * `files` (one row per indexed file), `chunks` (line and byte ranges, heading path; no text:
 * the notes are files), the contentless FTS5 table `chunks_fts` (rowid = chunk id), `terms`
 * (word forms: which indexed words share a stem in a language), `problems`, `sources`, `meta`.
 */

/** BM25 weight of the heading path column (the body weighs 1). */
export const HEADING_WEIGHT = 4.0;

/** The ranking expression: BM25 with headings weighing {@link HEADING_WEIGHT}× the body. */
export const BM25 = `bm25(chunks_fts, ${HEADING_WEIGHT}, 1.0)`;

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
    'INSERT INTO chunks (file, start_line, end_line, start_byte, end_byte, heading_path) VALUES (?, ?, ?, ?, ?, ?)',
  deleteChunksOfFile: 'DELETE FROM chunks WHERE file = ?',
  countChunks: 'SELECT COUNT(*) FROM chunks',
  chunksPerSource:
    'SELECT f.source AS source, COUNT(*) AS n FROM chunks c JOIN files f ON f.id = c.file GROUP BY f.source',
  hitDetails: `SELECT c.id AS id, c.start_line, c.end_line, c.start_byte, c.end_byte, c.heading_path,
      f.source, f.path, f.sha256, f.size, f.mtime
    FROM chunks c JOIN files f ON f.id = c.file
    WHERE c.id IN (SELECT value FROM json_each(?))`,

  // ---------------------------------------------------------------- full text
  ftsInsert: 'INSERT INTO chunks_fts (rowid, heading_path, body) VALUES (?, ?, ?)',
  ftsDelete: 'DELETE FROM chunks_fts WHERE rowid = ?',
  ftsDeleteAll: "INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')",
  ftsOptimize: "INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')",
  /** Document frequency of one folded word (needs the per-connection `temp.chunks_vocab`). */
  documentFrequency: 'SELECT doc FROM temp.chunks_vocab WHERE term = ?',
  /** Every indexed word (needs the writer's `temp.writer_vocab`). */
  writerVocabulary: 'SELECT term FROM temp.writer_vocab',
  chunkCount: "SELECT value FROM meta WHERE key = 'chunk_count'",

  // ---------------------------------------------------------------- word forms
  formsOf: 'SELECT term FROM terms WHERE lang = ? AND stem = ?',
  insertTerm: 'INSERT OR IGNORE INTO terms (lang, stem, term) VALUES (?, ?, ?)',
  allTerms: 'SELECT lang, term FROM terms',

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
  clear: 'DELETE FROM chunks; DELETE FROM files; DELETE FROM problems; DELETE FROM terms;',
} as const;

/** Narrowing of a match to one source and/or a set of file ids (`@source`, `@files`). */
export interface MatchFilters {
  source: boolean;
  files: boolean;
}

/**
 * `FROM chunks_fts … WHERE chunks_fts MATCH @q AND …`: the match, then `extra` conditions, then
 * the narrowing of `filters` (chunks and files are joined only when a narrowing needs them).
 */
function matching(filters: MatchFilters, extra: readonly string[] = []): string {
  const where = ['chunks_fts MATCH @q', ...extra];
  if (filters.source) where.push('f.source = @source');
  if (filters.files) where.push('c.file IN (SELECT value FROM json_each(@files))');
  const join =
    filters.source || filters.files
      ? ' JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file'
      : '';
  return `FROM chunks_fts${join} WHERE ${where.join(' AND ')}`;
}

/**
 * A ranked page of chunk ids for an FTS5 expression, optionally narrowed to a source and a set
 * of file ids, and, when `floor` is set, to chunk ids above `@floor` (see {@link capSql}).
 * Ranking goes through SQLite's own sorter with a LIMIT (a bounded heap), not FTS5's
 * `ORDER BY rank`, which copies every match into a full sort first.
 */
export function rankSql(filters: MatchFilters & { floor?: boolean }): string {
  const extra = filters.floor ? ['chunks_fts.rowid > @floor'] : [];
  return `SELECT chunks_fts.rowid AS id, ${BM25} AS score ${matching(filters, extra)} ORDER BY score, id LIMIT @limit`;
}

/**
 * A ranked page of chunk ids for an FTS5 expression among a chosen set of candidates
 * (`@ids`, a JSON array of chunk ids, the lowest `@lo`): the ranking step of a query that
 * matches more than MAX_RANKED_CHUNKS chunks (see {@link newestSql}). The `+` keeps SQLite
 * from handing the id list to FTS5 one id at a time (each a new query with its own BM25
 * statistics pass); the `@lo` bound lets FTS5 skip older matches.
 */
export function rankAmongSql(filters: MatchFilters): string {
  const extra = [
    'chunks_fts.rowid >= @lo',
    '+chunks_fts.rowid IN (SELECT value FROM json_each(@ids))',
  ];
  return `SELECT chunks_fts.rowid AS id, ${BM25} AS score ${matching(filters, extra)} ORDER BY score, id LIMIT @limit`;
}

/**
 * The ids of the `@cap` most recently indexed chunks (highest ids) matching an FTS5
 * expression, newest first; FTS5 walks its doclists backwards and stops there. Same narrowing
 * as {@link rankSql}.
 */
export function newestSql(filters: MatchFilters): string {
  return `SELECT chunks_fts.rowid AS id ${matching(filters)} ORDER BY chunks_fts.rowid DESC LIMIT @cap`;
}

/**
 * The id of the match just past the `@cap` most recent ones (highest chunk ids), or no row
 * when at most `@cap` chunks match: FTS5 walks its doclists from the highest rowid down and
 * stops there, without scoring anything. Same narrowing as {@link rankSql}.
 */
export function capSql(filters: MatchFilters): string {
  return `SELECT chunks_fts.rowid AS id ${matching(filters)} ORDER BY chunks_fts.rowid DESC LIMIT 1 OFFSET @cap`;
}

/** One row if the expression matches anything (with the same narrowing as {@link rankSql}). */
export function existsSql(filters: MatchFilters): string {
  return `SELECT 1 ${matching(filters)} LIMIT 1`;
}

/** An FTS5 expression matched within the heading path alone (a column filter). */
export function headedFts(expression: string): string {
  return `{heading_path} : (${expression})`;
}
