import { buildDocument, type ParserUsed } from '@lectern/markdown';
import { fileLines, fillHeadingPaths, type StoredModel, storeModel } from './stored.js';

/*
 * Parsing a file's bytes into what the index stores. Shared by the calling thread and the
 * parse worker thread (see parse-pool.ts), so both give the same stored model.
 */

/** A file parsed into its stored model. */
export interface ParsedFile {
  stored: StoredModel;
  /** Length of the parsed text in UTF-16 code units (byte-order marks excluded). */
  chars: number;
  parser: ParserUsed;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes a file's bytes as `@lectern/core`'s `decodeUtf8` does (one leading byte-order mark
 * stripped) and parses them; null when they are not text (a NUL byte or malformed UTF-8), so
 * the caller can decode them with `decodeUtf8` for the exact error. `release` is called once
 * the bytes are no longer read (decoded and their line table made), before the parse.
 */
export function parseFileBytes(bytes: Uint8Array, release?: () => void): ParsedFile | null {
  if (bytes.indexOf(0) !== -1) return null;
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  let text: string;
  try {
    text = decoder.decode(bom ? bytes.subarray(3) : bytes);
  } catch {
    return null;
  }
  const lines = fileLines(bytes, text, bom);
  release?.(); // the bytes are not needed past this point
  const model = buildDocument(text);
  return { stored: storeModel(model, lines), chars: model.text.length, parser: model.parser };
}

/** The buffers of a stored model, to transfer it between threads without copying. */
export function transferablesOf(stored: StoredModel): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const a of [
    stored.lines.starts,
    stored.blocks,
    stored.outline.sectionChars,
    stored.outline.sectionStarts,
  ]) {
    if (a.buffer instanceof ArrayBuffer && a.byteLength > 0) out.add(a.buffer);
  }
  return [...out];
}

/**
 * Empties the heading paths of a parsed file's sections before it is sent to another thread:
 * a structured clone copies every string of every path (a heading once more for each section
 * under it), where {@link restoreHeadingPaths} rebuilds them there sharing the headings.
 */
export function dropHeadingPaths(parsed: ParsedFile): ParsedFile {
  for (const s of parsed.stored.outline.sections) s.headingPath = [];
  return parsed;
}

/** Rebuilds the heading paths {@link dropHeadingPaths} emptied, as `storeModel` makes them. */
export function restoreHeadingPaths(parsed: ParsedFile): ParsedFile {
  fillHeadingPaths(parsed.stored.outline.sections);
  return parsed;
}
