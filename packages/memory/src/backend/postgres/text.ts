import type { AnalysedChunk } from '../../lib/analysis.js';

/**
 * A lexeme quoted for `tsvector` and `tsquery` text: in single quotes, a quote doubled and a
 * backslash escaped, so any term (quotes, colons, spaces) is one lexeme.
 */
export function quoteLexeme(term: string): string {
  // An indexed term is letters, digits and marks: nothing to escape (a rebuild quotes millions).
  if (!term.includes("'") && !term.includes('\\')) return `'${term}'`;
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** Most positions PostgreSQL keeps in a `tsvector` (later ones are stored as this one). */
const MAX_POSITION = 16383;

/** Weight label of each field in a chunk's vector: title, heading path, body. */
const LABELS = ['A', 'B', ''] as const;

/**
 * A chunk's analysed terms as `tsvector` text: every term (stop words included, so phrases
 * keep their positions) with its positions, the title first, then the heading path, then the
 * body, each field one position past the previous one's end (a phrase never spans two), and
 * labelled A (title), B (heading path) or D (body, PostgreSQL's default label).
 */
export function chunkVector(fields: AnalysedChunk): string {
  const at = new Map<string, string[]>();
  let position = 0;
  [fields.title, fields.headings, fields.body].forEach((field, f) => {
    for (const term of field.terms) {
      position = Math.min(position + 1, MAX_POSITION);
      const list = at.get(term);
      const p = `${position}${LABELS[f]}`;
      if (list) list.push(p);
      else at.set(term, [p]);
    }
    position++;
  });
  const parts: string[] = [];
  for (const [term, list] of at) {
    parts.push(`${quoteLexeme(term)}:${list.join(',')}`);
  }
  return parts.join(' ');
}
