import { unpackCounts } from '../../lib/champions.js';
import type { Language } from '../../lib/language.js';
import { type IndexStats, type QueryPlan, Scorer } from '../../lib/rank.js';
import type { ChampionRows } from './champion-search.js';

/** Most positions PostgreSQL keeps in a `tsvector` (text.ts): past it, positions are shared. */
const MAX_POSITION = 16383;

/**
 * The candidate chunks of one PostgreSQL search, kept compact: a search of a common word reads
 * tens of thousands of them, so each is reduced, as it arrives, to its clause counts (per
 * clause: title, heading path, body) in flat arrays, without a map or array of its own.
 */
export class Candidates {
  private readonly ids: number[] = [];
  private readonly langs: Language[] = [];
  /** Title, heading-path and body length of each candidate. */
  private readonly lengths: number[] = [];
  /**
   * Per candidate, per clause: title, heading-path and body counts (phrases: 0 or 1); grown by
   * doubling (pushing each zero to an array cost ~1 ms for 700 candidates of 18 clauses).
   */
  private counts = new Int32Array(0);
  /** Per candidate: whether it holds any term of its language's clauses. */
  private readonly holds: boolean[] = [];
  private readonly width: number;
  /** Per language: which word and prefix clauses each term counts for (from the vector). */
  private readonly counted = new Map<Language, Map<string, number[]>>();
  /** The same for listed terms, which count from their lists only (`lib/champions.ts`). */
  private readonly listCounted = new Map<Language, Map<string, number[]>>();
  /** Chunk ids added. */
  private readonly seen = new Set<number>();
  /** The phrase clauses, in plan order: PostgreSQL says in which fields each occurs. */
  readonly phrases: number[] = [];
  /** The languages the plan has clauses for. */
  private readonly languages = new Set<Language>();
  // Scratch of the row being read (reused): its title and heading-path entries.
  private readonly abTerm: string[] = [];
  private readonly abPos: number[] = [];
  private readonly abField: number[] = [];
  // The row being read: where its counts start, its language's counted terms, phrases or not.
  private rowBase = 0;
  private rowCounted: Map<string, number[]> | undefined;
  // The visitors of the two vectors, made once (not a closure per row).
  private readonly visitAb = (term: string, position: number, weight: string): void => {
    this.abTerm.push(term);
    this.abPos.push(position);
    this.abField.push(weight === 'A' ? 0 : 1);
  };
  // Scratch of `addCombined`: the query terms' entries, the positions taken (1) and which.
  private readonly qTerm: string[] = [];
  private readonly qPos: number[] = [];
  private readonly occupied = new Uint8Array(MAX_POSITION + 2);
  private readonly marked: number[] = [];
  private readonly visitTerm = (term: string, position: number): void => {
    this.qTerm.push(term);
    this.qPos.push(position);
    this.take(position);
  };
  private readonly visitField = (position: number, field: number): void => {
    this.abPos.push(position);
    this.abField.push(field);
    this.take(position);
  };
  private take(position: number): void {
    if (position >= 1 && position <= MAX_POSITION && this.occupied[position] === 0) {
      this.occupied[position] = 1;
      this.marked.push(position);
    }
  }
  // The row's fields as position ranges (see `fieldBounds`): title, heading path start and end.
  private readonly bounds = [0, 0, 0];
  private readonly visitQByRange = (term: string, position: number): void => {
    const [titleEnd, headingsStart, headingsEnd] = this.bounds;
    const field =
      position <= titleEnd! ? 0 : position >= headingsStart! && position <= headingsEnd! ? 1 : 2;
    const clauses = this.rowCounted?.get(term);
    if (clauses) for (const c of clauses) this.counts[this.rowBase + 3 * c + field]! += 1;
  };
  private readonly visitQ = (term: string, position: number): void => {
    let field = 2;
    for (let k = 0; k < this.abTerm.length; k++) {
      if (this.abPos[k] === position && this.abTerm[k] === term) {
        field = this.abField[k]!;
        break;
      }
    }
    const clauses = this.rowCounted?.get(term);
    if (clauses) for (const c of clauses) this.counts[this.rowBase + 3 * c + field]! += 1;
  };

  constructor(
    private readonly plan: QueryPlan,
    private readonly champions?: ChampionRows,
  ) {
    this.width = plan.clauses.length * 3;
    plan.clauses.forEach((clause, i) => {
      if (clause.kind === 'phrase') this.phrases.push(i);
      for (const [lang, list] of clause.terms) {
        this.languages.add(lang);
        if (clause.kind === 'phrase') continue;
        // A word counts its stem in the chunk's language; a prefix each term it stands for.
        for (const t of clause.kind === 'prefix' ? list : list.slice(0, 1)) {
          const by = champions?.listed.has(t) ? this.listCounted : this.counted;
          const map = by.get(lang) ?? new Map<string, number[]>();
          by.set(lang, map);
          const at = map.get(t) ?? [];
          if (!at.includes(i)) at.push(i);
          map.set(t, at);
        }
      }
    });
  }

