// The agent scenario's pure parts: which words an agent greps for, where in a file it reads,
// and whether a text it read holds the answer section.

/**
 * English words an agent leaves out of a grep (question words, articles, pronouns, auxiliaries).
 * The bench's own list: it stands for the agent's judgement, not for Lectern's analysis.
 */
const GREP_STOP = new Set(
  (
    'a about after again all also am an and any are as at be been before being between both but ' +
    'by can could did do does doing don done each else even ever every few for from get gets got ' +
    'had has have having he her here him his how i if in into is it its just let like make makes ' +
    'me more most my need no nor not now of off on once one only or other our out over own same ' +
    'she should so some such than that the their them then there these they this those through ' +
    'to too under until up use used using very want was way we were what when where which while ' +
    'who whom why will with without would yet you your'
  ).split(' '),
);

/**
 * The words an agent greps for: the question's words (letters and digits) without the ones
 * above, lower-cased, each cut to a stem-like prefix (a trailing plural `s`/`es` or `ing`/`ed`
 * dropped) so a case-insensitive substring grep meets `vector` and `vectors` alike.
 */
export function grepWords(question) {
  const out = [];
  for (const m of question.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    const w = m[0];
    if (GREP_STOP.has(w) || w.length < 2) continue;
    let s = w;
    if (s.length > 5 && s.endsWith('ing')) s = s.slice(0, -3);
    else if (s.length > 4 && s.endsWith('ed')) s = s.slice(0, -2);
    else if (s.length > 4 && s.endsWith('es') && !s.endsWith('ses')) s = s.slice(0, -1);
    else if (s.length > 3 && s.endsWith('s') && !s.endsWith('ss')) s = s.slice(0, -1);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

/**
 * What "the answer was read" means, the same for both agents: the text read holds the answer
 * section's heading line and the start of its own body (its first `bodyChars` characters, or all
 * of it when shorter). `gold` is `{ headingLine, bodyStart }` from {@link goldOf}.
 */
export function holdsAnswer(text, gold) {
  return text.includes(gold.headingLine) && text.includes(gold.bodyStart);
}

/** Characters of the answer section's own body that must have been read. */
export const BODY_CHARS = 400;

/**
 * The gold of a section from its Markdown as `docs_read` gives it without subsections: the
 * heading line, and the first {@link BODY_CHARS} characters of the body after it (blank lines
 * at its start skipped; cut at a line end when one falls in the last fifth, so a judge never
 * hangs on half a word).
 */
export function goldOf(sectionMarkdown) {
  const nl = sectionMarkdown.indexOf('\n');
  const headingLine = (nl === -1 ? sectionMarkdown : sectionMarkdown.slice(0, nl)).trimEnd();
  const body = nl === -1 ? '' : sectionMarkdown.slice(nl + 1).replace(/^\s*\n/, '');
  let bodyStart = body.slice(0, BODY_CHARS);
  const cut = bodyStart.lastIndexOf('\n');
  if (bodyStart.length === BODY_CHARS && cut > BODY_CHARS * 0.8)
    bodyStart = bodyStart.slice(0, cut);
  return { headingLine, bodyStart: bodyStart.trimEnd() };
}

/**
 * Where a grep agent reads a file, from `rg -n` lines (`{ line, text }`) for its words: the
 * line that starts the densest window (most distinct words within `span` lines), then the
 * cheaper of `head` (lines 1 to the window's end) and `tail` (the window's start to the end),
 * as read_text_file allows one or the other. Returns `{ head }` or `{ tail }`.
 */
export function readPlan(matches, words, totalLines, { span = 30, before = 10, after = 60 } = {}) {
  let best = matches[0]?.line ?? 1;
  let bestScore = -1;
  for (const m of matches) {
    const seen = new Set();
    for (const n of matches) {
      if (n.line < m.line || n.line > m.line + span) continue;
      const lower = n.text.toLowerCase();
      for (const w of words) if (lower.includes(w)) seen.add(w);
    }
    if (seen.size > bestScore) {
      bestScore = seen.size;
      best = m.line;
    }
  }
  const head = Math.min(totalLines, best + after);
  const from = Math.max(1, best - before);
  const tail = totalLines - from + 1;
  return tail < head ? { tail } : { head };
}
