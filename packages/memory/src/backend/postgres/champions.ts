import type * as Pg from 'pg';
import type { AnalysedChunk } from '../../lib/analysis.js';
import {
  type Averages,
  admits,
  ChampionBuilder,
  chunkLengths,
  packCounts,
  termCounts,
} from '../../lib/champions.js';
import type { Names } from './schema.js';

/** The meta row holding the averages the champion lists were ordered with (JSON array). */
export const AVERAGES_KEY = 'champion_averages';

/** Rows sent in one statement when a full reindex writes its lists. */
const LIST_BATCH = 50_000;

/**
 * The statements of the champion lists (`lib/champions.ts`) on PostgreSQL: `champions` holds
 * each listed term's chunks with its packed counts there, `champion_terms` each list's floor.
 */
export function championStatements(n: Names) {
  const { s } = n;
  return {
    /** Every row of the lists of these terms ($1), with the chunk's file (for filters). */
    lists: `SELECT ch.term, ch.chunk_id, ch.counts FROM ${s}.champions ch WHERE ch.term = ANY($1::text[])`,
    /** The floors of the listed terms among $1 (admission in an incremental reindex). */
    floors: `SELECT term, floor FROM ${s}.champion_terms WHERE term = ANY($1::text[])`,
    insert: `INSERT INTO ${s}.champions (term, chunk_id, counts)
      SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])
      ON CONFLICT (term, chunk_id) DO UPDATE SET counts = excluded.counts`,
    /** A full reindex's rows: the table was emptied, no conflict possible. */
    insertBuilt: `INSERT INTO ${s}.champions (term, chunk_id, counts)
      SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])`,
    insertTerms: `INSERT INTO ${s}.champion_terms (term, floor)
      SELECT * FROM unnest($1::text[], $2::float8[])`,
  };
}

export type ChampionStatements = ReturnType<typeof championStatements>;

/** Sends one statement on the writer's transaction. */
type Query = (text: string, values?: unknown[]) => Promise<Pg.QueryResult>;

/**
 * The champion lists' side of one reindex transaction. A full reindex (or the first one of an
 * empty index) builds the lists from every chunk written, in write order, and stores them at
 * the end; an incremental one admits each new chunk to the lists of the listed terms it
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
  ) {
    // An index never built has no lists to keep: build them as a full reindex would.
    if (!meta.has('built_at')) this.builder = new ChampionBuilder();
    const stored = meta.get(AVERAGES_KEY);
    if (stored) this.averages = JSON.parse(stored) as Averages;
  }

  /** The index was emptied (lists included): every chunk written from now on is in the new lists. */
  clear(): void {
    this.builder = new ChampionBuilder();
  }

  /** Chunks just written, in write order, with their ids. */
  async written(ids: readonly number[], chunks: readonly AnalysedChunk[]): Promise<void> {
    if (this.builder) {
      for (let i = 0; i < ids.length; i++) this.builder.add(ids[i]!, chunks[i]!);
      return;
    }
    const averages = this.averages;
    if (!averages || ids.length === 0) return;
    const counts = chunks.map(termCounts);
    const terms = new Set<string>();
    for (const c of counts) for (const t of c.keys()) terms.add(t);
    const floors = new Map<string, number>();
    for (const r of (await this.q(this.sql.floors, [[...terms]])).rows) {
      floors.set(r.term as string, Number(r.floor));
    }
    if (floors.size === 0) return;
    const cols: [string[], number[], number[]] = [[], [], []];
    counts.forEach((byTerm, i) => {
      const lengths = chunkLengths(chunks[i]!);
      for (const [term, c] of byTerm) {
        const floor = floors.get(term);
        if (floor === undefined || !admits(floor, c, lengths, averages)) continue;
        cols[0].push(term);
        cols[1].push(ids[i]!);
        cols[2].push(packCounts(c[0], c[1], c[2]));
      }
    });
    if (cols[0].length > 0) await this.q(this.sql.insert, cols);
  }

  /**
   * At the end of the transaction: a rebuild stores its lists and returns the meta row of
   * their averages; otherwise nothing changes.
   */
  async finish(): Promise<[string, string] | undefined> {
    const builder = this.builder;
    if (!builder) return undefined;
    this.builder = undefined;
    const built = builder.finish();
    const terms: [string[], number[]] = [[], []];
    let rows: [string[], number[], number[]] = [[], [], []];
    for (const list of built.lists) {
      terms[0].push(list.term);
      terms[1].push(list.floor);
      for (const e of list.entries) {
        rows[0].push(list.term);
        rows[1].push(e.chunk);
        rows[2].push(packCounts(e.title, e.headings, e.body));
        if (rows[0].length >= LIST_BATCH) {
          await this.q(this.sql.insertBuilt, rows);
          rows = [[], [], []];
        }
      }
    }
    if (rows[0].length > 0) await this.q(this.sql.insertBuilt, rows);
    if (terms[0].length > 0) await this.q(this.sql.insertTerms, terms);
    this.averages = built.averages;
    return [AVERAGES_KEY, JSON.stringify(built.averages)];
  }
}
