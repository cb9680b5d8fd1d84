import type * as Pg from 'pg';
import type { AnalysedChunk } from '../../lib/analysis.js';
import {
  type Averages,
  ChampionBuilder,
  type ChampionLists,
  eachAdmission,
  packCounts,
} from '../../lib/champions.js';
import { commonPairs, pairsOf } from '../../lib/pairs.js';
import type { Names } from './schema.js';

/** The meta row holding the averages the champion lists were ordered with (JSON array). */
export const AVERAGES_KEY = 'champion_averages';

/** The meta row holding how many phrase pairs the last rebuild kept (searches skip none). */
export const PAIRS_KEY = 'phrase_pairs';

/** The meta row counting the rows of `champions_added` (see `pgListTuning.foldAt`). */
export const ADDED_KEY = 'champions_added';

/**
 * @internal Terms in more chunks than `completeMinDf` (and not enough for a champion list) get
 * a complete list on PostgreSQL (`ChampionOptions.complete`): a search reads their chunks and
 * counts from one row instead of cutting each chunk's vector (about 5 µs a chunk; a prefix
 * such as 'zelt*' stands for dozens of such terms, thousands of chunks). Below it, a term's
 * few chunks are cheaper to read than a row to keep. Tests set small values.
 */
export const pgListTuning = {
  completeMinDf: 50,
  /**
   * Rows of `champions_added` past which a reindex folds them into their lists' arrays: a
   * search reads a list's added rows by index, so they cost little until there are many.
   */
  foldAt: 50_000,
};

/** List entries (or terms' document frequencies) sent in one statement when a rebuild ends. */
const LIST_BATCH = 50_000;

/**
 * The statements of the champion lists (`lib/champions.ts`) on PostgreSQL: a row of
 * `champions` holds one term's floor and its list, chunk ids and packed counts in parallel.
 */
export function championStatements(n: Names) {
  const { s } = n;
  return {
    /**
     * Adds chunks ($2) with their counts ($3) to the complete lists of terms ($1), as rows of
     * `champions_added`, and returns how many such rows there are now.
     */
    addComplete: `WITH ins AS (
        INSERT INTO ${s}.champions_added (term, chunk_id, counts)
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) ON CONFLICT DO NOTHING
        RETURNING 1
      )
      INSERT INTO ${s}.meta (key, value) VALUES ('${ADDED_KEY}', (SELECT count(*) FROM ins)::text)
      ON CONFLICT (key) DO UPDATE SET value = (${s}.meta.value::bigint + excluded.value::bigint)::text
      RETURNING value`,
    /** A rebuild's phrase pairs ($1 keys, $2 their chunks as array text). */
    insertPairs: `INSERT INTO ${s}.phrase_pairs (pair, chunk_ids)
      SELECT u.pair, u.ids::bigint[] FROM unnest($1::text[], $2::text[]) AS u (pair, ids)`,
    /** New chunks ($2) holding pairs ($1): rows of the pairs that have a list. */
    addPairs: `INSERT INTO ${s}.phrase_pairs_added (pair, chunk_id)
      SELECT u.pair, u.id FROM unnest($1::text[], $2::bigint[]) AS u (pair, id)
      WHERE EXISTS (SELECT 1 FROM ${s}.phrase_pairs p WHERE p.pair = u.pair)
      ON CONFLICT DO NOTHING`,
    /** Moves every row of `champions_added` into its list's arrays. */
    fold: [
      `WITH gone AS (DELETE FROM ${s}.champions_added RETURNING term, chunk_id, counts),
      a AS (
        SELECT term, array_agg(chunk_id ORDER BY chunk_id) AS ids, array_agg(counts ORDER BY chunk_id) AS counts
        FROM gone GROUP BY term
      )
      UPDATE ${s}.champions ch SET chunk_ids = ch.chunk_ids || a.ids, counts = ch.counts || a.counts
      FROM a WHERE ch.term = a.term`,
      `UPDATE ${s}.meta SET value = '0' WHERE key = '${ADDED_KEY}'`,
    ],
    /** Admits chunks ($2) with their counts ($3) to the lists of terms ($1). */
    admit: `UPDATE ${s}.champions ch SET chunk_ids = ch.chunk_ids || a.ids, counts = ch.counts || a.counts
      FROM (
        SELECT term, array_agg(id ORDER BY id) AS ids, array_agg(n ORDER BY id) AS counts
        FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u (term, id, n) GROUP BY term
      ) a
      WHERE ch.term = a.term`,
    /**
     * A rebuild's document frequencies ($1 terms, $2 chunks holding each), counted by its
     * builder: the rebuild's chunk inserts leave `term_df` alone (`insertChunks` in `sql.ts`).
     * Added to what is there (an index's first build may find terms left at 0).
     */
    frequencies: `INSERT INTO ${s}.term_df (term, df) SELECT * FROM unnest($1::text[], $2::int[])
      ON CONFLICT (term) DO UPDATE SET df = ${s}.term_df.df + excluded.df`,
    /** Every term's document frequency counted again from the chunks' vectors. */
    recount: [
      `DELETE FROM ${s}.term_df`,
      `INSERT INTO ${s}.term_df (term, df)
        SELECT t, count(*) FROM ${s}.chunks, unnest(tsvector_to_array(terms)) t GROUP BY t`,
    ],
    /** A rebuild's lists (the table was emptied): term, floor, and each list as array text. */
    insert: `INSERT INTO ${s}.champions (term, floor, chunk_ids, counts)
      SELECT u.term, u.floor, u.ids::bigint[], u.counts::bigint[]
      FROM unnest($1::text[], $2::float8[], $3::text[], $4::text[]) AS u (term, floor, ids, counts)`,
  };
}

