import { closeSync, readSync } from 'node:fs';
import { jsonBytes, OutputBudget, openInRootSync } from '@lectern/core';
import { RawQueryError, type SearchHit } from './backend/types.js';
import { fileKey, type StoreContext, sourceById } from './context.js';
import { championTuning } from './lib/champions.js';
import { MemoryError } from './lib/errors.js';
import { compilePathGlob } from './lib/path-glob.js';
import { parseQuery, type QueryTerm, queryTerms } from './lib/query.js';
import { checkRawSyntax } from './lib/raw-guard.js';
import { type Highlight, highlightOf, makeSnippet } from './lib/snippet.js';
import { changeTime } from './lib/walk.js';
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_QUERY_CHARS,
  MAX_RANKED_CHUNKS,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_OFFSET,
  MAX_SEARCH_OUTPUT_BYTES,
} from './limits.js';
import type { Citation, SearchOptions, SearchResult } from './types.js';

/** Bytes kept for the result's fixed fields and warnings, beside fts_query and the citations. */
const SEARCH_RESERVED_BYTES = 8 * 1024;

/** Most bytes of one chunk read back for its snippet. */
const SNIPPET_READ_BYTES = 64 * 1024;

/** Words of a raw query that are operators or column names, never highlighted. */
const RAW_SYNTAX = new Set(['and', 'or', 'not', 'near', 'heading_path', 'body']);

const lenient = new TextDecoder('utf-8', { fatal: false });

/** Checks search options before any work: every refusal names its parameter as data. */
export function checkSearch(ctx: StoreContext, options: SearchOptions) {
  const query = options.query;
  if (typeof query !== 'string' || query.trim() === '') {
    throw new MemoryError(
      'EMPTY_QUERY',
      '{param:query} is empty; give at least one word to search for.',
      { param: 'query' },
    );
  }
  if (query.length > MAX_QUERY_CHARS) {
    throw new MemoryError(
      'QUERY_TOO_LONG',
      `{param:query} is ${query.length} characters; at most ${MAX_QUERY_CHARS} are allowed.`,
      { param: 'query' },
    );
  }
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new MemoryError(
      'INVALID_LIMIT',
      `{param:limit} must be a whole number from 1 to ${MAX_SEARCH_LIMIT}, got ${limit}.`,
      { param: 'limit' },
    );
  }
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0 || offset > MAX_SEARCH_OFFSET) {
    throw new MemoryError(
      'INVALID_OFFSET',
      `{param:offset} must be a whole number from 0 to ${MAX_SEARCH_OFFSET}, got ${offset}.`,
      { param: 'offset' },
    );
  }
  if (options.source !== undefined) sourceById(ctx, options.source);
  let pathFilter: ((source: string, path: string) => boolean) | undefined;
  if (options.pathGlob !== undefined) {
    const glob = options.pathGlob.trim();
    if (glob === '') {
      throw new MemoryError(
        'INVALID_GLOB',
        '{param:pathGlob} is empty; omit it or give a glob such as `projects/**/*.md`.',
        { param: 'pathGlob' },
      );
    }
    const m = compilePathGlob(glob);
    pathFilter = (source, path) => m(path) || m(fileKey(source, path));
  }
  const raw = options.raw === true;
  if (raw) checkRawSyntax(query);
  // Parse first, so a query without words fails before any indexing work.
  const terms = raw ? [] : queryTerms(query);
  return { query, limit, offset, raw, terms, pathFilter };
}

/** The words of a raw query worth highlighting (its operators and column names left out). */
function rawTerms(text: string): QueryTerm[] {
  return parseQuery(text).filter(
    (t) => t.words.length > 1 || !RAW_SYNTAX.has(t.words[0]!.toLowerCase()),
  );
}

/**
 * Longest heading path or snippet a citation carries, in characters: one enormous heading or
 * paragraph is cut with a marker (memory_read_fragment of the citation's lines reads all of it),
 * so a page of citations stays small whatever the notes hold.
 */
export const MAX_CITATION_TEXT_CHARS = 1000;

/** `text` up to `max` characters (never splitting a surrogate pair), then a cut marker. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… [cut: ${text.length} characters; read the lines for the rest]`;
}

/**
 * Runs a checked search against the backend and turns its hits into citations: the stale
 * flag and the snippet come from the file on disk, read once per cited file through the root
 * guard (only the cited byte ranges).
 */
