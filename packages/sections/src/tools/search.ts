import { defineTool, jsonBytes, OutputBudget, READ_ONLY, ToolError } from '@lectern/core';
import { z } from 'zod';
import { MAX_QUERY_CHARS, retryChanged, sectionRef, sectionRefSchema } from '../lib/common.js';
import type { DocsIndex } from '../lib/docs-index.js';
import { cutSectionRef, ENVELOPE_BYTES, entryTooLarge } from '../lib/output-budget.js';
import { proseOf } from '../lib/prose.js';
import { hasWords, languagesOf, queryTerms, scoreAll } from '../lib/rank.js';
import { scopedDocs, searchData, topHits } from '../lib/scope.js';
import { searchText } from '../lib/search-text.js';
import { SNIPPET_CHARS, snippetOf } from '../lib/snippet.js';

const { doc_id: _docIdField, ...searchRefSchema } = sectionRefSchema;

/** `docs_search`: ranked full-text search over section headings and bodies. */
export function searchTool(index: DocsIndex) {
  return defineTool({
    name: 'docs_search',
    title: 'Search documentation sections',
    description: [
      'Rank documentation sections across every root by how well their headings and text match some words.',
      'Use it to collect the sections that mention a term, then open one with docs_read.',
      'Not for the one section that owns a topic: docs_where gives that.',
      'Pages continue with next_offset; a query without letters or digits fails with EMPTY_QUERY.',
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
        .describe("doc_id prefix, e.g. 'guide/'."),
    }),
    outputSchema: z.object({
      results: z
        .array(
          z.object({
            // The doc_id is the anchor's part before '#': left out, so ten hits stay small.
            ...searchRefSchema,
            snippet: z
              .string()
              .describe(
                `About ${SNIPPET_CHARS} characters of the section's text around the first match.`,
              ),
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
    // The text block clients show the model: one line per hit and a paging line (far fewer
    // tokens than the JSON); structuredContent keeps every field.
    resultText: searchText,
    handler: async (input, ctx) => {
      if (!hasWords(input.query)) {
        throw new ToolError(
          'EMPTY_QUERY',
          'query has no letters or digits to search for; give one or more words.',
        );
      }
      return retryChanged(async () => {
        const docs = await scopedDocs(index, input.scope, ctx);
        const datas = await searchData(docs);
        const terms = queryTerms(input.query, languagesOf(datas));
        const hits = scoreAll(datas, terms);
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
          const { doc_id: _docId, ...ref } = sectionRef(doc, section);
          const body = await doc.extract(unit.bodyFirst, unit.bodyLast);
          const result = {
            ...ref,
            snippet: snippetOf(proseOf(body.content), terms, datas[h.doc]!.language, ref.heading),
            score: Math.round(h.score * 100) / 100,
          };
          if (!budget.take(result)) {
            if (results.length > 0) break;
            // One section over the whole budget (a huge heading): cut, with where to read on.
            const cut = cutSectionRef(doc, section, result, budget.left - 1);
            if (cut === null || !budget.take(cut)) {
              throw entryTooLarge(input.offset, jsonBytes(result), index.maxOutputBytes);
            }
            results.push(cut);
            continue;
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
