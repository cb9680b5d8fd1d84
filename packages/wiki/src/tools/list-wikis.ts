import { defineTool, READ_ONLY } from '@lectern/core';
import { z } from 'zod';
import type { WikiRuntime } from '../lib/runtime.js';
import { INDEX_FILE, LOG_FILE } from '../lib/wiki.js';

const DESCRIPTION = `List every wiki this server can open, with its id, title, page count and which root files (index, log, schema) it has.
Call it first: every other wiki tool needs one of these ids as wiki.
Not for the pages inside a wiki: list_pages lists those.
Before editing, read the wiki's schema file with read_page. It counts files without reading pages, so a broken page cannot make it fail.`;

/** The list_wikis tool: configured wikis with page counts and root files. */
export function listWikisTool(runtime: WikiRuntime) {
  return defineTool({
    name: 'list_wikis',
    title: 'List wikis',
    description: DESCRIPTION,
    inputSchema: z.object({}),
    outputSchema: z.object({
      wikis: z
        .array(
          z.object({
            id: z.string().describe('Id to pass as "wiki" to the other tools.'),
            title: z.string().describe('Human title of the wiki.'),
            page_count: z.number().int().describe('Pages in the wiki (hidden folders excluded).'),
            schema_file: z.string().describe('Path of the schema file (conventions for agents).'),
            root_files: z
              .object({
                index: z.boolean().describe('True when index.md (the catalog) exists.'),
                log: z.boolean().describe('True when log.md (the change history) exists.'),
                schema: z.boolean().describe('True when the schema file exists.'),
              })
              .describe('Which root files are present.'),
            last_recovery: z
              .object({
                batch_id: z.string().nullable().describe('Id of the interrupted batch, if any.'),
                completed: z.array(z.string()).describe('Pages rewritten to finish it.'),
                skipped: z
                  .array(z.string())
                  .describe('Pages changed by someone else, left as found.'),
                pending: z
                  .array(
                    z.object({
                      path: z.string().describe('Page not yet finished or put back.'),
                      errno: z.string().describe('Why, e.g. ENOSPC (disk full).'),
                    }),
                  )
                  .describe(
                    'Pages the batch could be neither finished nor undone on (an I/O error such as a full disk); its journal is kept and every call retries. Empty when done.',
                  ),
                temp_files_removed: z.number().int().describe('Leftover temporary files removed.'),
                at: z.string().describe('When the recovery ran (ISO 8601).'),
              })
              .nullable()
              .describe(
                'What this server did to finish a batch interrupted by a crash; null when nothing was needed.',
              ),
          }),
        )
        .describe('The wikis, in configuration order.'),
    }),
    annotations: READ_ONLY,
    handler: async () => {
      const wikis = [];
      for (const wiki of runtime.wikis.all()) {
        await runtime.writer(wiki).ensureRecovered();
        const files = new Set((await wiki.scan()).map((f) => f.path));
        const pages = [...files].filter((p) => wiki.isPagePath(p)).length;
        const r = runtime.writer(wiki).lastRecovery;
        wikis.push({
          id: wiki.id,
          title: wiki.title,
          page_count: pages,
          schema_file: wiki.schemaFile,
          root_files: {
            index: files.has(INDEX_FILE),
            log: files.has(LOG_FILE),
            schema: files.has(wiki.schemaFile),
          },
          last_recovery: r
            ? {
                batch_id: r.batch_id,
                completed: r.completed,
                skipped: r.skipped,
                pending: r.pending,
                temp_files_removed: r.temp_files_removed,
                at: r.at,
              }
            : null,
        });
      }
      return { wikis };
    },
  });
}
