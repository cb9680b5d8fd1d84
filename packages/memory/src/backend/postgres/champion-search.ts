import { phraseListTerm } from '../../lib/champions.js';
import type { Language } from '../../lib/language.js';
import type { PlannedClause, QueryPlan } from '../../lib/rank.js';
import type { ChampionStatements } from './champions.js';
import type { Run } from './search.js';

/** A `tsquery` operand: the term quoted. */
export function operand(term: string): string {
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * What one search reads of the champion lists (`lib/champions.ts`), and how it changes the
 * search, the same way on every backend:
 * - a term is listed iff its list holds a chunk;
 * - a word or prefix term that is listed counts in the chunks of its list only, with the list's
 *   counts (never the counts of a chunk's vector), so its other chunks are never read;
 * - a phrase whose words are all listed is found in the title or heading path of any chunk
 *   (the `chunks_ab` index) and in the body of the chunks of its rarest word's list
 *   (`phraseListTerm`) only; its fields are checked exactly in those chunks, in no others.
 */
export class ChampionRows {
  /** The plan's terms that have a list. */
  readonly listed = new Set<string>();
  /** List chunks of each listed term. */
  private readonly byTerm = new Map<string, number[]>();
  /** Per chunk, its list rows: term and packed counts, alternating. */
  private readonly byChunk = new Map<number, Array<string | number>>();
  /**
   * Per phrase clause (plan index), per language whose variant is all listed words: the
   * chunks of the list standing for it (its body is checked in those only).
   */
  private readonly phraseLists = new Map<number, Map<Language, ReadonlySet<number>>>();

  private constructor(private readonly plan: QueryPlan) {}

  /** Reads the lists of every term of the plan (rows only for listed ones). */
  static async load(
    run: Run,
    sql: ChampionStatements,
    plan: QueryPlan,
    df: ReadonlyMap<string, number>,
  ): Promise<ChampionRows> {
    const out = new ChampionRows(plan);
    const terms = new Set<string>();
    for (const c of plan.clauses)
      for (const list of c.terms.values()) for (const t of list) terms.add(t);
    if (terms.size === 0) return out;
    const r = await run({ text: sql.lists, values: [[...terms]] });
    for (const row of r.rows as Array<{ term: string; chunk_ids: string[]; counts: string[] }>) {
      out.listed.add(row.term);
      const chunks = row.chunk_ids.map(Number);
      out.byTerm.set(row.term, chunks);
      chunks.forEach((id, k) => {
        let rows = out.byChunk.get(id);
        if (!rows) {
          rows = [];
          out.byChunk.set(id, rows);
        }
        rows.push(row.term, Number(row.counts[k]));
      });
    }
    if (out.listed.size === 0) return out;
    plan.clauses.forEach((c, i) => {
      if (c.kind !== 'phrase') return;
      const byLang = new Map<Language, ReadonlySet<number>>();
      for (const [lang, list] of c.terms) {
        if (!list.every((t) => out.listed.has(t))) continue;
        const term = phraseListTerm(list, (t) => df.get(t) ?? 0);
        byLang.set(lang, new Set(out.byTerm.get(term) ?? []));
      }
      if (byLang.size > 0) out.phraseLists.set(i, byLang);
    });
    return out;
  }

  /** Whether a clause needs no look-up besides the lists' (none of its chunks is elsewhere). */
  handles(i: number): boolean {
    return this.query(this.plan.clauses[i]!).length === 0;
  }

  /**
   * The `tsquery` alternatives that find a clause's chunks outside the lists: a word's unlisted
   * stems; a phrase's variants not made of listed words only, its words in order; a prefix as
   * a prefix operand (`'zelt':*`) when none of its terms is listed (PostgreSQL estimates that
   * well and checks it in one search of a vector; bench: 16 ms against 1.9 s for 'prin*' as 64
   * ORed terms), else its unlisted terms ORed (chunks holding only terms past the 64 are
   * fetched by the former and score 0).
   */
  query(c: PlannedClause): string[] {
    const out = new Set<string>();
    if (c.kind === 'prefix') {
      const all = new Set<string>();
      for (const list of c.terms.values()) for (const t of list) all.add(t);
      if (all.size === 0) return [];
      if (![...all].some((t) => this.listed.has(t))) return [`${operand(c.surface[0]!)}:*`];
      for (const t of all) if (!this.listed.has(t)) out.add(operand(t));
      return [...out];
    }
    if (c.kind === 'phrase') {
      for (const list of c.terms.values()) {
        if (list.every((t) => this.listed.has(t))) continue;
        out.add(`(${list.map(operand).join(' <-> ')})`);
      }
      return [...out];
    }
    for (const list of c.terms.values())
      for (const t of list) if (!this.listed.has(t)) out.add(operand(t));
    return [...out];
  }

  /**
   * What the lists make candidates before any other look-up: the chunks of the listed terms of
   * word and prefix clauses and of the lists standing for phrases, and the `tsquery` of the
   * phrases of listed words, looked for in titles and heading paths (undefined: none).
   */
  seed(): { ids: number[]; titles: string | undefined } {
    const ids = new Set<number>();
    const titles = new Set<string>();
    this.plan.clauses.forEach((c, i) => {
      if (c.kind === 'phrase') {
        const byLang = this.phraseLists.get(i);
        if (!byLang) return;
        for (const set of byLang.values()) for (const id of set) ids.add(id);
        for (const lang of byLang.keys()) {
          titles.add(`(${c.terms.get(lang)!.map(operand).join(' <-> ')})`);
        }
        return;
      }
      for (const list of c.terms.values()) {
        for (const t of list) for (const id of this.byTerm.get(t) ?? []) ids.add(id);
      }
    });
    return { ids: [...ids], titles: titles.size > 0 ? [...titles].join(' | ') : undefined };
  }

  /** A chunk's list rows: term and packed counts, alternating (undefined: in no list). */
  rowsOf(id: number): ReadonlyArray<string | number> | undefined {
    return this.byChunk.get(id);
  }

  /**
   * A phrase clause's fields in a chunk (bits: 0 title, 1 heading path, 2 body) as the lists
   * let it count: for a variant of listed words, the body only in the chunks of its list,
   * unless the phrase is in the chunk's title or heading path (then every field, exactly).
   */
  phraseFields(clause: number, lang: Language, id: number, fields: number): number {
    const set = this.phraseLists.get(clause)?.get(lang);
    if (!set || (fields & 3) !== 0 || set.has(id)) return fields;
    return 0;
  }
}
