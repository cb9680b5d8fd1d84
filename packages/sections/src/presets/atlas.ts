import { type AnyToolDefinition, adaptTool } from '@lectern/core';
import { z } from 'zod';
import { MAX_NAME_CHARS, MAX_QUERY_CHARS } from '../lib/common.js';
import { DocsIndex, type SectionsOptions } from '../lib/docs-index.js';
import { outlineTool } from '../tools/outline.js';
import { readTool } from '../tools/read.js';
import { searchTool } from '../tools/search.js';
import { whereTool } from '../tools/where.js';

const lines = z
  .object({
    start: z.number().int().describe('First line (1-based).'),
    end: z.number().int().describe('Last line, inclusive.'),
  })
  .describe('Line range of the section in its file.');

const anchorText =
  "Section anchor '<doc_id>#<slug>' (e.g. 'guide/install#linux') or a bare doc_id for a whole page, as listed by atlas_outline or returned by atlas_search and atlas_where.";

/**
 * The `atlas` preset (seed 000): atlas_read, atlas_where, atlas_search and atlas_outline,
 * adapted from the native tools with `adaptTool`.
 */
export function atlasTools(options: SectionsOptions | DocsIndex): AnyToolDefinition[] {
  const index = options instanceof DocsIndex ? options : new DocsIndex(options);
  const read = adaptTool(readTool(index), {
    name: 'atlas_read',
    title: 'Read a doc section by anchor',
    description: [
      'Fetch one documentation section as Markdown, addressed by anchor, a page of characters at a time.',
      'Use it once you hold an anchor from atlas_outline, atlas_where or atlas_search; it returns just that section instead of a whole file.',
      'Not for finding sections by topic or by words: call atlas_where or atlas_search first.',
      'Subsections are included. While truncated is true, call again with offset set to next_offset; pages never split a character and join into the exact section.',
      'An unknown anchor fails, suggesting the nearest valid anchors.',
    ].join('\n'),
    inputSchema: z.object({
      anchor: z.string().min(1).max(MAX_NAME_CHARS).describe(anchorText),
      offset: z
        .number()
        .int()
        .min(0)
        .default(0)
        .describe(
          'Character position to begin at (default 0); after a page with truncated true, send its next_offset.',
        ),
      max_chars: z
        .number()
        .int()
        .min(100)
        .max(50000)
        .default(3000)
        .describe('Upper bound on characters in this page, 100 to 50000 (default 3000).'),
    }),
    outputSchema: z.object({
      anchor: z.string().describe('The anchor that was read.'),
      heading: z.string().describe('Heading text (the page title for a whole page).'),
      path: z.string().describe('File of the section, relative to its documentation root.'),
      lines,
      content: z.string().describe('This page of the section’s Markdown.'),
      truncated: z.boolean().describe('True when more characters remain.'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe('Offset for the next page, or null when done.'),
    }),
    mapInput: (i) => ({
      anchor: i.anchor,
      offset: i.offset,
      max_chars: i.max_chars,
      include_subsections: true,
    }),
    mapOutput: (o) => ({
      anchor: o.anchor,
      heading: o.heading,
      path: o.path,
      lines: { start: o.start_line, end: o.end_line },
      content: o.content,
      truncated: o.truncated,
      next_offset: o.next_offset,
    }),
  });
  const where = adaptTool(whereTool(index), {
    name: 'atlas_where',
    title: 'Find where a topic is documented',
    description: [
      'Name the few documentation sections most likely to cover a topic, from a term, a phrase or a plain question.',
      'Start here when you know what you need but not which page has it, then open the best anchor with atlas_read.',
      'Not for every passage that mentions some words (atlas_search) or for browsing the structure (atlas_outline).',
      'Filler words such as how or the are dropped, and headings containing the remaining words weigh most.',
      'Candidates come best first in a single answer with no paging; raise limit or switch to atlas_search for more. A query without letters or digits fails with EMPTY_QUERY.',
    ].join('\n'),
    inputSchema: z.object({
      query: z
        .string()
        .min(1)
        .max(MAX_QUERY_CHARS)
        .describe("Topic to locate, as words or a question, e.g. 'rotate API tokens'."),
      limit: z
        .number()
        .int()
        .min(1)
        .max(10)
        .default(3)
        .describe('Most candidate sections to return, 1 to 10 (default 3).'),
    }),
    outputSchema: z.object({
      results: z
        .array(
          z.object({
            anchor: z.string().describe('Anchor to pass to atlas_read.'),
            heading: z.string().describe('Heading text.'),
            heading_path: z
              .array(z.string())
              .describe('Enclosing headings, outermost first, ending with this one.'),
            path: z.string().describe('File relative to its documentation root.'),
            lines,
            score: z.number().describe('Relevance, higher is better.'),
          }),
        )
        .describe('Candidate sections, best first.'),
    }),
    mapInput: (i) => ({ query: i.query, limit: i.limit }),
    mapOutput: (o) => ({
      results: o.results.map((r) => ({
        anchor: r.anchor,
        heading: r.heading,
        heading_path: r.heading_path,
        path: r.path,
        lines: { start: r.start_line, end: r.end_line },
        score: r.score ?? 0,
      })),
    }),
  });
  const search = adaptTool(searchTool(index), {
    name: 'atlas_search',
    title: 'Search the documentation',
    description: [
      'Search all documentation sections for words or a phrase and rank the matches, each with a snippet.',
      'Use it to gather every passage that mentions something, then open a hit with atlas_read.',
      "Not for the single section that owns a topic (atlas_where) or for a page's structure (atlas_outline).",
      'Case and common English endings are ignored (configure, configured, configuration); heading hits count more than body hits, and sections with all the words come first.',
      'Results are paged: follow next_offset for more. A query with no letters or digits fails with EMPTY_QUERY.',
    ].join('\n'),
    inputSchema: z.object({
      query: z
        .string()
        .min(1)
        .max(MAX_QUERY_CHARS)
        .describe("Words or phrase to find, e.g. 'cache timeout'."),
      limit: z
        .number()
        .int()
        .min(1)
        .max(50)
        .default(10)
        .describe('Results per call, 1 to 50 (default 10).'),
      offset: z
        .number()
        .int()
        .min(0)
        .default(0)
        .describe('Ranked results to skip (default 0); send next_offset to continue.'),
    }),
    outputSchema: z.object({
      results: z
        .array(
          z.object({
            anchor: z.string().describe('Anchor to pass to atlas_read.'),
            heading: z.string().describe('Heading text.'),
            heading_path: z.array(z.string()).describe('Enclosing headings, outermost first.'),
            path: z.string().describe('File relative to its documentation root.'),
            lines,
            snippet: z.string().describe('Text around the first match.'),
            score: z.number().describe('Relevance, higher is better.'),
          }),
        )
        .describe('Matching sections, best first.'),
      total: z.number().int().describe('How many sections match.'),
      next_offset: z.number().int().nullable().describe('Offset of the next page, or null.'),
    }),
    mapInput: (i) => ({ query: i.query, limit: i.limit, offset: i.offset }),
    mapOutput: (o) => ({
      results: o.results.map((r) => ({
        anchor: r.anchor,
        heading: r.heading,
        heading_path: r.heading_path,
        path: r.path,
        lines: { start: r.start_line, end: r.end_line },
        snippet: r.snippet,
        score: r.score,
      })),
      total: o.total,
      next_offset: o.next_offset,
    }),
  });
  const outline = adaptTool(outlineTool(index), {
    name: 'atlas_outline',
    title: 'Outline the documentation',
    description: [
      "Show the documentation's table of contents: the headings of one page, or of every page when doc_id is omitted.",
      'Use it to see what exists and to collect anchors for atlas_read.',
      'Not for hunting down a specific topic: atlas_where finds it and atlas_search lists every mention.',
      'Only Markdown under the configured roots is covered; hidden folders and node_modules are skipped, and files too large or not UTF-8 are left out.',
      'The all-pages listing comes in pages; continue with next_offset. An unknown doc_id fails with DOC_NOT_FOUND and the nearest ids.',
    ].join('\n'),
    inputSchema: z.object({
      doc_id: z
        .string()
        .max(4096, 'a path is at most 4096 characters')
        .min(1)
        .optional()
        .describe(
          "Page to outline, by doc_id (its path without extension, e.g. 'guide/install'). Leave out for all pages.",
        ),
      depth: z
        .number()
        .int()
        .min(1)
        .max(6)
        .optional()
        .describe(
          'Deepest heading level to list, 1 to 6 (default 6 for one page, 2 for all pages).',
        ),
      offset: z
        .number()
        .int()
        .min(0)
        .default(0)
        .describe('All-pages listing: pages to skip (default 0); send next_offset to continue.'),
    }),
    outputSchema: z.object({
      documents: z
        .array(
          z.object({
            doc_id: z.string().describe('Page id.'),
            path: z.string().describe('File relative to its documentation root.'),
            title: z.string().nullable().describe('Page title (first top-level heading), if any.'),
            sections: z
              .array(
                z.object({
                  anchor: z.string().describe('Anchor to pass to atlas_read.'),
                  heading: z.string().describe('Heading text.'),
                  level: z.number().int().describe('Heading level, 1 to 6.'),
                  lines,
                  chars: z
                    .number()
                    .int()
                    .describe('Section size in characters, subsections included.'),
                }),
              )
              .describe('Headings in page order.'),
          }),
        )
        .describe('Outlined pages, sorted by doc_id.'),
      total_documents: z.number().int().describe('Pages available.'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe('Offset of the next batch of pages, or null.'),
    }),
    mapInput: (i) =>
      i.doc_id === undefined
        ? { depth: i.depth, offset: i.offset, limit: 50 }
        : { doc_id: i.doc_id, depth: i.depth, offset: i.offset, limit: 50 },
    mapOutput: (o) => ({
      documents: o.documents.map((d) => ({
        doc_id: d.doc_id ?? '',
        path: d.path ?? '',
        title: d.title,
        sections: d.sections.map((s) => ({
          anchor: s.anchor,
          heading: s.heading,
          level: s.level,
          lines: { start: s.start_line, end: s.end_line },
          chars: s.chars,
        })),
      })),
      total_documents: o.total_documents,
      next_offset: o.next_offset,
    }),
  });
  return [read, where, search, outline];
}
