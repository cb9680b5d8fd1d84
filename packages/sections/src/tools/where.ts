import { defineTool, jsonBytes, OutputBudget, READ_ONLY, ToolError } from '@lectern/core';
import { z } from 'zod';
import {
  loadSource,
  MAX_QUERY_CHARS,
  retryChanged,
  sectionAtLine,
  sectionRef,
  sectionRefSchema,
  sourceFields,
} from '../lib/common.js';
import type { DocsIndex } from '../lib/docs-index.js';
import { cutSectionRef, ENVELOPE_BYTES, whereTooLarge } from '../lib/output-budget.js';
import { hasWords, languagesOf, queryTerms, scoreAll } from '../lib/rank.js';
import { scopedDocs, searchData, topHits } from '../lib/scope.js';

/** `docs_where`: the home section of a topic, or the section enclosing a line. */
export function whereTool(index: DocsIndex) {
  return defineTool({
    name: 'docs_where',
    title: 'Locate where a topic is documented',
    description: [
      'Point to the section where a topic is documented, or to the section that holds a given line of a document.',
      'Use it before docs_read when you know the subject but not the page, or to turn a grep hit into an anchor.',
      'Not for every mention: docs_search pages through those.',
      'Give query, or line with path or doc_id; a line past the end is refused.',
    ].join('\n'),
    inputSchema: z.object({
      query: z
        .string()
        .min(1)
        .max(MAX_QUERY_CHARS)
        .optional()
        .describe("Topic, e.g. 'configure the cache'."),
      line: z.number().int().min(1).optional().describe('Line of that path or doc_id.'),
      path: sourceFields.path,
      doc_id: sourceFields.doc_id,
      limit: z.number().int().min(1).max(10).default(3).describe('Most sections.'),
    }),
    outputSchema: z.object({
      mode: z.enum(['topic', 'line']).describe('topic for a query, line for a line lookup.'),
      results: z
        .array(
          z.object({
            ...sectionRefSchema,
            score: z
              .number()
              .nullable()
              .describe('Topic mode: relevance, higher is better; null in line mode.'),
            matched_in: z
              .enum(['heading', 'body', 'line'])
              .describe(
                'heading when a query word is in the heading, body when only in the text, line in line mode.',
              ),
          }),
        )
        .describe('Best first; line mode returns exactly one.'),
    }),
    annotations: READ_ONLY,
    handler: async (input, ctx) => {
      if (input.query !== undefined) {
        if (input.line !== undefined || input.path !== undefined || input.doc_id !== undefined) {
          throw new ToolError(
            'SOURCE_CONFLICT',
            'give either query (topic mode) or line with path or doc_id (line mode), not both.',
          );
        }
        if (!hasWords(input.query)) {
          throw new ToolError(
            'EMPTY_QUERY',
            'query has no letters or digits; describe the topic in words.',
          );
        }
        const { docs, datas } = await retryChanged(async () => {
          const docs = await scopedDocs(index, undefined, ctx);
          return { docs, datas: await searchData(docs) };
        });
        const hits = topHits(
          scoreAll(datas, queryTerms(input.query, languagesOf(datas))),
          input.limit,
        );
        // One answer, no paging: the best sections must all fit the byte budget, or the call
        // says which limit fits (never a silently shorter list).
        const budget = new OutputBudget(index.maxOutputBytes, ENVELOPE_BYTES);
        const results = [];
        for (const [n, h] of hits.entries()) {
          const doc = docs[h.doc]!;
          const unit = datas[h.doc]!.units[h.unit]!;
          const section = unit.section === -1 ? null : doc.model.sections[unit.section]!;
          const result = {
            ...sectionRef(doc, section),
            score: Math.round(h.score * 1000) / 1000,
            matched_in: h.inHeading ? ('heading' as const) : ('body' as const),
          };
          if (!budget.take(result)) {
            // A section too large for its share (a huge heading): cut to an equal share of what
            // is left, with where to read it whole, so the best `limit` all come back.
            const share = Math.floor(budget.left / (hits.length - n)) - 1;
            const cut = cutSectionRef(doc, section, result, share);
            if (cut === null || !budget.take(cut)) {
              throw whereTooLarge(
                results.length,
                input.limit,
                jsonBytes(result),
                index.maxOutputBytes,
              );
            }
            results.push(cut);
            continue;
          }
          results.push(result);
        }
        return { mode: 'topic' as const, results };
      }
      if (input.line === undefined) {
        throw new ToolError(
          'SOURCE_MISSING',
          'give query to locate a topic, or line with path or doc_id to find the section enclosing that line.',
        );
      }
      const doc = (await loadSource(index, input, { sources: ['doc_id', 'path'] }))!;
      if (input.line > Math.max(doc.model.totalLines, 1)) {
        throw new ToolError(
          'LINE_OUT_OF_RANGE',
          `line ${input.line} is past the end: the document has ${doc.model.totalLines} lines.`,
          { details: { total_lines: doc.model.totalLines } },
        );
      }
      const section = sectionAtLine(doc.model, input.line);
      const whole = { ...sectionRef(doc, section), score: null, matched_in: 'line' as const };
      const bytes = jsonBytes(whole);
      const result =
        bytes + ENVELOPE_BYTES > index.maxOutputBytes
          ? cutSectionRef(doc, section, whole, index.maxOutputBytes - ENVELOPE_BYTES)
          : whole;
      if (result === null) throw whereTooLarge(0, 1, bytes, index.maxOutputBytes);
      return { mode: 'line' as const, results: [result] };
    },
  });
}
