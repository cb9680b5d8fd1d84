import { ADDED_KEY, AVERAGES_KEY, championStatements, PAIRS_KEY } from './champions.js';
import type { Names } from './schema.js';

/** The statements of the PostgreSQL backend that do not depend on a query, for one schema. */
export function statements(n: Names) {
  const { s } = n;
  /** Effective stat of a file for this process's folders: its own `seen` row, else the shared row. */
  const effective = (f: string) => `
    ${f}.id, ${f}.source, ${f}.path, coalesce(z.size, ${f}.size) AS size,
    coalesce(z.mtime, ${f}.mtime) AS mtime, coalesce(z.ino, ${f}.ino) AS ino, ${f}.sha256,
    coalesce(z.racy, ${f}.racy) AS racy, ${f}.chunks, ${f}.origin`;
  const seenJoin = (f: string, originsParam: number) => `
    LEFT JOIN unnest($${originsParam}::text[], $${originsParam + 1}::text[]) AS o (source, origin)
      ON o.source = ${f}.source
    LEFT JOIN ${s}.seen z ON z.file_id = ${f}.id AND z.origin = o.origin`;
  /** Moves the totals in `stats` by the rows of the CTE `rows` (`+` when added, `-` when gone). */
  const statsBy = (sign: '+' | '-', rows: string) =>
    `UPDATE ${s}.stats SET docs = docs ${sign} (SELECT count(*) FROM ${rows}),
        title = title ${sign} (SELECT coalesce(sum(title_len), 0) FROM ${rows}),
        headings = headings ${sign} (SELECT coalesce(sum(headings_len), 0) FROM ${rows}),
        body = body ${sign} (SELECT coalesce(sum(body_len), 0) FROM ${rows})`;
  /**
   * Deletes the chunks `where` selects, keeping `term_df`, `stats` and the champion lists in
   * step. Complete lists (floor 0) keep the ids of removed chunks: a search fetches a list's
   * chunks by id and never finds those (ids are not reused), and a one-note reindex would
   * otherwise rewrite a hundred lists per chunk removed. A full reindex writes them anew.
   */
  const deleteChunks = (where: string) => `WITH gone AS (
        DELETE FROM ${s}.chunks WHERE ${where}
        RETURNING id, terms, title_len, headings_len, body_len
      ), dec AS (
        SELECT t, count(*) AS n FROM gone, unnest(tsvector_to_array(gone.terms)) t GROUP BY t
      ), listed AS (
        UPDATE ${s}.champions ch SET
          chunk_ids = ARRAY(SELECT u.id FROM unnest(ch.chunk_ids, ch.counts) WITH ORDINALITY u (id, n, o)
            WHERE u.id <> ALL (g.ids) ORDER BY u.o),
          counts = ARRAY(SELECT u.n FROM unnest(ch.chunk_ids, ch.counts) WITH ORDINALITY u (id, n, o)
            WHERE u.id <> ALL (g.ids) ORDER BY u.o)
        FROM (SELECT array_agg(id) AS ids FROM gone) g
        WHERE ch.term IN (SELECT t FROM dec) AND ch.floor > 0 AND ch.chunk_ids && g.ids
      ), df AS (
        UPDATE ${s}.term_df d SET df = d.df - dec.n FROM dec WHERE d.term = dec.t
      )
      ${statsBy('-', 'gone')}`;
  const rankingColumns = `s.docs, s.title, s.headings, s.body,
        (SELECT value FROM ${s}.meta WHERE key = 'languages') AS languages,
        (SELECT value FROM ${s}.meta WHERE key = 'generation') AS generation,
        (SELECT value FROM ${s}.meta WHERE key = '${AVERAGES_KEY}') AS averages,
        (SELECT value FROM ${s}.meta WHERE key = '${PAIRS_KEY}') AS pairs`;
  // The lists by term, one index look-up each (LIMIT 1 keeps the planner from making it a join,
  // which read every list of the table to test it for emptiness: ~2 ms a search at 581 lists);
  // only of the prefixes' terms and of $3 (a question's stop words are left out of its ranking:
  // their lists were 0.4-0.6 ms of a Cranfield question).
  const termStats = `SELECT t.prefix, t.term, t.df, ch.chunk_ids AS ids, ch.counts, ch.floor FROM (
        SELECT NULL::text AS prefix, term, df FROM ${s}.term_df WHERE term = ANY($1::text[]) AND df > 0
        UNION ALL
        SELECT p, x.term, x.df FROM unnest($2::text[]) p, LATERAL (
          SELECT term, df FROM ${s}.term_df
          WHERE term >= p AND term < p || chr(1114111) AND df > 0
          ORDER BY df DESC, term LIMIT 64
        ) x
      ) t LEFT JOIN LATERAL (
        SELECT ch.chunk_ids || coalesce(a.ids, '{}') AS chunk_ids,
          ch.counts || coalesce(a.counts, '{}') AS counts, ch.floor
        FROM ${s}.champions ch LEFT JOIN LATERAL (
          SELECT array_agg(x.chunk_id) AS ids, array_agg(x.counts) AS counts
          FROM ${s}.champions_added x WHERE x.term = ch.term AND ch.floor = 0
        ) a ON true
        WHERE ch.term = t.term AND (t.prefix IS NOT NULL OR t.term = ANY($3::text[]))
          AND cardinality(ch.chunk_ids) + coalesce(cardinality(a.ids), 0) > 0 LIMIT 1
      ) ch ON true`;
  /**
   * Chunks with their analysed terms (a `tsvector` built by the writer: A title, B heading
   * path, D body), and what the ranking keeps up to date with them: each term's document
   * frequency (`term_df`) and the totals (`stats`). With `ids` (a rebuild), the writer numbers
   * the chunks ($12) and leaves `term_df` alone: the rebuild's `ChampionBuilder` counts
   * every term's chunks as it goes and the writer stores them once at the end (`frequencies`),
   * instead of an upsert of every term of every batch (half the server's time in a rebuild).
   * With `numbered`, the statement returns the ids the sequence gave (with the file and first
   * line of each chunk), then the floors of the champion lists of their terms.
   */
  const insertChunks = (ids: boolean, numbered: boolean) => `WITH ins AS (
        INSERT INTO ${s}.chunks (file_id, start_line, end_line, start_byte, end_byte, heading_path, lang,
          title_len, headings_len, body_len, terms${ids ? ', id' : ''})
        SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::bigint[], $5::bigint[], $6::text[],
          $7::text[], $8::int[], $9::int[], $10::int[], $11::tsvector[]${ids ? ', $12::bigint[]' : ''})
        RETURNING id, file_id, start_line, terms, title_len, headings_len, body_len
      )${
        ids
          ? ''
          : `, df AS (
        INSERT INTO ${s}.term_df (term, df)
        SELECT t, count(*) FROM ins, unnest(tsvector_to_array(ins.terms)) t GROUP BY t
        ON CONFLICT (term) DO UPDATE SET df = ${s}.term_df.df + excluded.df
      )`
      }${
        numbered
          ? `, totals AS (${statsBy('+', 'ins')})
      SELECT id, file_id, start_line, NULL::text AS term, NULL::float8 AS floor FROM ins
      UNION ALL
      SELECT NULL, NULL, NULL, ch.term, ch.floor FROM ${s}.champions ch
      WHERE ch.term IN (SELECT t FROM ins, unnest(tsvector_to_array(ins.terms)) t)`
          : `
      ${statsBy('+', 'ins')}`
      }`;
  return {
    champions: championStatements(n),
    getMeta: `SELECT value FROM ${s}.meta WHERE key = $1`,
    metaAll: `SELECT key, value FROM ${s}.meta`,
    setMeta: `INSERT INTO ${s}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    isBuilt: `SELECT 1 FROM ${s}.meta WHERE key = 'built_at'`,
    /** The end of a reindex in one statement: sources ($1-$3) and meta rows ($4, $5). */
    finish: `WITH src AS (
        INSERT INTO ${s}.sources (id, root, indexed_at)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
        ON CONFLICT (id) DO UPDATE SET root = excluded.root, indexed_at = excluded.indexed_at
      )
      INSERT INTO ${s}.meta (key, value) SELECT * FROM unnest($4::text[], $5::text[])
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`,

    sources: `SELECT id, root, indexed_at FROM ${s}.sources ORDER BY id`,
    deleteSource: `DELETE FROM ${s}.sources WHERE id = $1`,

    /** Every file with this process's view of its stat ($1, $2: sources and their origins). */
    allFiles: `SELECT ${effective('f')} FROM ${s}.files f ${seenJoin('f', 1)}`,
    /** One file ($1, $2: origins; $3 source, $4 path). */
    fileByPath: `SELECT ${effective('f')} FROM ${s}.files f ${seenJoin('f', 1)}
      WHERE f.source = $3 AND f.path = $4`,
    fileStatus: `SELECT f.source, f.path, coalesce(z.size, f.size) AS size, coalesce(z.mtime, f.mtime) AS mtime
      FROM ${s}.files f ${seenJoin('f', 1)}`,
    pathsOfSource: `SELECT path FROM ${s}.files WHERE source = $1 ORDER BY path`,
    filesForFilter: `SELECT id, source, path FROM ${s}.files`,
    filesForFilterOfSource: `SELECT id, source, path FROM ${s}.files WHERE source = $1`,
    chunksPerSource: `SELECT source, sum(chunks)::bigint AS n FROM ${s}.files GROUP BY source`,
    countChunks: `SELECT count(*)::bigint AS n FROM ${s}.chunks`,
    nextIds: `SELECT nextval('${s}.files_id_seq') AS id FROM generate_series(1, $1)`,
    /**
     * The first of $1 consecutive chunk ids taken from the sequence at once (a rebuild numbers
     * chunks itself: its lists need their ids). Only the writer, under the index's lock, takes
     * chunk ids, so nothing takes one between the two calls.
     */
    reserveChunkIds: `SELECT setval(q.seq, nextval(q.seq) + $1 - 1) - $1 + 1 AS first
      FROM (SELECT pg_get_serial_sequence('${s}.chunks', 'id') AS seq) q`,

    insertFiles: `INSERT INTO ${s}.files (id, source, path, size, mtime, ino, sha256, indexed_at, racy, lang, chunks, origin)
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[],
        $7::text[], $8::text[], $9::bool[], $10::text[], $11::int[], $12::text[])`,
    updateFiles: `UPDATE ${s}.files f SET source = u.source, path = u.path, size = u.size, mtime = u.mtime,
        ino = u.ino, sha256 = u.sha256, indexed_at = u.indexed_at, racy = u.racy, lang = u.lang,
        chunks = u.chunks, origin = u.origin
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[],
        $7::text[], $8::text[], $9::bool[], $10::text[], $11::int[], $12::text[])
        AS u (id, source, path, size, mtime, ino, sha256, indexed_at, racy, lang, chunks, origin)
      WHERE f.id = u.id`,
    touchFiles: `UPDATE ${s}.files f SET source = u.source, path = u.path, size = u.size, mtime = u.mtime,
        ino = u.ino, sha256 = u.sha256, indexed_at = u.indexed_at, racy = u.racy, origin = u.origin
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[],
        $7::text[], $8::text[], $9::bool[], $10::text[])
        AS u (id, source, path, size, mtime, ino, sha256, indexed_at, racy, origin)
      WHERE f.id = u.id`,
    upsertSeen: `INSERT INTO ${s}.seen (file_id, origin, size, mtime, ino, racy)
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::float8[], $5::float8[], $6::bool[])
      ON CONFLICT (file_id, origin) DO UPDATE SET size = excluded.size, mtime = excluded.mtime,
        ino = excluded.ino, racy = excluded.racy, at = now()`,
    deleteSeenOf: `DELETE FROM ${s}.seen WHERE file_id = ANY($1::bigint[])`,
    pruneSeen: `DELETE FROM ${s}.seen WHERE at < now() - interval '30 days'`,
    deleteChunksOf: deleteChunks('file_id = ANY($1::bigint[])'),
    deleteFiles: `DELETE FROM ${s}.files WHERE id = ANY($1::bigint[])`,
    /** A rebuild's chunks, numbered by the writer (`term_df` is written at the end). */
    insertChunks: insertChunks(true, false),
    /** The same with ids from the sequence, returning them and the floors of their terms' lists. */
    insertChunksNumbered: insertChunks(false, true),

    chunksOfSource: deleteChunks(`file_id IN (SELECT id FROM ${s}.files WHERE source = $1)`),
    filesOfSource: `DELETE FROM ${s}.files WHERE source = $1 RETURNING id`,
    clear: [
      `DELETE FROM ${s}.champions`,
      `DELETE FROM ${s}.champions_added`,
      `DELETE FROM ${s}.phrase_pairs`,
      `DELETE FROM ${s}.phrase_pairs_added`,
      `DELETE FROM ${s}.meta WHERE key = '${ADDED_KEY}'`,
      `DELETE FROM ${s}.chunks`,
      `DELETE FROM ${s}.term_df`,
      `UPDATE ${s}.stats SET docs = 0, title = 0, headings = 0, body = 0`,
      `DELETE FROM ${s}.seen`,
      `DELETE FROM ${s}.files`,
      `DELETE FROM ${s}.problems`,
    ],

    problems: `SELECT source, path, size, mtime, code, message FROM ${s}.problems`,
    problemStatus: `SELECT source, path, size, mtime FROM ${s}.problems`,
    problemKeys: `SELECT source, path FROM ${s}.problems`,
    problemByPath: `SELECT source, path, size, mtime, code, message FROM ${s}.problems WHERE source = $1 AND path = $2`,
    upsertProblems: `INSERT INTO ${s}.problems (source, path, size, mtime, code, message)
      SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[], $5::text[], $6::text[])
      ON CONFLICT (source, path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime,
        code = excluded.code, message = excluded.message`,
    deleteProblems: `DELETE FROM ${s}.problems p USING unnest($1::text[], $2::text[]) AS u (source, path)
      WHERE p.source = u.source AND p.path = u.path`,
    deleteProblemsOfSource: `DELETE FROM ${s}.problems WHERE source = $1`,

    /** Terms no chunk holds any more (after deletions). */
    dropUnusedTerms: `DELETE FROM ${s}.term_df WHERE df <= 0`,
    /** What the ranking needs of the whole index: totals and the languages notes are in. */
    rankingStats: `SELECT ${rankingColumns} FROM ${s}.stats s`,
    /**
     * Document frequencies of terms ($1), and for each prefix ($2) the 64 most frequent terms
     * starting with it (prefix NULL for the former), each with its champion list when it has
     * one and is a prefix's or in $3 (`ids`, `counts`: chunk ids and packed counts; `floor`;
     * see `lib/champions.ts`).
     */
    termStats,
    /**
     * `rankingStats` and `termStats` in one round trip: the totals' row, with the term rows as a
     * JSON array of `[prefix, term, df, ids, counts, floor]` (in `termStats` order).
     */
    rankingAndTermStats: `SELECT ${rankingColumns},
        (SELECT coalesce(json_agg(json_build_array(x.prefix, x.term, x.df, x.ids, x.counts, x.floor)), '[]') FROM (${termStats}) x) AS terms
      FROM ${s}.stats s`,

    /** Details of a page of chunk ids ($1 ids; $2, $3 origins), and the index generation. */
    hitDetails: `SELECT c.id, c.start_line, c.end_line, c.start_byte, c.end_byte, c.heading_path, c.lang,
        f.source, f.path, f.sha256, coalesce(z.size, f.size) AS size, coalesce(z.mtime, f.mtime) AS mtime,
        (SELECT value FROM ${s}.meta WHERE key = 'generation') AS generation
      FROM ${s}.chunks c JOIN ${s}.files f ON f.id = c.file_id ${seenJoin('f', 2)}
      WHERE c.id = ANY($1::bigint[])`,
  };
}

export type Statements = ReturnType<typeof statements>;
