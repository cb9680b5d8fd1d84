import { defineTool, ToolError } from '@lectern/core';
import { z } from 'zod';
import { anchorOf, loadSource, READ_ONLY, sectionChars, sourceFields } from '../lib/common.js';
import type { DocsIndex, IndexedDoc } from '../lib/docs-index.js';

const sectionSchema = z.object({
  anchor: z
    .string()
    .describe('Anchor for docs_read: <doc_id>#<slug> (a bare slug for inline text).'),
  heading: z.string().describe('Heading text.'),
  level: z.number().int().describe('Heading level, 1 to 6.'),
  start_line: z.number().int().describe('Line of the heading (1-based).'),
  end_line: z.number().int().describe('Last line of the section including its subsections.'),
  chars: z.number().int().describe('Size of the section with its subsections, in characters.'),
});

const documentSchema = z.object({
  doc_id: z.string().nullable().describe('Document id, or null for inline text.'),
  path: z.string().nullable().describe('File path relative to its root, or null for inline text.'),
  title: z.string().nullable().describe('First level-1 heading (else first heading), or null.'),
  lines: z.number().int().describe('Number of lines in the document.'),
  chars: z.number().int().describe('Size of the document in characters.'),
  sections: z
    .array(sectionSchema)
    .describe('Headings in document order, up to the requested depth.'),
});

const outputSchema = z.object({
  documents: z.array(documentSchema).describe('Outlined documents, sorted by doc_id.'),
  total_documents: z.number().int().describe('Documents available (1 for a single document).'),
  offset: z.number().int().describe('Index of the first document of this page.'),
  next_offset: z
    .number()
    .int()
    .nullable()
    .describe('Offset of the next page of documents, or null at the end.'),
  skipped: z
    .array(z.object({ path: z.string(), reason: z.string() }))
    .describe('Files of the roots that could not be indexed (first 20), with the reason.'),
});

/** Outline of one document for the output. */
export function outlineEntry(doc: IndexedDoc, depth: number): z.input<typeof documentSchema> {
  const m = doc.model;
  return {
    doc_id: doc.docId,
    path: doc.displayPath,
    title: m.title,
    lines: m.totalLines,
    chars: m.text.length,
    sections: m.sections
      .filter((s) => s.level <= depth)
      .map((s) => ({
        anchor: anchorOf(doc, s),
        heading: s.heading,
        level: s.level,
        start_line: s.startLine,
        end_line: s.endLine,
        chars: sectionChars(m, s),
      })),
  };
}

/** `docs_outline`: the heading tree of one document or of every document in the roots. */
export function outlineTool(index: DocsIndex) {
  return defineTool({
    name: 'docs_outline',
    title: 'Outline documentation',
    description: [
      'List the heading tree of the documentation: one document, or every document under the configured roots.',
      'Use it to learn how a page is organised and to collect the anchors docs_read takes.',
      'Not for locating a topic (docs_where) or for matching words (docs_search).',
      'Only real headings count; lines that look like headings inside code fences, HTML, quotes or lists are ignored.',
      'The all-documents listing comes in pages of documents (continue with next_offset) and names the files it had to skip, such as ones too large or not UTF-8. An unknown doc_id is refused with the closest ids.',
    ].join('\n'),
    inputSchema: z.object({
      ...sourceFields,
      depth: z
        .number()
        .int()
        .min(1)
        .max(6)
        .optional()
        .describe(
          'Deepest heading level to include, 1 to 6. Default 6 for one document, 2 when outlining every document.',
        ),
      offset: z
        .number()
        .int()
        .min(0)
        .default(0)
        .describe(
          'Whole-tree mode: number of documents to skip (default 0); pass next_offset from the previous page.',
        ),
      limit: z
        .number()
        .int()
        .min(1)
        .max(200)
        .default(50)
        .describe('Whole-tree mode: documents per page, 1 to 200 (default 50).'),
    }),
    outputSchema,
    annotations: READ_ONLY,
    handler: async (input, ctx) => {
      const one = await loadSource(index, input, { required: false });
      if (one) {
        if (input.offset !== 0) {
          throw new ToolError(
            'INVALID_INPUT',
            'offset pages the whole-tree listing; leave it out when outlining one document.',
          );
        }
        return {
          documents: [outlineEntry(one, input.depth ?? 6)],
          total_documents: 1,
          offset: 0,
          next_offset: null,
          skipped: [],
        };
      }
      const { docs, skipped } = await index.listDocuments({
        signal: ctx.signal,
        onProgress: (done, total) => void ctx.progress(done, total, 'indexing documents'),
      });
      const depth = input.depth ?? 2;
      const page = docs.slice(input.offset, input.offset + input.limit);
      const end = input.offset + page.length;
      return {
        documents: page.map((d) => outlineEntry(d, depth)),
        total_documents: docs.length,
        offset: input.offset,
        next_offset: end < docs.length ? end : null,
        skipped: skipped.slice(0, 20),
      };
    },
  });
}