  get size(): number {
    return this.ids.length;
  }

  /** Whether a chunk was added already (a list's chunk may be found again by a look-up). */
  has(id: number): boolean {
    return this.seen.has(id);
  }

  /**
   * Adds one chunk from `v`, its vector with the query's word and prefix terms set to weight C
   * and cut down to weights A, B and C: every position of those terms, and the title (A) and
   * heading-path (B) entries of the others. The writer numbers the title's words 1, 2, …, then
   * those of the heading path after a one-position gap, then the body after another; so the
   * title is the run of positions from 1 and the heading path the run after the gap, and a
   * query term's position is in the one it falls in. Returns false, adding nothing, when the
   * vector does not show that shape (the chunk is then read with {@link add}).
   */
  addCombined(
    id: number,
    lang: Language,
    title: number,
    headings: number,
    body: number,
    v: string,
    phrases: readonly number[],
  ): boolean {
    const counted = this.languages.has(lang) ? this.counted.get(lang) : undefined;
    const q = this.qTerm;
    const at = this.qPos;
    q.length = 0;
    at.length = 0;
    if (counted && v !== '') {
      this.abPos.length = 0;
      this.abField.length = 0;
      const read = parseCombined(v, this.visitTerm, this.visitField);
      const runs = read && (q.length === 0 || this.fieldRuns());
      for (const p of this.marked) this.occupied[p] = 0;
      this.marked.length = 0;
      if (!runs) return false;
    }
    const base = this.push(id, lang, title, headings, body, phrases);
    if (base < 0 || !counted) return true;
    const [titleEnd, headingsStart, headingsEnd] = this.bounds;
    for (let k = 0; k < q.length; k++) {
      const position = at[k]!;
      const field =
        position <= titleEnd! ? 0 : position >= headingsStart! && position <= headingsEnd! ? 1 : 2;
      const clauses = counted.get(q[k]!);
      if (clauses) for (const c of clauses) this.counts[base + 3 * c + field]! += 1;
    }
    return true;
  }

  /**
   * The title and heading-path runs of the row `visitCombined` read, into `bounds`; false
   * when its A and B entries are not those runs (or reach the cap, where positions are shared).
   */
  private fieldRuns(): boolean {
    const occupied = this.occupied;
    let titleEnd = 0;
    while (occupied[titleEnd + 1] === 1) titleEnd++;
    let headingsEnd = titleEnd + 1;
    while (occupied[headingsEnd + 1] === 1) headingsEnd++;
    if (headingsEnd + 1 >= MAX_POSITION) return false;
    for (let k = 0; k < this.abPos.length; k++) {
      const p = this.abPos[k]!;
      const inRun = this.abField[k] === 0 ? p <= titleEnd : p > titleEnd + 1 && p <= headingsEnd;
      if (!inRun) return false;
    }
    this.bounds[0] = titleEnd;
    this.bounds[1] = titleEnd + 2;
    this.bounds[2] = headingsEnd;
    return true;
  }

  /** Adds a candidate's row (zero counts but its phrases'); its counts' start, or -1 when its language has no clause. */
  private push(
    id: number,
    lang: Language,
    title: number,
    headings: number,
    body: number,
    phrases: readonly number[],
  ): number {
    const row = this.ids.length;
    this.ids.push(id);
    this.seen.add(id);
    this.langs.push(lang);
    this.lengths.push(title, headings, body);
    const base = row * this.width;
    if (base + this.width > this.counts.length) {
      const grown = new Int32Array(Math.max(base + this.width, 2 * this.counts.length, 1024));
      grown.set(this.counts);
      this.counts = grown;
    }
    // The language's clauses decide what counts; a chunk in a language the plan lacks scores nothing.
    const holds = this.languages.has(lang);
    this.holds.push(holds);
    if (!holds) return -1;
    const champions = this.champions;
    for (let k = 0; k < this.phrases.length; k++) {
      let fields = phrases[k] ?? 0;
      if (champions) fields = champions.phraseFields(this.phrases[k]!, lang, id, fields);
      const at = base + 3 * this.phrases[k]!;
      for (let f = 0; f < 3; f++) this.counts[at + f] = (fields >> f) & 1;
    }
    // Listed terms: the counts their lists give this chunk, if it is in them.
    const rows = champions?.rowsOf(id);
    const listed = rows && this.listCounted.get(lang);
    if (listed) {
      for (let r = 0; r < rows.length; r += 2) {
        const clauses = listed.get(rows[r] as string);
        if (!clauses) continue;
        const c = unpackCounts(rows[r + 1] as number);
        for (const i of clauses) {
          for (let f = 0; f < 3; f++) this.counts[base + 3 * i + f]! += c[f]!;
        }
      }
    }
    return base;
  }

