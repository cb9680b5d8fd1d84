import {
  collectPage,
  defineTool,
  jsonBytes,
  OutputBudget,
  READ_ONLY,
  ToolError,
} from '@lectern/core';
import type { Section } from '@lectern/markdown';
import { z } from 'zod';
import { anchorOf, loadSource, sectionChars, sourceFields } from '../lib/common.js';
import type { DocsIndex, IndexedDoc } from '../lib/docs-index.js';
import { cutSectionResult } from '../lib/output-budget.js';

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
  next_section_offset: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe(
      "Set when this document's headings were cut to fit one answer: outline it alone (doc_id, same depth) with section_offset set to this.",
    ),
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
  has_more: z
    .boolean()
    .describe(
      'True when more follows: documents (continue with next_offset) or, for one document, headings (continue with next_section_offset).',
    ),
  next_section_offset: z
    .number()
    .int()
    .nullable()
    .describe(
      'One document: section_offset of the next page of headings, or null when all are listed.',
    ),
  skipped: z
    .array(z.object({ path: z.string(), reason: z.string() }))
    .describe('Files of the roots that could not be indexed (first 20), with the reason.'),
  index: z
    .object({
      documents: z.number().int().describe('Documents the index holds in memory.'),
      bytes: z
        .number()
        .int()
        .describe(
          'Estimated memory held by the index in bytes: outlines, line positions and search data (document text is read from the files when needed, not kept).',
        ),
      max_bytes: z
        .number()
        .int()
        .describe(
          'Memory budget of the index in bytes; past it the least recently used documents are dropped and parsed again on their next use.',
        ),
    })
    .describe('Memory use of the documentation index after this call.'),
});

type SectionEntry = z.input<typeof sectionSchema>;

function sectionEntry(doc: IndexedDoc, s: Section): SectionEntry {
  return {
    anchor: anchorOf(doc, s),
    heading: s.heading,
    level: s.level,
    start_line: s.startLine,
    end_line: s.endLine,
    chars: sectionChars(doc.model, s),
  };
}

/** Outline of one document for the output (`sections` given: that page of its headings). */
export function outlineEntry(
  doc: IndexedDoc,
  depth: number,
  sections?: SectionEntry[],
): z.input<typeof documentSchema> {
  const m = doc.model;
  return {
    doc_id: doc.docId,
    path: doc.displayPath,
    title: m.title,
    lines: m.totalLines,
    chars: m.chars,
    sections:
      sections ?? m.sections.filter((s) => s.level <= depth).map((s) => sectionEntry(doc, s)),
  };
}

/** The section whose heading is the document's title: its first level-1 heading, else its first. */
function titleSection(doc: IndexedDoc): Section | null {
  return doc.model.sections.find((s) => s.level === 1) ?? doc.model.sections[0] ?? null;
}

/**
 * A document's outline that alone is over the budget in the all-documents listing: its first
 * headings, as many as fit, with `next_section_offset` saying where outlining it alone goes on;
 * when not even its first heading fits, that heading cut with a marker (see cutSectionResult).
 */
function cutDocumentEntry(
  doc: IndexedDoc,
  depth: number,
  entry: z.input<typeof documentSchema>,
  maxBytes: number,
): z.input<typeof documentSchema> | null {
  const shown = doc.model.sections.filter((s) => s.level <= depth);
  const head = { ...entry, sections: [], next_section_offset: shown.length > 0 ? 0 : null };
  const budget = new OutputBudget(maxBytes, jsonBytes(head) + 16);
  let k = 0;
  while (k < entry.sections.length && budget.take(entry.sections[k])) k++;
  const more = (n: number) => (n < entry.sections.length ? n : null);
  if (k > 0)
    return { ...entry, sections: entry.sections.slice(0, k), next_section_offset: more(k) };
  const titled = titleSection(doc);
  return cutSectionResult(
    doc,
    { ...entry, sections: entry.sections.slice(0, 1), next_section_offset: more(1) },
    maxBytes,
    (path) => (path[0] === 'sections' ? (shown[0] ?? null) : titled),
  );
}

