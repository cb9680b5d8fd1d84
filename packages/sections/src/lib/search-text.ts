/**
 * The text block of a docs_search answer: what an agent's client puts into the model's context.
 * The structured content keeps every field as JSON; the text says the same hits in far fewer
 * tokens, without field names, doc_id/path/level (in the anchor) or scores (the order).
 */

/** The fields of one docs_search hit the text shows. */
export interface SearchTextHit {
  anchor: string;
  heading: string;
  heading_path: readonly string[];
  start_line: number;
  end_line: number;
  snippet: string;
}

/** The docs_search answer fields the text shows. */
export interface SearchTextAnswer {
  results: readonly SearchTextHit[];
  total: number;
  offset: number;
  next_offset: number | null;
}

/** One line, whitespace runs (newlines of a snippet or heading) made single spaces. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * One line per hit, best first: `<anchor> L<start>-<end> <heading path joined by " > ">: <snippet>`,
 * then a line saying which hits these are of how many and the offset of the next page.
 */
export function searchText(answer: SearchTextAnswer): string {
  const lines = answer.results.map((r) => {
    const where = r.heading_path.length > 0 ? r.heading_path.join(' > ') : r.heading;
    return `${r.anchor} L${r.start_line}-${r.end_line} ${oneLine(where)}: ${oneLine(r.snippet)}`;
  });
  const n = answer.results.length;
  const shown =
    n === 0
      ? `No sections at offset ${answer.offset} of ${answer.total} matching.`
      : `Sections ${answer.offset + 1}-${answer.offset + n} of ${answer.total} matching, best first.`;
  lines.push(
    answer.next_offset === null
      ? `${shown} No more pages.`
      : `${shown} More: offset=${answer.next_offset}.`,
  );
  return lines.join('\n');
}