  /**
   * Adds one chunk from `q` (every position of the query's word and prefix terms it holds, as
   * `tsvector` text), `ab` (its title and heading-path entries, weights A and B) and `phrases`
   * (per phrase clause, the fields it occurs in: bit 0 title, 1 heading path, 2 body): a
   * position of a query term that `ab` gives weight A is in the title, B in the heading path,
   * any other in the body.
   */
  add(
    id: number,
    lang: Language,
    title: number,
    headings: number,
    body: number,
    q: string,
    ab: string,
    phrases: readonly number[],
  ): void {
    const base = this.push(id, lang, title, headings, body, phrases);
    if (base < 0) return;
    const counted = this.counted.get(lang);
    if (!counted || q === '') return;
    this.rowBase = base;
    this.rowCounted = counted;
    // The common case: the fields are ranges of positions, told apart without the terms.
    if (fieldBounds(ab, this.bounds)) {
      parseVector(q, this.visitQByRange);
      return;
    }
    this.abTerm.length = 0;
    this.abPos.length = 0;
    this.abField.length = 0;
    parseVector(ab, this.visitAb);
    parseVector(q, this.visitQ);
  }

  /**
   * Scores the candidates, in ascending chunk id order (the order SQLite's slots give ties and
   * sums), each on the plan's clauses in order; `within` (a raw query's matches) are
   * candidates even without a match.
   */
  score(stats: IndexStats, within: readonly number[] | undefined): Scorer {
    // Rows in ascending chunk id order (row -1: a raw query's match that was not fetched).
    let order: number[];
    if (within) {
      const rows = new Map<number, number>();
      for (let row = 0; row < this.ids.length; row++) rows.set(this.ids[row]!, row);
      const all = [...new Set([...this.ids, ...within])].sort((a, b) => a - b);
      order = all.map((id) => rows.get(id) ?? -1);
      return this.scoreRows(stats, order, all, true);
    }
    // They mostly come in that order already (a scan in insertion order).
    order = Array.from({ length: this.ids.length }, (_, row) => row);
    let sorted = true;
    for (let row = 1; row < this.ids.length && sorted; row++) {
      sorted = this.ids[row - 1]! < this.ids[row]!;
    }
    if (!sorted) order.sort((a, b) => this.ids[a]! - this.ids[b]!);
    return this.scoreRows(
      stats,
      order,
      order.map((row) => this.ids[row]!),
      false,
    );
  }

  private scoreRows(
    stats: IndexStats,
    order: readonly number[],
    ids: readonly number[],
    touchAll: boolean,
  ): Scorer {
    const scorer = new Scorer(this.plan, stats, ids.length);
    const lengths = [0, 0, 0];
    const n = this.plan.clauses.length;
    order.forEach((row, slot) => {
      const id = ids[slot]!;
      if (touchAll) scorer.touch(slot, id);
      if (row < 0 || !this.holds[row]) return;
      const lang = this.langs[row]!;
      lengths[0] = this.lengths[3 * row]!;
      lengths[1] = this.lengths[3 * row + 1]!;
      lengths[2] = this.lengths[3 * row + 2]!;
      const base = row * this.width;
      for (let i = 0; i < n; i++) {
        const t = this.counts[base + 3 * i]!;
        const h = this.counts[base + 3 * i + 1]!;
        const b = this.counts[base + 3 * i + 2]!;
        if (t + h + b > 0) scorer.add(i, slot, id, lang, lengths, t, h, b);
      }
    });
    return scorer;
  }
}

/**
 * Reads a chunk's title and heading-path entries (`tsvector` text of weights A and B) into the
 * fields' position ranges, without reading the terms: the writer (`chunkVector`) gives every
 * word of the title positions 1, 2, …, then those of the heading path after a gap, each
 * position to one word. When the entries show exactly that (A positions 1 to their count, B
 * positions a run as long as their count, all below the cap where positions are shared), sets
 * `out` to [title end, heading-path start, heading-path end] and returns true: a position of
 * the chunk is the title's up to the first, the heading path's within the other two, the
 * body's otherwise. Otherwise (a vector of another shape) returns false, and the entries must
 * be matched by term and position.
 */