export async function runSearch(
  ctx: StoreContext,
  checked: ReturnType<typeof checkSearch>,
  source: string | undefined,
  maxBytes = MAX_SEARCH_OUTPUT_BYTES,
): Promise<SearchResult> {
  let page: Awaited<ReturnType<typeof ctx.backend.search>>;
  try {
    // A raw expression is timed off the server's thread first where the backend can (SQLite).
    if (checked.raw) await ctx.backend.checkRaw?.(checked.query);
    page = await ctx.backend.search({
      query: checked.raw
        ? { kind: 'raw', text: checked.query }
        : { kind: 'text', text: checked.query },
      source,
      pathFilter: checked.pathFilter,
      limit: checked.limit,
      offset: checked.offset,
    });
  } catch (error) {
    if (error instanceof RawQueryError) {
      throw new MemoryError(
        'INVALID_QUERY',
        `{param:query} is not valid ${error.syntax} syntax (${error.message}). Fix the expression, or call again without {param:raw} to search the words literally.`,
        { param: 'query', details: { syntax: error.syntax } },
      );
    }
    throw error;
  }
  // Each chunk's words are marked by their stems in its own language only.
  const terms = checked.raw ? rawTerms(checked.query) : checked.terms;
  const highlights = new Map<string, Highlight>();
  const highlight = (language: string | undefined): Highlight => {
    const k = language ?? '';
    let h = highlights.get(k);
    if (!h) {
      const formsOf = (page.formsOf ?? []).filter(
        (f) => language === undefined || f.language === language,
      );
      h = highlightOf(terms, page.forms, formsOf);
      highlights.set(k, h);
    }
    return h;
  };
  const byFile = new Map<string, SearchHit[]>();
  for (const hit of page.hits) {
    const k = fileKey(hit.source, hit.path);
    const list = byFile.get(k);
    if (list) list.push(hit);
    else byFile.set(k, [hit]);
  }
  const seen = new Map<SearchHit, { snippet: string; stale: boolean }>();
  for (const hits of byFile.values()) readBack(ctx, hits, highlight, seen);
  // The page stops before the byte budget (long heading paths, long snippets): citations are
  // charged in rank order and next_offset continues after the last one that fit.
  const notes = page.capped
    ? [
        `more than ${MAX_RANKED_CHUNKS} chunks match this raw query, so only ${MAX_RANKED_CHUNKS} of them were ranked: the most recently indexed; narrow the expression to rank every match.`,
      ]
    : [];
  for (const phrase of page.cappedPhrases ?? []) {
    notes.push(
      `more than ${championTuning.phraseCap} chunks hold the phrase "${phrase}", so only the ${championTuning.phraseCap} most recently indexed were ranked for it; add a rarer word to rank every match.`,
    );
  }
  const budget = new OutputBudget(maxBytes, SEARCH_RESERVED_BYTES + jsonBytes(page.expression));
  const results: Citation[] = [];
  for (const hit of page.hits) {
    const back = seen.get(hit) ?? { snippet: '', stale: true };
    const citation: Citation = {
      path: fileKey(hit.source, hit.path),
      source: hit.source,
      start_line: hit.startLine,
      end_line: hit.endLine,
      heading_path: cutText(hit.headingPath, MAX_CITATION_TEXT_CHARS),
      snippet: cutText(back.snippet, MAX_CITATION_TEXT_CHARS),
      score: Number(hit.score.toPrecision(4)),
      version: hit.version,
      stale: back.stale,
    };
    if (!budget.take(citation)) {
      const at = checked.offset + results.length;
      if (results.length === 0) {
        const bytes = jsonBytes(citation);
        throw new MemoryError(
          'OUTPUT_TOO_LARGE',
          `citation ${at} (${citation.path}, lines ${citation.start_line}-${citation.end_line}) alone takes ${bytes} bytes of JSON, over the ${maxBytes}-byte budget of one result; pass {param:offset} ${at + 1} to continue after it.`,
          {
            param: 'offset',
            details: { offset: at, next_offset: at + 1, bytes, max_bytes: maxBytes },
          },
        );
      }
      return {
        results,
        match: page.match,
        fts_query: page.expression,
        next_offset: at,
        warnings: [
          ...notes,
          `this page stopped after ${results.length} citations to stay within ${maxBytes} bytes; pass next_offset (${at}) as the offset for the rest.`,
        ],
      };
    }
    results.push(citation);
  }
  return {
    results,
    match: page.match,
    fts_query: page.expression,
    next_offset: page.more ? checked.offset + checked.limit : null,
    warnings: notes,
  };
}

/**
 * Reads the cited chunks of one file: stale when the file is no longer the regular file of the
 * size and modification time indexed (or cannot be opened through the root guard); the snippet
 * comes from the chunk's bytes (empty when the file cannot be read).
 */
function readBack(
  ctx: StoreContext,
  hits: readonly SearchHit[],
  highlight: (language: string | undefined) => Highlight,
  out: Map<SearchHit, { snippet: string; stale: boolean }>,
): void {
  const first = hits[0]!;
  const source = ctx.byId.get(first.source);
  let opened: ReturnType<typeof openInRootSync> | undefined;
  try {
    if (source)
      opened = openInRootSync(source.root, first.path, { maxBytes: ctx.limits.maxFileBytes });
  } catch {
    opened = undefined;
  }
  if (!opened) {
    for (const h of hits) out.set(h, { snippet: '', stale: true });
    return;
  }
  try {
    const st = opened.stat;
    const stale = !st.isFile() || st.size !== first.size || changeTime(st) !== first.mtime;
    for (const h of hits) {
      let snippet = '';
      const length = Math.max(0, Math.min(h.endByte - h.startByte, SNIPPET_READ_BYTES));
      if (length > 0 && h.startByte < st.size) {
        const buf = Buffer.allocUnsafe(length);
        let got = 0;
        while (got < length) {
          const n = readSync(opened.fd, buf, got, length - got, h.startByte + got);
          if (n === 0) break;
          got += n;
        }
        const text = lenient.decode(buf.subarray(0, got)).replace(/\r\n/g, '\n').replace(/\n$/, '');
        snippet = makeSnippet(text, highlight(h.language));
      }
      out.set(h, { snippet, stale });
    }
  } catch {
    for (const h of hits) if (!out.has(h)) out.set(h, { snippet: '', stale: true });
  } finally {
    closeSync(opened.fd);
  }
}
