import {
  defineTool,
  escapeForDisplay,
  jsonBytes,
  OutputBudget,
  READ_ONLY,
  sha256,
  ToolError,
} from '@lectern/core';
import { z } from 'zod';
import { formatBytes, type LinesContext } from '../lib/context.js';
import { decodeCursor, encodeCursor, fingerprint } from '../lib/cursor.js';
import { globList, workspaceField } from '../lib/fields.js';
import { checkStart } from '../lib/folder.js';
import { compileGlobs } from '../lib/glob.js';
import { MAX_DISPLAY_CHARS } from '../lib/output.js';
import { type WalkEvent, type WalkOptions, type WalkPosition, walkTree } from '../lib/walk.js';

/**
 * Where a listing continues. Short form: the last path (`p`) and whether the walk still goes
 * into it (`d`). Long form, for a path whose short cursor would be over the cursor limit: the
 * longest beginning of the path that fits (`s`) and a hash of the whole path (`x`).
 */
type Position = { p: string; d: boolean } | { s: string; x: string };

interface Entry {
  path: string;
  /** The path with invisible and direction-changing characters escaped; only when it differs. */
  display?: string;
  type: 'file' | 'directory';
  size: number | null;
  modified: string;
}

/** Longest cursor list_files accepts, in characters; the page keeps room for one. */
const CURSOR_MAX_CHARS = 4096;
/** Keys, punctuation and booleans of the result around its variable fields. */
const ENVELOPE_BYTES = 320;
/** Most unlisted (not UTF-8) names a page shows; the count covers them all. */
const MAX_UNLISTED_NAMES = 20;

/** An entry whose JSON alone does not fit an empty page (a path of many escaped characters). */
function entryTooLarge(path: string, entry: Entry, maxBytes: number): ToolError {
  const bytes = jsonBytes(entry);
  return new ToolError(
    'OUTPUT_TOO_LARGE',
    (n) =>
      `the entry ${JSON.stringify(path.slice(0, 200))}${path.length > 200 ? '…' : ''} alone takes ${bytes} bytes of JSON, which with the page's fixed fields is over the ${maxBytes}-byte output budget; list a folder below it with ${n('path')}, or skip it with ${n('exclude')}.`,
    { details: { param: 'path', bytes, max_bytes: maxBytes } },
  );
}

const isPosition = (v: unknown): v is Position => {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  if (typeof o.p === 'string') return typeof o.d === 'boolean';
  return typeof o.s === 'string' && typeof o.x === 'string' && /^[0-9a-f]{16}$/.test(o.x);
};

const pathHash = (path: string) => sha256(path).slice(0, 16);

/**
 * The cursor continuing after `path`: the short form when it fits the cursor limit, else the
 * long form with the longest beginning of the path that fits (found by bisection; never cut
 * inside a surrogate pair).
 */
function cursorAfter(query: string, path: string, descend: boolean): string {
  const short = encodeCursor('list_files', query, { p: path, d: descend });
  if (short.length <= CURSOR_MAX_CHARS) return short;
  const x = pathHash(path);
  const cut = (n: number) => {
    const code = path.charCodeAt(n - 1);
    return path.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
  };
  let lo = 0;
  let hi = path.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (encodeCursor('list_files', query, { s: cut(mid), x }).length <= CURSOR_MAX_CHARS) lo = mid;
    else hi = mid - 1;
  }
  return encodeCursor('list_files', query, { s: lo === 0 ? '' : cut(lo), x });
}

/**
 * Walks on from a long-form position: from the first entry at or after the path's known
 * beginning, skipping entries until the one whose hash the cursor holds. If that entry is gone
 * (an entry outside the known beginning comes first, or the walk ends), the walk restarts at the
 * known beginning without skipping: entries after it may repeat, none is lost.
 */
