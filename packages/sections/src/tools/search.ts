import { defineTool, jsonBytes, OutputBudget, READ_ONLY, ToolError } from '@lectern/core';
import { z } from 'zod';
import { MAX_QUERY_CHARS, retryChanged, sectionRef, sectionRefSchema } from '../lib/common.js';
import type { DocsIndex } from '../lib/docs-index.js';
import { ENVELOPE_BYTES, entryTooLarge } from '../lib/output-budget.js';
import { scopedDocs, searchData, topHits } from '../lib/scope.js';
import { scoreAll, snippetOf, tokenize } from '../lib/search.js';

/** `docs_search`: ranked full-text search over section headings and bodies. */
export function searchTool(index: DocsIndex) {
  return defineTool({
    name: 'docs_search',
    title: 'Search documentation sections',
    description: [
      'Rank documentation sections across every root by how well their headings and text match some words.',
      'Use it to collect the sections that mention a term, then open one with docs_read by its anchor.',
      'Not for the one section that owns a topic: docs_where gives that short list.',
      'Case and English endings are ignored; heading hits weigh most. Pages continue with next_offset; a query without letters or digits fails with EMPTY_QUERY.',
    ].join('\n'),
    inputSchema: z.object({
      query: z.string().min(1).max(MAX_QUERY_CHARS).describe("Words, e.g. 'retry timeout'."),
      limit: z.number().int().min(1).max(50).default(10).describe('Results per page.'),
      offset: z.number().int().min(0).default(0).describe('Pass next_offset.'),
      scope: z
        .string()
        .max(4096, 'a path is at most 4096 characters')
        .min(1)
        .optional()
        .describe("Only doc_ids starting with this, e.g. 'guide/'."),
    }),
    outputSchema: z.object({
      results: z
        .array(
          z.object({
            ...sectionRefSchema,
            snippet: z
              .string()
              .describe('Up to about 180 characters of the section around the first match.'),
            score: z
              .number()
              .describe('Relevance score; higher is better, comparable within one query.'),
          }),
        )
        .describe('Matching sections, best first.'),
      total: z.number().int().describe('Number of matching sections.'),
      offset: z.number().int().describe('Offset of the first result of this page.'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe('Offset of the next page, or null at the end.'),
    }),
    annotations: READ_ONLY,
    handler: async (input, ctx) => {
      const terms = [...new Set(tokenize(input.query))];
      if (terms.length === 0) {
        throw new ToolError(
          'EMPTY_QUERY',
          'query has no letters or digits to search for; give one or more words.',
        );
      }
      return retryChanged(async () => {
        const docs = await scopedDocs(index, input.scope, ctx);
        const datas = await searchData(docs);
        const hits = scoreAll(datas, terms, { head: 3, body: 1 });
        // Only the hits up to the end of this page are put in order.
        const page = topHits(hits, input.offset + input.limit).slice(input.offset);
        // The page also stops before the byte budget (long headings, deep heading paths);
        // next_offset continues after the last result that fit.
        const budget = new OutputBudget(index.maxOutputBytes, ENVELOPE_BYTES);
        const results = [];
        for (const h of page) {
          const doc = docs[h.doc]!;
          const unit = datas[h.doc]!.units[h.unit]!;
          const section = unit.section === -1 ? null : doc.model.sections[unit.section]!;
          const ref = sectionRef(doc, section);
          const body = await doc.extract(unit.bodyFirst, unit.bodyLast);
          const result = {
            ...ref,
            snippet: snippetOf(body.content, input.query, ref.heading),
            score: Math.round(h.score * 1000) / 1000,
          };
          if (!budget.take(result)) {
            if (results.length === 0) {
              throw entryTooLarge(input.offset, jsonBytes(result), index.maxOutputBytes);
            }
            break;
          }
          results.push(result);
        }
        const end = input.offset + results.length;
        return {
          results,
          total: hits.length,
          offset: input.offset,
          next_offset: end < hits.length ? end : null,
        };
      });
    },
  });
}
