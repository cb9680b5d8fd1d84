// Text rules of a batch that need no wiki: the log entry's format and the key that tells two
// page names apart.

/**
 * Lines of a log text that Markdown would read as a heading (ATX `#`, or a setext underline
 * `===`/`---` turning the line above into one), as the start of a fenced code block or an
 * HTML block (either would swallow the entries after it). Escaped with a backslash, they show
 * as written and can never pass for one of the log's own dated entry headings. (`#tag` is a tag,
 * not a heading, and stays.)
 */
const LOG_STRUCTURE_RE = /^( {0,3})(#{1,6}(?=\s|$)|=+\s*$|-+\s*$|`{3}|~{3}|<)/;

function escapeLogLine(line: string): string {
  return line.replace(LOG_STRUCTURE_RE, '$1\\$2');
}

/** Formats the dated log.md entry for a batch. */
export function formatLogEntry(text: string, summary: string[], now: Date): string {
  const stamp = `${now.toISOString().slice(0, 10)} ${now.toISOString().slice(11, 16)} UTC`;
  const lines = text.trim().split(/\r?\n/);
  const head = lines[0]!.trim();
  const rest = lines.slice(1).map(escapeLogLine).join('\n').trim();
  let entry = `## [${stamp}] ${head}\n`;
  if (rest !== '') entry += `\n${rest}\n`;
  if (summary.length > 0) entry += `\nChanged: ${summary.join('; ')}.\n`;
  return entry;
}

/**
 * What two paths must not share to be two pages: their text after Unicode NFC normalisation
 * and lower-casing (`Café.md` composed and decomposed, or `Notes.md` and `notes.md`, are one
 * name to a reader and to links).
 */
export function nameKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}
