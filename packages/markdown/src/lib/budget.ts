/*
 * What remark may be asked to parse. micromark (remark's parser) is quadratic or worse on
 * some inputs: deeply nested containers (a line of 2,000 `- ` takes seconds and 8,000 overflow
 * its stack), long containers (a block quote or a nested list of 8,000 lines takes seconds to
 * tens of seconds, four times the lines taking sixteen times as long), long runs of emphasis
 * delimiters or brackets in one paragraph, very wide table rows. The scanner asks remark only about text that passes this linear check; anything else
 * it decides itself.
 */

/** Largest window of lines handed to remark while scanning. */
export const REMARK_WINDOW_CHARS = 64 * 1024;
/** Largest whole document handed to remark (when a window cannot be cut out of it). */
export const REMARK_DOCUMENT_CHARS = 128 * 1024;
/** Largest heading source handed to remark for its inline text. */
export const REMARK_HEADING_CHARS = 4 * 1024;
/**
 * Most characters of heading sources handed to remark for their inline text, per document
 * (headings with links, entities or HTML; remark costs tens of microseconds per heading, so
 * 100,000 of them took a minute). Later ones are decided in windows or read without remark.
 */
export const REMARK_HEADINGS_TOTAL_CHARS = 32 * 1024;
/** Most characters of one document handed to remark in windows, all windows together. */
export const REMARK_TOTAL_CHARS = 128 * 1024;

const MAX_MARKERS = 16;
const MAX_INDENT = 128;
const MAX_PIPES = 128;
/** Lines that may sit in a container (a marker or two columns of indentation at the start). */
const MAX_CONTAINER_LINES = 300;
/** Sum over paragraphs of (delimiters in the paragraph)²: micromark's inline work bound. */
const MAX_DELIMITER_WORK = 4_000_000;

/**
 * True when remark can parse `text` in time linear in its length: at most `maxChars`
 * characters, no line opening more than 16 containers or indented past column 128, at most
 * 300 lines that start with a container marker or indentation, no line with more than 128
 * pipes, and few enough emphasis, bracket, code and HTML delimiters per paragraph. Linear in
 * `text`.
 */
export function remarkAffordable(text: string, maxChars: number): boolean {
  const n = text.length;
  if (n > maxChars) return false;
  let work = 0;
  let para = 0;
  let containerLines = 0;
  let i = 0;
  while (i < n) {
    // container prefix of the line
    let markers = 0;
    let cols = 0;
    let blank = true;
    for (;;) {
      let c = text.charCodeAt(i);
      while (c === 32 || c === 9) {
        cols += c === 9 ? 4 : 1;
        c = text.charCodeAt(++i);
      }
      if (c === 62) {
        markers++;
        i++;
        continue;
      }
      if (c === 45 || c === 42 || c === 43) {
        const d = text.charCodeAt(i + 1);
        if (d === 32 || d === 9) {
          markers++;
          i += 2;
          cols += 2;
          continue;
        }
      } else if (c >= 48 && c <= 57) {
        let k = i;
        while (k < n && k - i < 10 && text.charCodeAt(k) >= 48 && text.charCodeAt(k) <= 57) k++;
        const d = text.charCodeAt(k);
        const e = text.charCodeAt(k + 1);
        if ((d === 46 || d === 41) && (e === 32 || e === 9)) {
          markers++;
          cols += k + 2 - i;
          i = k + 2;
          continue;
        }
      }
      break;
    }
    if (markers > MAX_MARKERS || cols > MAX_INDENT) return false;
    if ((markers > 0 || cols >= 2) && ++containerLines > MAX_CONTAINER_LINES) return false;
    // the rest of the line
    let pipes = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) break;
      switch (c) {
        case 32:
        case 9:
          continue;
        case 124:
          pipes++;
          break;
        case 42:
        case 95:
        case 91:
        case 93:
        case 60:
        case 96:
        case 126:
          para++;
          break;
      }
      blank = false;
    }
    if (pipes > MAX_PIPES) return false;
    if (blank) {
      work += para * para;
      para = 0;
      if (work > MAX_DELIMITER_WORK) return false;
    }
    i++;
  }
  work += para * para;
  return work <= MAX_DELIMITER_WORK;
}
