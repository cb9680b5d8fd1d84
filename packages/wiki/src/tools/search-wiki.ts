import { collectPage, defineTool, jsonBytes, OutputBudget, READ_ONLY } from '@lectern/core';
import { z } from 'zod';
import type { WikiRuntime } from '../lib/runtime.js';
import { offsetParam, wikiParam } from '../lib/schemas.js';

const DESCRIPTION = `Search the pages of one wiki for words and rank them: titles and aliases first, then tags, then body text.
Use it to find pages by topic or wording, then open a hit with read_page.
Not for browsing a folder: list_pages does that.
Continue with next_offset; a query with no letters or digits is refused.`;

/** The search_wiki tool: ranked full-text search with snippets. */
export function searchWikiTool(runtime: WikiRuntime) {
  return defineTool({
    name: 'search_wiki',
    title: 'Search wiki',
    description: DESCRIPTION,
    inputSchema: z.object({
      wiki: wikiParam,
      query: z.string().min(1).max(500).describe('Words (32 at most); #word matches tags only.'),
      folder: z.string().max(1024).optional().describe('Only pages under this folder.'),
      offset: offsetParam,
      limit: z.number().int().min(1).max(50).default(10).describe('Hits per call.'),
    }),
    outputSchema: z.object({
      wiki: z.string().describe('The wiki id.'),
      results: z
        .array(
          z.object({
            path: z.string().describe('Page path, ready for read_page.'),
            title: z.string().describe('Page title.'),
            score: z
              .number()
              .describe('Relevance; higher is better, comparable within one query only.'),
            line: z
              .number()
              .int()
              .describe('1-based line of the snippet, usable as read_page offset.'),
            snippet: z
              .string()
              .describe('The best matching line, rendered, at most 240 characters.'),
            matched: z
              .array(z.enum(['title', 'aliases', 'tags', 'body']))
              .describe('Fields where query words were found.'),
          }),
        )
        .describe('Hits, best first.'),
      total: z.number().int().describe('Pages that matched, across all result pages.'),
      offset: z.number().int().describe('Offset of the first hit returned.'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe('Offset for the next call, or null when nothing follows.'),
      has_more: z.boolean().describe('True when more hits follow.'),
    }),
    annotations: READ_ONLY,
    handler: async (input) => {
      const wiki = await runtime.open(input.wiki);
      const folder = await wiki.checkFolder(input.folder);
      const { hits, total } = await runtime
        .index(wiki)
        .search(input.query, { folder, offset: input.offset, limit: input.limit });
      // The hits stop before the response would pass the byte budget; the rest follow.
      const page = collectPage(hits.length, {
        offset: 0,
        limit: hits.length,
        budget: new OutputBudget(runtime.maxOutputBytes, 512 + jsonBytes(wiki.id)),
        item: (i) => hits[i]!,
      });
      const end = input.offset + page.items.length;
      return {
        wiki: wiki.id,
        results: page.items,
        total,
        offset: input.offset,
        next_offset: end < total ? end : null,
        has_more: end < total,
      };
    },
  });
}