export type ChampionStatements = ReturnType<typeof championStatements>;

/** A rebuild's builder: champion lists, and complete lists of the terms below them. */
function newBuilder(): ChampionBuilder {
  return new ChampionBuilder({ complete: pgListTuning.completeMinDf, sequences: true });
}

/** Sends one statement on the writer's transaction. */
type Query = (text: string, values?: unknown[]) => Promise<Pg.QueryResult>;

/**
 * The champion lists' side of one reindex transaction. A full reindex (the index cleared) or
 * the first build of an index builds the lists from every chunk written, in write order, and
 * stores them at the end; an incremental one admits each new chunk to the lists of the listed terms it
 * weighs enough in. (The rows of removed chunks go with them: `deleteChunks` in `sql.ts`.)
 */
export class ChampionWriter {
  private builder: ChampionBuilder | undefined;
  private averages: Averages | undefined;

  constructor(
    private readonly q: Query,
    private readonly sql: ChampionStatements,
    /** The index's meta rows as the transaction found them. */
    meta: ReadonlyMap<string, string>,
    /** Whether the index holds no file yet: its first build builds the lists too. */
    empty: boolean,
  ) {
    if (empty) this.builder = newBuilder();
    const stored = meta.get(AVERAGES_KEY);
    if (stored) this.averages = JSON.parse(stored) as Averages;
  }

  /** Whether this transaction rebuilds the lists (the writer then numbers its chunks). */
  get building(): boolean {
    return this.builder !== undefined;
  }

  /** The index was emptied (lists included): every chunk written from now on is in the new lists. */
  clear(): void {
    this.builder = newBuilder();
    this.backlog = [];
    this.recount = false;
  }

  /**
   * Whether `term_df` must be counted again from the chunks at the end: a rebuild's chunk
   * inserts leave it to the builder's counts, which know nothing of a chunk removed again in
   * the same transaction. (A rebuild only adds files, so this is a safety net.)
   */
  private recount = false;

  /** Chunks are being removed: in a rebuild that has counted some, see {@link recount}. */
  removing(): void {
    if (this.builder && (this.backlog.length > 0 || this.builder.frequencies().terms.length > 0)) {
      this.recount = true;
    }
  }

  /** Chunks queued in a rebuild that its builder has not taken yet (see {@link drain}). */
  private backlog: Array<{
    ids: readonly number[];
    chunks: ReadonlyArray<{ fields: AnalysedChunk }>;
  }> = [];

  /** Chunks queued for writing, in write order, with their ids: a rebuild's lists take them. */
  queued(ids: readonly number[], chunks: ReadonlyArray<{ fields: AnalysedChunk }>): void {
    if (this.builder) this.backlog.push({ ids, chunks });
  }

  /**
   * Gives the builder the chunks queued so far. The writer calls it while it waits for the
   * server to write a batch, so that the builder's work (seconds in a large rebuild) is done
   * while the process would otherwise wait.
   */
  drain(): void {
    const builder = this.builder;
    if (!builder) return;
    for (const { ids, chunks } of this.backlog) {
      for (let i = 0; i < ids.length; i++) builder.add(ids[i]!, chunks[i]!.fields);
    }
    this.backlog = [];
  }

