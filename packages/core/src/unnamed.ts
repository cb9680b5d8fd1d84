import { isUtf8 } from 'node:buffer';
import type { Dirent } from 'node:fs';
import type { OpenedDir } from './guard.js';
import { escapeInvalidUtf8 } from './text.js';

/** Entries of one folder listing whose names are not valid UTF-8. */
export interface UnnamedEntries {
  /** Their names as readdir decoded them (with U+FFFD): to leave out of the listing. */
  lossy: Set<string>;
  /** Their names with each invalid byte as `\xHH`, and whether each is a folder. */
  shown: Array<{ name: string; isDir: boolean }>;
}

/**
 * The entries of a listing whose names are not valid UTF-8: readdir decodes them with U+FFFD,
 * a name that finds no file, so a walk would drop them without a word. Undefined when every
 * name is valid (the common case costs one scan for U+FFFD).
 */
export function unnamedEntries(
  dir: OpenedDir,
  entries: readonly Dirent[],
): UnnamedEntries | undefined {
  if (!entries.some((e) => e.name.includes('\uFFFD'))) return undefined;
  let raw: Buffer[];
  try {
    raw = dir.listRaw();
  } catch {
    return undefined;
  }
  const byName = new Map(entries.map((e) => [e.name, e]));
  const out: UnnamedEntries = { lossy: new Set(), shown: [] };
  for (const bytes of raw) {
    if (isUtf8(bytes)) continue;
    const decoded = bytes.toString('utf8');
    out.lossy.add(decoded);
    const entry = byName.get(decoded);
    if (entry?.isSymbolicLink()) continue; // links are skipped whatever their name
    out.shown.push({ name: escapeInvalidUtf8(bytes), isDir: entry?.isDirectory() ?? false });
  }
  out.shown.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}
