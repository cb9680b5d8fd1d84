import type { Language } from '@lectern/text';
import type { SearchHit } from './types.js';

/**
 * A search hit from a backend's page-details row (the columns both backends' `hitDetails`
 * select: chunk place, heading path, language, file identity and stat) and its score.
 * PostgreSQL hands bigint columns over as text, hence the conversions.
 */
export function hitFromRow(d: Record<string, unknown>, score: number): SearchHit {
  return {
    source: d.source as string,
    path: d.path as string,
    startLine: Number(d.start_line),
    endLine: Number(d.end_line),
    startByte: Number(d.start_byte),
    endByte: Number(d.end_byte),
    headingPath: d.heading_path as string,
    score,
    language: d.lang as Language,
    version: d.sha256 as string,
    size: Number(d.size),
    mtime: Number(d.mtime),
  };
}
