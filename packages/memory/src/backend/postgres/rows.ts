import type { ChunkRecord, FileRecord, StoredFile } from '../types.js';
import { chunkVector } from './text.js';

// The rows the PostgreSQL writer reads and writes: files as it keeps them, and the column
// arrays its statements take (one array per column, unnested by the statement).

/** A file's key in the writer's maps: `<source>/<path>`. */
export const key = (source: string, path: string) => `${source}/${path}`;

/** A file as the writer knows it: this process's view of its stat, plus shared-row facts. */
export interface PgFile extends StoredFile {
  chunks: number;
  /** The origin whose stat the shared row holds. */
  origin: string;
}

/**
 * The committed files as the backend last read them, kept between reindexes while no other
 * process commits (`generation` tells).
 */
export interface WriterCache {
  generation: string;
  files: Map<string, PgFile>;
  byId: Map<number, PgFile>;
}

/** A row of `allFiles` / `fileByPath`. */
export interface FileRow {
  id: string;
  source: string;
  path: string;
  size: string;
  mtime: number;
  ino: number;
  sha256: string;
  racy: boolean;
  chunks: number;
  origin: string;
}

export function toFile(r: FileRow): PgFile {
  return {
    id: Number(r.id),
    source: r.source,
    path: r.path,
    size: Number(r.size),
    mtime: r.mtime,
    ino: r.ino,
    sha256: r.sha256,
    racy: r.racy,
    chunks: r.chunks,
    origin: r.origin,
  };
}

/** The twelve column arrays of `insertFiles` / `updateFiles`. */
export function fileColumns(
  rows: ReadonlyArray<{ id: number; file: FileRecord; chunks: number }>,
  originOf: (file: FileRecord) => string,
): unknown[][] {
  return [
    rows.map((r) => r.id),
    rows.map((r) => r.file.source),
    rows.map((r) => r.file.path),
    rows.map((r) => r.file.size),
    rows.map((r) => r.file.mtime),
    rows.map((r) => r.file.ino),
    rows.map((r) => r.file.sha256),
    rows.map((r) => r.file.indexedAt),
    rows.map((r) => r.file.racy),
    rows.map((r) => r.file.language),
    rows.map((r) => r.chunks),
    rows.map((r) => originOf(r.file)),
  ];
}

/**
 * The column arrays of `insertChunks` (`numbered`: the chunks the writer numbered, with their
 * ids as a twelfth column) or `insertChunksNumbered` (the others), and the analysis of each of
 * the latter by `<file id>:<first line>`, as the statement returns them.
 */
export function chunkColumns(
  list: ReadonlyArray<{
    id: number;
    chunks: readonly ChunkRecord[];
    ids: readonly number[] | undefined;
  }>,
  numbered: boolean,
): { cols: unknown[][]; fields: Map<string, ChunkRecord['fields']> } {
  const cols: unknown[][] = [[], [], [], [], [], [], [], [], [], [], []];
  if (numbered) cols.push([]);
  const fields = new Map<string, ChunkRecord['fields']>();
  for (const o of list) {
    if ((o.ids !== undefined) !== numbered) continue;
    for (const [k, ch] of o.chunks.entries()) {
      cols[0]!.push(o.id);
      cols[1]!.push(ch.startLine);
      cols[2]!.push(ch.endLine);
      cols[3]!.push(ch.startByte);
      cols[4]!.push(ch.endByte);
      cols[5]!.push(ch.headingPath);
      cols[6]!.push(ch.fields.language);
      cols[7]!.push(ch.fields.title.length);
      cols[8]!.push(ch.fields.headings.length);
      cols[9]!.push(ch.fields.body.length);
      cols[10]!.push(chunkVector(ch.fields));
      if (numbered) cols[11]!.push(o.ids![k]);
      else fields.set(`${o.id}:${ch.startLine}`, ch.fields);
    }
  }
  return { cols, fields };
}
