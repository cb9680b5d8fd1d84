import { defineTool, jsonBytes, paginateChars, READ_ONLY, suggest, ToolError } from '@lectern/core';
import type { Section } from '@lectern/markdown';
import { z } from 'zod';
import { anchorOf, contentOf, loadSource, retryChanged, sourceFields } from '../lib/common.js';
import type { DocsIndex, IndexedDoc } from '../lib/docs-index.js';

function headingList(doc: IndexedDoc) {
  return doc.model.sections
    .slice(0, 200)
    .map((s) => ({ heading: s.heading, anchor: s.slug, level: s.level }));
}

function noMatch(doc: IndexedDoc, what: string, value: string, candidates: string[]): ToolError {
  const n = doc.model.sections.length;
  return new ToolError(
    'SECTION_NOT_FOUND',
    n === 0
      ? `no section has ${what} "${value}": the document has no headings.`
      : `no section has ${what} "${value}"; the document's headings are listed in details.headings (closest first in suggestions).`,
    {
      suggestions: suggest(value, candidates),
      details: { headings: headingList(doc), total_headings: n },
    },
  );
}

/** `docs_get_section`: one section of a file or inline text by heading title or anchor slug. */
export function getSectionTool(index: DocsIndex) {
  return defineTool({
    name: 'docs_get_section',
    title: 'Get a Markdown section by heading',
    description: [
      'Return one section of a Markdown file, or of Markdown text you pass, found by heading title or anchor slug.',
      "Use it when you have a path or raw text and know the heading, such as a README's Install part.",
      'Not for anchors from docs_outline or docs_search (docs_read takes those) or for splitting a document (docs_chunk).',
      'The first of repeated titles wins. A long section continues with next_offset; no match fails with SECTION_NOT_FOUND and the closest headings.',
    ].join('\n'),
    inputSchema: z.object({
      path: sourceFields.path,
      text: sourceFields.text,
      anchor: z
        .string()
        .max(4096, 'an anchor is at most 4096 characters')
        .min(1)
        .optional()
        .describe("Slug, e.g. 'install'; wins over heading."),
      heading: z
        .string()
        .max(1000, 'a heading is at most 1000 characters')
        .min(1)
        .optional()
        .describe('Heading title, any case.'),
      include_subsections: z.boolean().default(true).describe('false stops at the next heading.'),
      offset: z.number().int().min(0).default(0).describe('Pass next_offset.'),
      max_chars: z
        .number()
        .int()
        .min(100)
        .max(200000)
        .default(20000)
        .describe('Characters per call.'),
    }),
    outputSchema: z.object({
      title: z.string().describe('Heading text of the section.'),
      heading_path: z
        .array(z.string())
        .describe('Headings from the outermost ancestor down to this one.'),
      level: z.number().int().describe('Heading level, 1 to 6.'),
      anchor: z.string().describe('Anchor slug of the section, unique in the document.'),
      start_line: z.number().int().describe('Line of the heading (1-based).'),
      end_line: z.number().int().describe('Last line of the returned section.'),
      chars: z.number().int().describe('Length of the whole section in characters.'),
      matches: z
        .number()
        .int()
        .describe('How many sections share the requested heading title (1 for an anchor).'),
      text: z.string().describe('The section’s original Markdown (this page of it).'),
      has_more: z
        .boolean()
        .describe('True when the section goes on past this page; next_offset continues.'),
      next_offset: z.number().int().nullable().describe('Offset to continue from, or null.'),
      doc_id: z
        .string()
        .nullable()
        .describe('Document id when the file is a document of a root, else null.'),
    }),
    annotations: READ_ONLY,
    handler: (input) => retryChanged(() => getSection(index, input)),
  });
}

async function getSection(
  index: DocsIndex,
  input: {
    path?: string | undefined;
    text?: string | undefined;
    anchor?: string | undefined;
    heading?: string | undefined;
    include_subsections: boolean;
    offset: number;
    max_chars: number;
  },
) {
  const doc = (await loadSource(index, input, { sources: ['path', 'text'] }))!;
  const sections = doc.model.sections;
  let section: Section | undefined;
  let matches = 1;
  if (input.anchor !== undefined) {
    const slug = input.anchor.slice(input.anchor.lastIndexOf('#') + 1).trim();
    section = sections.find((s) => s.slug === slug);
    if (!section)
      throw noMatch(
        doc,
        'anchor',
        slug,
        sections.map((s) => s.slug),
      );
  } else if (input.heading !== undefined) {
    const wanted = input.heading.trim().replace(/\s+/g, ' ').toLowerCase();
    const found = sections.filter(
      (s) => s.heading.trim().replace(/\s+/g, ' ').toLowerCase() === wanted,
    );
    if (found.length === 0)
      throw noMatch(
        doc,
        'heading',
        input.heading,
        sections.map((s) => s.heading),
      );
    section = found[0]!;
    matches = found.length;
  } else {
    throw new ToolError(
      'SELECTOR_MISSING',
      'give heading (a title such as "Install") or anchor (a slug such as "install-1") to pick the section; the document’s headings are in details.headings.',
      { details: { headings: headingList(doc) } },
    );
  }
  const ext = await contentOf(doc, section, input.include_subsections);
  const page = paginateChars(ext.content, {
    offset: input.offset,
    maxChars: input.max_chars,
    // the section's text never takes the response past its byte budget
    maxBytes: index.maxOutputBytes - jsonBytes(section.headingPath) * 2 - 1024,
  });
  return {
    title: section.heading,
    heading_path: section.headingPath,
    level: section.level,
    anchor: section.slug,
    start_line: section.startLine,
    end_line: ext.endLine,
    chars: ext.content.length,
    matches,
    text: page.content,
    has_more: page.has_more,
    next_offset: page.next_offset,
    doc_id: doc.docId === null ? null : anchorOf(doc, null),
  };
}