async function* walkFromLong(
  options: WalkOptions,
  start: string,
  hash: string,
): AsyncGenerator<WalkEvent> {
  const after: WalkPosition | undefined =
    start === '' ? undefined : { path: start, descend: true, inclusive: true };
  let found = false;
  for await (const event of walkTree({ ...options, after })) {
    if (found) yield event;
    else if (pathHash(event.path) === hash) found = true;
    else if (!event.path.startsWith(start)) break;
  }
  if (found) return;
  yield* walkTree({ ...options, after });
}

/** Builds the `list_files` tool: a sorted, paginated listing of a workspace folder. */
export function listFilesTool(ctx: LinesContext) {
  const { limits } = ctx;
  const ids = ctx.workspaces.ids;

  const inputSchema = z.object({
    workspace: workspaceField(ids),
    path: z.string().max(4096).optional().describe('Folder; default the workspace root.'),
    include: globList('Globs to keep, e.g. ["*.ts"]; without / they match at any depth.'),
    exclude: globList('Globs to skip, e.g. ["node_modules"].'),
    respect_gitignore: z.boolean().optional().describe('Honour .gitignore; default true.'),
    include_directories: z.boolean().optional().describe('Also list folders; default false.'),
    max_depth: z
      .number()
      .int()
      .min(1)
      .max(limits.maxDepth)
      .optional()
      .describe(`1: direct children only; default ${limits.maxDepth}.`),
    limit: z
      .number()
      .int()
      .min(1)
      .max(limits.maxPageSize)
      .optional()
      .describe(`Entries per page; default ${limits.defaultPageSize}.`),
    cursor: z
      .string()
      .min(1)
      .max(CURSOR_MAX_CHARS)
      .optional()
      .describe('next_cursor of the last page.'),
  });

  const outputSchema = z.object({
    workspace: z.string().describe('Workspace id listed.'),
    path: z.string().describe('Normalised folder listed ("" for the workspace root).'),
    entries: z
      .array(
        z.object({
          path: z
            .string()
            .describe('Path relative to the workspace, exactly as on disk; pass it to read_text.'),
          display: z
            .string()
            .optional()
            .describe(
              'Only when the path holds invisible, control or direction-changing characters (U+202E, zero-width spaces): the path with each written as \\u{XXXX}, to show people (over 512 characters, its beginning and end around …); read_text still takes path.',
            ),
          type: z.enum(['file', 'directory']).describe('Entry type.'),
          size: z.number().int().nullable().describe('Size in bytes; null for folders.'),
          modified: z.string().describe('Last modification time, ISO 8601 UTC.'),
        }),
      )
      .describe('Entries in walk order: by name within a folder, a folder before its contents.'),
    has_more: z
      .boolean()
      .describe(
        `True when another page may follow (a page also ends early to stay within ${formatBytes(limits.maxOutputBytes)} of JSON); pass next_cursor to get it.`,
      ),
    next_cursor: z.string().nullable().describe('Cursor for the next page, or null when done.'),
    scan_limited: z
      .boolean()
      .describe(
        `True when the page stopped after visiting ${limits.maxScanEntries} entries; continue with next_cursor.`,
      ),
    unlisted: z
      .object({
        count: z
          .number()
          .int()
          .describe('Entries passed over on this page because their names are not valid UTF-8.'),
        names: z
          .array(z.string())
          .describe(
            `Their paths (first ${MAX_UNLISTED_NAMES}), each invalid byte shown as \\xHH and invisible characters as \\u{XXXX}; folders among them are not entered.`,
          ),
      })
      .describe(
        'Entries that cannot be listed or read by name (not valid UTF-8); never silently left out.',
      ),
  });

  return defineTool({
    name: 'list_files',
    title: 'List workspace files',
    description: [
      'List the files under a workspace folder, sorted by path, with size and modification time.',
      'Use it to see what a project holds or to find files by name before read_text.',
      'Not for finding files by content: search_text does that.',
      '.gitignore applies unless turned off. Pass next_cursor back as cursor with the other parameters unchanged, or the call fails with CURSOR_MISMATCH.',
    ].join(' '),
    inputSchema,
    outputSchema,
    annotations: READ_ONLY,
    handler: async (input, context) => {
      const ws = ctx.workspaces.get(input.workspace);
      const include = compileGlobs(input.include, 'include');
      const exclude = compileGlobs(input.exclude, 'exclude');
      const start = await checkStart(ws.root, input.path ?? '', false);
      const gitignore = input.respect_gitignore ?? true;
      const directories = input.include_directories ?? false;
      const maxDepth = input.max_depth ?? limits.maxDepth;
      const limit = input.limit ?? limits.defaultPageSize;
      const query = fingerprint([
        ws.id,
        start.path,
        input.include ?? [],
        input.exclude ?? [],
        gitignore,
        directories,
        maxDepth,
      ]);
      let after: WalkPosition | undefined;
      let long: { s: string; x: string } | undefined;
      if (input.cursor !== undefined) {
        const p = decodeCursor(input.cursor, 'list_files', query, isPosition);
        if ('p' in p) after = { path: p.p, descend: p.d };
        else long = p;
      }
      // The page stops before the output budget: fixed fields and the longest cursor a call
      // accepts are reserved first, then each entry is charged as it is accepted.
      const budget = new OutputBudget(
        limits.maxOutputBytes,
        ENVELOPE_BYTES + jsonBytes(ws.id) + jsonBytes(start.path) + CURSOR_MAX_CHARS + 2,
      );
      const entries: Entry[] = [];
      let position: { p: string; d: boolean } | undefined;
      let hasMore = false;
      let scanLimited = false;
      let scanned = 0;
      const walkOptions: WalkOptions = {
        root: ws.root,
        folder: start.path,
        include,
        exclude,
        gitignore,
        maxDepth,
        directories,
        after,
        signal: context.signal,
        stats: true,
      };
      const walk = long ? walkFromLong(walkOptions, long.s, long.x) : walkTree(walkOptions);
      const unlisted = { count: 0, names: [] as string[] };
      const pending: string[] = [];
      const commit = () => {
        for (const name of pending) {
          unlisted.count++;
          const shown = escapeForDisplay(name);
          if (unlisted.names.length < MAX_UNLISTED_NAMES && budget.take(shown)) {
            unlisted.names.push(shown);
          }
        }
        pending.length = 0;
      };
      for await (const event of walk) {
        if (event.unnamed) {
          // Counted once the page's position passes it: a page that stops at the next entry
          // leaves it to the next page.
          pending.push(event.path);
          continue;
        }
        if (event.accepted && event.type !== 'other') {
          if (entries.length === limit) {
            hasMore = true;
            break;
          }
          const st = event.stat ?? null;
          // removed, or replaced by something else, since it was listed
          if (st !== null && (event.type === 'file' ? st.isFile() : st.isDirectory())) {
            const shown = escapeForDisplay(event.path, MAX_DISPLAY_CHARS);
            const entry: Entry = {
              path: event.path,
              ...(shown !== event.path ? { display: shown } : {}),
              type: event.type,
              size: event.type === 'file' ? st.size : null,
              modified: st.mtime.toISOString(),
            };
            if (!budget.take(entry)) {
              if (entries.length === 0)
                throw entryTooLarge(event.path, entry, limits.maxOutputBytes);
              hasMore = true;
              break;
            }
            entries.push(entry);
          }
          position = { p: event.path, d: event.descend };
          commit();
        }
        scanned++;
        if (scanned >= limits.maxScanEntries) {
          scanLimited = true;
          hasMore = true;
          position = { p: event.path, d: event.descend };
          commit();
          break;
        }
      }
      if (!hasMore) commit();
      return {
        workspace: ws.id,
        path: start.path,
        entries,
        has_more: hasMore,
        next_cursor: hasMore && position ? cursorAfter(query, position.p, position.d) : null,
        scan_limited: scanLimited,
        unlisted,
      };
    },
  });
}
