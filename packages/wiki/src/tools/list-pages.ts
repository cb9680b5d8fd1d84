import {
  collectPage,
  compileGlob,
  defineTool,
  jsonBytes,
  OutputBudget,
  READ_ONLY,
} from '@lectern/core';
import { z } from 'zod';
import type { WikiRuntime } from '../lib/runtime.js';
import { offsetParam, wikiParam } from '../lib/schemas.js';
import { INDEX_FILE, LOG_FILE } from '../lib/wiki.js';

const DESCRIPTION = `List the pages of one wiki, optionally narrowed to a folder, a glob or both.
Use it to browse a wiki or to collect the paths and versions that read_page and write_batch need.
Not for finding pages by what they say: search_wiki does that.
Titles come from front matter, the first heading or the file name. Continue with next_offset until it is null; an unknown wiki or folder is refused with the closest names.`;

/** The list_pages tool: a paged, filtered listing of a wiki's pages. */
export function listPagesTool(runtime: WikiRuntime) {
  return defineTool({
    name: 'list_pages',
    title: 'List wiki pages',
    description: DESCRIPTION,
    inputSchema: z.object({
      wiki: wikiParam,
      folder: z.string().max(1024).optional().describe('Only pages under this folder.'),
      glob: z
        .string()
        .min(1)
        .max(256)
        .optional()
        .describe('Glob on the path, e.g. "wiki/**/*.md".'),
      sort: z
        .enum(['path', 'modified'])
        .default('path')
        .describe('"modified": recently changed first.'),
      offset: offsetParam,
      limit: z.number().int().min(1).max(500).default(100).describe('Pages per call.'),
    }),
    outputSchema: z.object({
      wiki: z.string().describe('The wiki id.'),
      pages: z
        .array(
          z.object({
            path: z.string().describe('Path for read_page and write_batch.'),
            title: z.string().describe('Page title.'),
            kind: z.enum(['index', 'log', 'schema', 'page']).describe('Root file role, or "page".'),
            size: z.number().int().describe('Size in bytes.'),
            version: z
              .string()
              .nullable()
              .describe('SHA-256 of the bytes; use as expected_version. Null if unreadable.'),
            modified: z.string().describe('Last modification time, ISO 8601 UTC.'),
            problem: z
              .string()
              .optional()
              .describe('Why the page cannot be read as text (not UTF-8, over the size limit).'),
          }),
        )
        .describe('This page of results.'),
      total: z.number().int().describe('Pages matching the filters, across all result pages.'),
      offset: z.number().int().describe('Offset of the first entry returned.'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe('Offset for the next call, or null when nothing follows.'),
      has_more: z.boolean().describe('True when more pages follow.'),
    }),
    annotations: READ_ONLY,
    handler: async (input) => {
      // core's matcher: no backtracking, bounded patterns (GLOB_TOO_COMPLEX past the limits).
      const match = input.glob === undefined ? null : compileGlob(input.glob, { field: 'glob' });
      const wiki = await runtime.open(input.wiki);
      const folder = await wiki.checkFolder(input.folder);
      let metas = (await wiki.pageMetas()).filter(
        (m) =>
          (folder === '' || m.path.startsWith(`${folder}/`)) && (match === null || match(m.path)),
      );
      if (input.sort === 'modified') {
        metas = [...metas].sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
      }
      const budget = new OutputBudget(runtime.maxOutputBytes, 512 + jsonBytes(wiki.id));
      const kind = (p: string) =>
        p === INDEX_FILE
          ? 'index'
          : p === LOG_FILE
            ? 'log'
            : p === wiki.schemaFile
              ? 'schema'
              : 'page';
      // The page stops at limit entries or before the response would pass the byte budget.
      const page = collectPage(metas.length, {
        offset: input.offset,
        limit: input.limit,
        budget,
        item: (i) => {
          const m = metas[i]!;
          return {
            path: m.path,
            title: m.title,
            kind: kind(m.path) as 'index' | 'log' | 'schema' | 'page',
            size: m.size,
            version: m.version,
            modified: new Date(m.mtimeMs).toISOString(),
            ...(m.problem ? { problem: m.problem.message } : {}),
          };
        },
      });
      return {
        wiki: wiki.id,
        pages: page.items,
        total: metas.length,
        offset: input.offset,
        next_offset: page.next_offset,
        has_more: page.has_more,
      };
    },
  });
}