/** Bytes of the result around its list (field names, numbers, punctuation), generously. */
const ENVELOPE_BYTES = 1024;

function indexStats(index: DocsIndex) {
  const s = index.stats();
  return { documents: s.documents, bytes: s.bytes, max_bytes: s.maxBytes };
}

/** `docs_outline`: the heading tree of one document or of every document in the roots. */
export function outlineTool(index: DocsIndex) {
  return defineTool({
    name: 'docs_outline',
    title: 'Outline documentation',
    description: [
      'List the heading tree of one document, or of every document under the roots.',
      'Use it to see how the docs are organised and to collect the anchors docs_read takes.',
      'Not for finding a topic (docs_where) or words (docs_search).',
      'Omit doc_id, path and text to outline every document at depth 2, then outline one in full.',
      'That list is paged with next_offset; an unknown doc_id fails with the closest ids.',
    ].join('\n'),
    inputSchema: z.object({
      ...sourceFields,
      depth: z.number().int().min(1).max(6).optional().describe('Deepest heading level.'),
      offset: z.number().int().min(0).default(0).describe('Pass next_offset.'),
      limit: z.number().int().min(1).max(200).default(50).describe('Documents per page.'),
      section_offset: z.number().int().min(0).default(0).describe('Pass next_section_offset.'),
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
        const shown = one.model.sections.filter((x) => x.level <= (input.depth ?? 6));
        // The document's own fields fit a quarter of the budget at most (a title of 3 million
        // characters is cut like a heading), so its headings have room.
        const whole = outlineEntry(one, input.depth ?? 6, []);
        const quarter = Math.floor(index.maxOutputBytes / 4);
        const head =
          jsonBytes(whole) > quarter
            ? (cutSectionResult(one, whole, quarter, () => titleSection(one)) ?? whole)
            : whole;
        const budget = new OutputBudget(index.maxOutputBytes, jsonBytes(head) + ENVELOPE_BYTES);
        if (input.section_offset > shown.length) {
          throw new ToolError(
            'OFFSET_OUT_OF_RANGE',
            (n) =>
              `${n('section_offset')} ${input.section_offset} is past the end: the outline has ${shown.length} headings.`,
            { details: { param: 'section_offset', total: shown.length } },
          );
        }
        const page = collectPage(shown.length, {
          offset: input.section_offset,
          limit: Number.MAX_SAFE_INTEGER,
          budget,
          item: (i) => sectionEntry(one, shown[i]!),
          // One heading over the whole budget: cut, with where to read it whole.
          cut: (entry, max, i) => cutSectionResult(one, entry, max, () => shown[i]!),
        });
        return {
          documents: [{ ...head, sections: page.items }],
          total_documents: 1,
          offset: 0,
          next_offset: null,
          has_more: page.has_more,
          next_section_offset: page.next_offset,
          skipped: [],
          index: indexStats(index),
        };
      }
      if (input.section_offset !== 0) {
        throw new ToolError(
          'INVALID_INPUT',
          (n) =>
            `${n('section_offset')} pages the headings of one document; name it with ${n('doc_id')}, ${n('path')} or ${n('text')}, or leave ${n('section_offset')} out.`,
          { details: { param: 'section_offset' } },
        );
      }
      const { docs, skipped } = await index.listDocuments({
        signal: ctx.signal,
        onProgress: (done, total) => void ctx.progress(done, total, 'indexing documents'),
      });
      const depth = input.depth ?? 2;
      const shownSkipped = skipped.slice(0, 20);
      const budget = new OutputBudget(
        index.maxOutputBytes,
        jsonBytes(shownSkipped) + ENVELOPE_BYTES,
      );
      const page = collectPage(docs.length, {
        offset: input.offset,
        limit: input.limit,
        budget,
        item: (i) => outlineEntry(docs[i]!, depth),
        cut: (entry, max, i) => cutDocumentEntry(docs[i]!, depth, entry, max),
      });
      return {
        documents: page.items,
        total_documents: docs.length,
        offset: input.offset,
        next_offset: page.next_offset,
        has_more: page.has_more,
        next_section_offset: null,
        skipped: shownSkipped,
        index: indexStats(index),
      };
    },
  });
}
