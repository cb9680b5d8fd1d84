import { isUtf8 } from 'node:buffer';
import type { Dirent } from 'node:fs';
import type { OpenedDir } from './guard.js';
import { escapeInvalidUtf8 } from './text.js';

/** Entries of one folder listing whose names are not valid UTF-8. */
export interface UnnamedEntries {
  /** Their names as readdir decoded them (with U+FFFD): to leave out of the listing. */
  lossy: Set<string>;
  /**
   * Their names with each invalid byte as `\xHH`, whether each is a folder, and the listing's
   * entry for it (undefined when the decoded name matched none), sorted by shown name.
   */
  shown: Array<{ name: string; isDir: boolean; entry: Dirent | undefined }>;
}

/**
 * The entries of a listing whose names are not valid UTF-8: readdir decodes them with U+FFFD,
 * a name that finds no file, so a walk would drop them without a word. Undefined when every
 * name is valid (the common case costs one scan for U+FFFD). Symbolic links are left out of
 * `shown` (walks skip links whatever their name) unless `keepLinks`.
 */
export function unnamedEntries(
  dir: OpenedDir,
  entries: readonly Dirent[],
  options: { keepLinks?: boolean } = {},
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
    if (entry?.isSymbolicLink() && !options.keepLinks) continue;
    out.shown.push({ name: escapeInvalidUtf8(bytes), isDir: entry?.isDirectory() ?? false, entry });
  }
  out.shown.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}