export function fieldBounds(text: string, out: number[]): boolean {
  let countA = 0;
  let maxA = 0;
  let countB = 0;
  let minB = MAX_POSITION;
  let maxB = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (text.charCodeAt(i) !== 39) {
      i++;
      continue;
    }
    i = closingQuote(text, i + 1);
    if (i < 0) return false;
    i++;
    if (text.charCodeAt(i) !== 58) return false;
    i++;
    for (;;) {
      let p = 0;
      let c = text.charCodeAt(i);
      while (c >= 48 && c <= 57) {
        p = p * 10 + c - 48;
        c = text.charCodeAt(++i);
      }
      if (p < 1 || p >= MAX_POSITION) return false;
      if (c === 65) {
        countA++;
        if (p > maxA) maxA = p;
      } else if (c === 66) {
        countB++;
        if (p < minB) minB = p;
        if (p > maxB) maxB = p;
      } else return false;
      c = text.charCodeAt(++i);
      if (c !== 44) break;
      i++;
    }
  }
  if (countA !== maxA) return false;
  if (countB === 0) {
    minB = MAX_POSITION;
    maxB = 0;
  } else if (countB !== maxB - minB + 1 || minB <= maxA) return false;
  out[0] = maxA;
  out[1] = minB;
  out[2] = maxB;
  return true;
}

/**
 * Reads a vector of `Candidates.addCombined` (`tsvector` text): visits each position of a term
 * of weight C with the term, and each position of weight A (field 0) or B (field 1) without
 * it, never making those terms' strings. Returns false, having stopped, at a position of
 * another weight or a term without positions.
 */
export function parseCombined(
  text: string,
  visitTerm: (term: string, position: number) => void,
  visitField: (position: number, field: number) => void,
): boolean {
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (text.charCodeAt(i) !== 39) {
      i++;
      continue;
    }
    const start = i + 1;
    const end = closingQuote(text, start);
    if (end < 0) return false;
    i = end + 1;
    if (text.charCodeAt(i) !== 58) return false;
    i++;
    // The first position's weight tells a query term (C, every position) from the others.
    let j = i;
    while (text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
    let term: string | undefined;
    if (text.charCodeAt(j) === 67) {
      term = unquote(text, start, end);
    }
    for (;;) {
      let p = 0;
      let c = text.charCodeAt(i);
      while (c >= 48 && c <= 57) {
        p = p * 10 + c - 48;
        c = text.charCodeAt(++i);
      }
      if (c === 67 && term !== undefined) visitTerm(term, p);
      else if ((c === 65 || c === 66) && term === undefined) visitField(p, c - 65);
      else return false;
      c = text.charCodeAt(++i);
      if (c !== 44) break;
      i++;
    }
  }
  return true;
}

/**
 * The index of the quote closing a `tsvector` term whose text starts at `i` (just past its
 * opening quote), or -1 when the text ends first: a doubled quote is a quote, a backslash
 * escapes the next character.
 */
function closingQuote(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (Number.isNaN(c)) return -1;
    if (c === 92 || (c === 39 && text.charCodeAt(i + 1) === 39)) i += 2;
    else if (c === 39) return i;
    else i++;
  }
}

/** A quoted term of `tsvector` text between `start` and `end`, its escapes undone. */
function unquote(text: string, start: number, end: number): string {
  let k = start;
  while (k < end && text.charCodeAt(k) !== 92 && text.charCodeAt(k) !== 39) k++;
  if (k === end) return text.slice(start, end);
  let term = '';
  for (let i = start; i < end; i++) {
    const ch = text[i]!;
    if (ch === '\\' || (ch === "'" && text[i + 1] === "'")) {
      term += text[i + 1] ?? '';
      i++;
    } else term += ch;
  }
  return term;
}

/**
 * Reads `tsvector` text output (`'term':1A,2 'it''s':3B`; quotes and backslashes doubled) into
 * each term's positions with their weight letter ('D' when none is shown).
 */
export function parseVector(
  text: string,
  visit: (term: string, position: number, weight: string) => void,
): void {
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (text.charCodeAt(i) !== 39) {
      i++;
      continue;
    }
    const start = i + 1;
    const end = closingQuote(text, start);
    if (end < 0) return;
    const term = unquote(text, start, end);
    i = end + 1;
    if (text.charCodeAt(i) !== 58) continue;
    i++;
    for (;;) {
      let p = 0;
      let c = text.charCodeAt(i);
      while (c >= 48 && c <= 57) {
        p = p * 10 + c - 48;
        c = text.charCodeAt(++i);
      }
      let weight = 'D';
      if (c >= 65 && c <= 68) {
        weight = text[i]!;
        c = text.charCodeAt(++i);
      }
      visit(term, p, weight);
      if (c !== 44) break;
      i++;
    }
  }
}
