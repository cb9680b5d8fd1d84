import { defineTool, paginateChars, READ_ONLY } from '@lectern/core';
import { z } from 'zod';
import {
  contentOf,
  resolveAnchor,
  retryChanged,
  sectionRef,
  sectionRefSchema,
} from '../lib/common.js';
import type { DocsIndex } from '../lib/docs-index.js';

/** `docs_read`: one section's Markdown by anchor, paginated by characters. */
export function readTool(index: DocsIndex) {
  return defineTool({
    name: 'docs_read',
    title: 'Read a documentation section',
    description: [
      'Read one documentation section as its original Markdown, chosen by anchor, in pages of characters.',
      'Use it once docs_outline, docs_search or docs_where has given you an anchor: it costs far less than the whole file.',
      'Not for a file path or a heading title: docs_get_section takes those.',
      'While has_more is true, call again with offset set to next_offset.',
      'For a long chapter, read it first with include_subsections set to false, then open only the subsections you need.',
      'A wrong anchor fails with ANCHOR_NOT_FOUND and the nearest real anchors.',
    ].join('\n'),
    inputSchema: z.object({
      anchor: z
        .string()
        .max(4096, 'an anchor is at most 4096 characters')
        .min(1)
        .describe("'<doc_id>#<slug>' or a doc_id."),
      offset: z.number().int().min(0).default(0).describe('Pass next_offset.'),
      max_chars: z
        .number()
        .int()
        .min(100)
        .max(50000)
        .default(3000)
        .describe('Characters per page.'),
      include_subsections: z.boolean().default(true).describe('false stops at the next heading.'),
    }),
    outputSchema: z.object({
      ...sectionRefSchema,
      content: z.string().describe('This page of the section’s original Markdown.'),
      offset: z.number().int().describe('Offset this page starts at.'),
      has_more: z.boolean().describe('True when more characters follow this page.'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe('Offset of the next page, or null at the end.'),
      total_chars: z.number().int().describe('Length of the whole section in characters.'),
      version: z.string().describe('SHA-256 of the document file; it changes when the file does.'),
    }),
    annotations: READ_ONLY,
    handler: async (input) => {
      const { doc, section, ext } = await retryChanged(async () => {
        const found = await resolveAnchor(index, input.anchor);
        return {
          ...found,
          ext: await contentOf(found.doc, found.section, input.include_subsections),
        };
      });
      const page = paginateChars(ext.content, { offset: input.offset, maxChars: input.max_chars });
      const ref = sectionRef(doc, section);
      return {
        ...ref,
        end_line: Math.max(ext.endLine, ref.start_line),
        content: page.content,
        offset: page.offset,
        has_more: page.has_more,
        next_offset: page.next_offset,
        total_chars: page.total_chars,
        version: doc.version,
      };
    },
  });
}
