import { collectPage, defineTool, jsonBytes, OutputBudget, READ_ONLY } from '@lectern/core';
import { chunkDocument } from '@lectern/markdown';
import { z } from 'zod';
import { anchorOf, loadSource, retryChanged, sourceFields } from '../lib/common.js';
import type { DocsIndex } from '../lib/docs-index.js';

/** `docs_chunk`: a whole document as heading-aligned chunks under a character budget. */
export function chunkTool(index: DocsIndex) {
  return defineTool({
    name: 'docs_chunk',
    title: 'Chunk a Markdown document',
    description: [
      'Cut a whole Markdown document into ordered chunks that follow its headings, sized for embedding.',
      'Use it to process a complete document piece by piece.',
      'Not for one known section: docs_read (by anchor) or docs_get_section (by heading) return just that.',
      'Sections split at blank lines; a code fence or table too big comes back whole, marked oversized. Page with next_offset.',
    ].join('\n'),
    inputSchema: z.object({
      ...sourceFields,
      max_chars: z
        .number()
        .int()
        .min(200)
        .max(100000)
        .default(4000)
        .describe('Characters per chunk.'),
      offset: z.number().int().min(0).default(0).describe('Pass next_offset.'),
      limit: z.number().int().min(1).max(500).default(50).describe('Chunks per call.'),
    }),
    outputSchema: z.object({
      doc_id: z.string().nullable().describe('Document id, or null for inline text.'),
      chunks: z
        .array(
          z.object({
            index: z.number().int().describe('Position of the chunk in the document, from 0.'),
            anchor: z
              .string()
              .describe(
                'Anchor of the section the chunk belongs to (the doc_id for text before the first heading; a bare slug or empty for inline text).',
              ),
            heading_path: z
              .array(z.string())
              .describe('Headings enclosing the chunk, outermost first.'),
            start_line: z.number().int().describe('First line of the chunk (1-based).'),
            end_line: z.number().int().describe('Last line of the chunk.'),
            chars: z.number().int().describe('Length of text in characters.'),
            oversized: z
              .boolean()
              .describe('True when one code fence or table alone exceeds max_chars.'),
            text: z.string().describe('Original Markdown of the chunk.'),
          }),
        )
        .describe('Chunks of this page, in document order.'),
      total_chunks: z.number().int().describe('Chunks in the whole document.'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe('Offset of the next page of chunks, or null at the end.'),
      has_more: z
        .boolean()
        .describe(
          'True when chunks follow this page (it ends at limit or at the response size budget).',
        ),
    }),
    annotations: READ_ONLY,
    handler: async (input) => {
      const { doc, all } = await retryChanged(async () => {
        const doc = (await loadSource(index, input))!;
        return { doc, all: chunkDocument(await doc.fullModel(), input.max_chars) };
      });
      // The page stops at limit chunks or before the response would pass the byte budget.
      const page = collectPage(all.length, {
        offset: input.offset,
        limit: input.limit,
        budget: new OutputBudget(index.maxOutputBytes, jsonBytes(doc.docId) + 512),
        item: (i) => {
          const c = all[i]!;
          const s = c.section === -1 ? null : doc.model.sections[c.section]!;
          return {
            index: i,
            anchor: anchorOf(doc, s),
            heading_path: s ? s.headingPath : [],
            start_line: c.startLine,
            end_line: c.endLine,
            chars: c.text.length,
            oversized: c.oversized,
            text: c.text,
          };
        },
      });
      return {
        doc_id: doc.docId,
        chunks: page.items,
        total_chunks: all.length,
        next_offset: page.next_offset,
        has_more: page.has_more,
      };
    },
  });
}
