/*
 * The text of a section as a reader sees it, for the search index and snippets: Markdown and
 * HTML markup that is never shown (a code fence's info string, HTML comments and tags, link
 * destinations and reference definitions) is left out, so that `rust,ignore` on a fence, an
 * `<!-- old headings -->` note or `file-name="src/main.rs"` on a tag do not count as words of
 * the section. Code inside fences and code spans is kept whole: it is shown, and searched for.
 */

/** HTML attributes whose values a reader sees (or a screen reader reads out). */
const SHOWN_ATTRIBUTES = new Set(['alt', 'title', 'caption', 'aria-label', 'label', 'summary']);

/** An opening fence: up to three spaces, then three or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** A link reference definition (`[label]: destination "title"`), never shown. */
const REFERENCE_DEFINITION = /^ {0,3}\[(?:[^\]\\]|\\.)+\]:[ \t]*\S/;

/** An inline link's or image's destination and title: `](url "title")`. */
const DESTINATION =
  /\]\((?:<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;

/**
 * An HTML open or close tag (CommonMark's raw HTML). An open tag right after a letter or digit
 * is not read as one: that is a type's parameters in prose (`Vec<T>`), not markup.
 */
const TAG =
  /<\/([A-Za-z][A-Za-z0-9-]*)()\s*>|(?<![\p{L}\p{N}_])<([A-Za-z][A-Za-z0-9-]*)((?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/gu;

/** One attribute of a tag, with its value. */
const ATTRIBUTE = /([A-Za-z_:][\w.:-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** The values of a tag's {@link SHOWN_ATTRIBUTES}, separated by spaces. */
function shownValues(attributes: string): string {
  const out: string[] = [];
  for (const m of attributes.matchAll(ATTRIBUTE)) {
    if (!SHOWN_ATTRIBUTES.has(m[1]!.toLowerCase())) continue;
    const value = m[2] ?? m[3] ?? m[4];
    if (value) out.push(value);
  }
  return out.join(' ');
}

/** A line's text outside code spans with markup removed; code spans kept as they are. */
function lineProse(line: string): string {
  if (!line.includes('<') && !line.includes('](')) return line;
  // Code spans on one line: the parts between backtick runs alternate prose and code.
  const parts = line.split(/(`+)/);
  let out = '';
  let open: string | null = null;
  for (const part of parts) {
    if (part.startsWith('`')) {
      if (open === null) open = part;
      else if (part === open) open = null;
      out += part;
      continue;
    }
    if (open !== null) {
      out += part;
      continue;
    }
    out += part.replace(DESTINATION, ']').replace(TAG, (...m: Array<string | undefined>) => {
      const attrs = m[4];
      const shown = attrs ? shownValues(attrs) : '';
      return shown ? ` ${shown} ` : ' ';
    });
  }
  return out;
}

/**
 * The shown text of a Markdown section body: fence lines (with their info strings), HTML
 * comments, HTML tags (but the text between them, and their `alt`, `title` and `caption`
 * values, are kept), link destinations and link reference definitions are left out; every
 * other line is kept, in order, code included.
 */
export function proseOf(markdown: string): string {
  if (!/[<`~\]]/.test(markdown)) return markdown;
  const lines = markdown.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  let inComment = false;
  for (const raw of lines) {
    let line = raw;
    if (fence !== null) {
      const m = FENCE.exec(line);
      if (
        m &&
        m[1]![0] === fence[0] &&
        m[1]!.length >= fence.length &&
        /^\s*$/.test(line.slice(m[0].length))
      ) {
        fence = null;
        continue;
      }
      out.push(line);
      continue;
    }
    if (inComment) {
      const end = line.indexOf('-->');
      if (end === -1) continue;
      inComment = false;
      line = line.slice(end + 3);
    }
    const m = FENCE.exec(line);
    if (m && !(m[1]![0] === '`' && line.slice(m[0].length).includes('`'))) {
      fence = m[1]!;
      continue;
    }
    if (REFERENCE_DEFINITION.test(line)) continue;
    // HTML comments, whole or opening here and closing on a later line.
    let text = '';
    let from = 0;
    for (;;) {
      const start = line.indexOf('<!--', from);
      if (start === -1) {
        text += line.slice(from);
        break;
      }
      text += `${line.slice(from, start)} `;
      const end = line.indexOf('-->', start + 4);
      if (end === -1) {
        inComment = true;
        break;
      }
      from = end + 3;
    }
    out.push(lineProse(text));
  }
  return out.join('\n');
}