  /**
   * Chunks just written outside a rebuild, in write order, with the floors of the lists of
   * their terms (`insertChunksNumbered`): each joins the lists it weighs enough in.
   */
  async written(
    chunks: ReadonlyArray<{ id: number; fields: AnalysedChunk }>,
    floors: ReadonlyMap<string, number>,
  ): Promise<void> {
    const averages = this.averages;
    if (this.builder || !averages || floors.size === 0) return;
    // Champion lists take the chunk into their arrays; complete ones (floor 0) a row each.
    const cols: [string[], number[], number[]] = [[], [], []];
    const complete: [string[], number[], number[]] = [[], [], []];
    for (const { id, fields } of chunks) {
      eachAdmission(fields, floors, averages, (term, packed) => {
        const to = floors.get(term) === 0 ? complete : cols;
        to[0].push(term);
        to[1].push(id);
        to[2].push(packed);
      });
    }
    // Phrase pairs: a chunk's adjacent terms that both have a list (as every pair kept has).
    const pairs: [string[], number[]] = [[], []];
    for (const { id, fields } of chunks) {
      for (const pair of pairsOf(fields, (t) => floors.has(t))) {
        pairs[0].push(pair);
        pairs[1].push(id);
      }
    }
    if (pairs[0].length > 0) await this.q(this.sql.addPairs, pairs);
    if (cols[0].length > 0) await this.q(this.sql.admit, cols);
    if (complete[0].length > 0) {
      const r = await this.q(this.sql.addComplete, complete);
      if (Number(r.rows[0]?.value ?? 0) > pgListTuning.foldAt) {
        for (const statement of this.sql.fold) await this.q(statement);
      }
    }
  }

  /** A rebuild's lists once {@link prepare} made them, and its terms' document frequencies. */
  private built: ChampionLists | undefined;
  private frequencies: ReturnType<ChampionBuilder['frequencies']> | undefined;

  /**
   * Makes a rebuild's lists from every chunk queued (JavaScript only: the writer calls it while
   * the server writes the last batch); {@link finish} stores them.
   */
  prepare(): void {
    this.drain();
    const builder = this.builder;
    if (!builder) return;
    this.builder = undefined;
    this.built = builder.finish();
    this.frequencies = builder.frequencies();
    this.pairs = commonPairs(builder.sequences(), (df) => df > pgListTuning.completeMinDf);
  }

  /**
   * Sends `rows` with `statement`, one parameter array per column (`row` gives a row's values
   * and how many list entries it holds), about {@link LIST_BATCH} entries a statement.
   */
  private async inBatches<T>(
    statement: string,
    rows: readonly T[],
    row: (item: T) => [unknown[], number],
  ): Promise<void> {
    let cols: unknown[][] = [];
    let entries = 0;
    for (const item of rows) {
      const [values, size] = row(item);
      if (cols.length === 0) cols = values.map(() => []);
      for (let k = 0; k < values.length; k++) cols[k]!.push(values[k]);
      entries += size;
      if (entries >= LIST_BATCH) {
        await this.q(statement, cols);
        cols = [];
        entries = 0;
      }
    }
    if (cols.length > 0) await this.q(statement, cols);
  }

  /** A rebuild's phrase pairs once {@link prepare} made them. */
  private pairs: Array<{ pair: string; ids: number[] }> | undefined;

  /**
   * At the end of the transaction: a rebuild stores its terms' document frequencies, its lists
   * and its phrase pairs and returns the meta rows of their averages and of the pairs' count;
   * otherwise nothing changes.
   */
  async finish(): Promise<Array<[string, string]>> {
    this.prepare();
    const built = this.built;
    if (!built) return [];
    this.built = undefined;
    const frequencies = this.frequencies!;
    this.frequencies = undefined;
    if (this.recount) {
      for (const statement of this.sql.recount) await this.q(statement);
    } else {
      const { terms, df } = frequencies;
      for (let i = 0; i < terms.length; i += LIST_BATCH) {
        const end = Math.min(terms.length, i + LIST_BATCH);
        await this.q(this.sql.frequencies, [terms.slice(i, end), Array.from(df.subarray(i, end))]);
      }
    }
    await this.inBatches(this.sql.insert, built.lists, (list) => [
      [
        list.term,
        list.floor,
        `{${list.entries.map((e) => e.chunk).join(',')}}`,
        `{${list.entries.map((e) => packCounts(e.title, e.headings, e.body)).join(',')}}`,
      ],
      list.entries.length,
    ]);
    await this.inBatches(this.sql.insertPairs, this.pairs ?? [], ({ pair, ids }) => [
      [pair, `{${ids.join(',')}}`],
      ids.length,
    ]);
    const kept = String(this.pairs?.length ?? 0);
    this.pairs = undefined;
    // No list, nothing to admit to: an incremental reindex then skips admission.
    this.averages = built.lists.length > 0 ? built.averages : undefined;
    return [
      [AVERAGES_KEY, built.lists.length > 0 ? JSON.stringify(built.averages) : ''],
      [PAIRS_KEY, kept],
    ];
  }
}
