import { editDistance, isToolError, resolveInRoot, suggest } from '@lectern/core';
import type { MemoryBackend } from './backend/types.js';
import { MemoryError } from './lib/errors.js';
import type { Language } from './lib/language.js';
import type { StatWorker } from './lib/stat-worker.js';
import type { ResolvedSource } from './lib/walk.js';
import type { SourceWatcher } from './lib/watch.js';

/** What the parts of a store (indexer, search, fragments, status) share. */
export interface StoreContext {
  /** Configured sources, in order. */
  sources: readonly ResolvedSource[];
  byId: ReadonlyMap<string, ResolvedSource>;
  sourceIds: readonly string[];
  backend: MemoryBackend;
  limits: {
    maxFileBytes: number;
    maxChunkWords: number;
    busyTimeoutMs: number;
    /** Byte budget of one search or fragment response. */
    maxOutputBytes: number;
  };
  /** Language of notes that declare none. */
  language: Language;
  /** The helper thread that stats part of a large source's files during a reindex walk. */
  statWorker?: StatWorker;
  /** Change watchers of the sources, by source id, when the store watches (`watch: true`). */
  watchers?: ReadonlyMap<string, SourceWatcher>;
}

/** `<source id>/<path in the source>`: how every path is shown. */
export const fileKey = (source: string, path: string) => `${source}/${path}`;

/** A configured source by id, or `UNKNOWN_SOURCE` naming the valid ones. */
export function sourceById(ctx: StoreContext, id: string): ResolvedSource {
  const s = ctx.byId.get(id);
  if (!s) {
    throw new MemoryError(
      'UNKNOWN_SOURCE',
      `source "${id}" does not exist; sources are: ${ctx.sourceIds.join(', ')}.`,
      { param: 'source', suggestions: suggest(id, ctx.sourceIds, { max: 3 }) },
    );
  }
  return s;
}

/** Splits `<source>/<path>` and normalises the path with the source's root guard. */
export function parseFilePath(
  ctx: StoreContext,
  path: string,
): { source: ResolvedSource; rel: string } {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new MemoryError(
      'INVALID_PATH',
      '{param:path} is empty; pass a path as returned by a search.',
      { param: 'path' },
    );
  }
  const trimmed = path.replace(/^\.?\/+/, '');
  const slash = trimmed.indexOf('/');
  const id = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const source = ctx.byId.get(id);
  if (!source) {
    throw new MemoryError(
      'UNKNOWN_SOURCE',
      `{param:path} ${JSON.stringify(path)} must start with a source id (${ctx.sourceIds.join(', ')}), then the file's path in that source, as search results give it.`,
      { param: 'path', suggestions: ctx.sourceIds.map((s) => `${s}/${trimmed}`).slice(0, 3) },
    );
  }
  let rel: string;
  try {
    rel = resolveInRoot(source.root, slash === -1 ? '' : trimmed.slice(slash + 1)).relative;
  } catch (error) {
    throw isToolError(error) ? MemoryError.about(error, 'path') : error;
  }
  if (rel === '') {
    throw new MemoryError(
      'INVALID_PATH',
      `{param:path} ${JSON.stringify(path)} names the source folder, not a file.`,
      { param: 'path' },
    );
  }
  return { source, rel };
}

/** Up to five candidates close to `input`: within 40% of its length in edits, or sharing its file name. */
export function closest(input: string, candidates: Iterable<string>): string[] {
  const base = input.slice(input.lastIndexOf('/') + 1).toLowerCase();
  const limit = Math.max(2, Math.floor(input.length * 0.4));
  return suggest(input, candidates, { max: 50 })
    .filter(
      (c) =>
        editDistance(c.toLowerCase(), input.toLowerCase()) <= limit ||
        c.slice(c.lastIndexOf('/') + 1).toLowerCase() === base,
    )
    .slice(0, 5);
}
