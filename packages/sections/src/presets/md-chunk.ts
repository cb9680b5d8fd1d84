import { type AnyToolDefinition, adaptTool, ToolError } from '@lectern/core';
import { z } from 'zod';
import { MAX_TEXT_CHARS } from '../lib/common.js';
import { DocsIndex, type SectionsOptions } from '../lib/docs-index.js';
import { chunkTool } from '../tools/chunk.js';
import { getSectionTool } from '../tools/get-section.js';
import { outlineTool } from '../tools/outline.js';

const pathField = z
  .string()
  .max(4096, 'a path is at most 4096 characters')
  .min(1)
  .optional()
  .describe(
    'Markdown or plain-text file inside the configured documentation root: relative to it, or absolute under it (UTF-8, at most 10 MB). Omit when sending text.',
  );
const textField = z
  .string()
  .max(MAX_TEXT_CHARS)
  .optional()
  .describe('Raw Markdown to work on in place of a file (at most 10 MB). Omit when sending path.');

const slugOf = (anchor: string) => anchor.slice(anchor.lastIndexOf('#') + 1);

function exactlyOne(i: { path?: string | undefined; text?: string | undefined }): void {
  if (i.path !== undefined && i.text !== undefined) {
    throw new ToolError('SOURCE_CONFLICT', 'send either path or text, not both.');
  }
  if (i.path === undefined && i.text === undefined) {
    throw new ToolError(
      'SOURCE_MISSING',
      'send path (a file in the documentation root) or text (raw Markdown).',
    );
  }
}

/**
 * The `md-chunk` preset (seed 002): get_section, outline_markdown and chunk_markdown, adapted
 * from the native tools with `adaptTool`.
 */
export function mdChunkTools(options: SectionsOptions | DocsIndex): AnyToolDefinition[] {
  const index = options instanceof DocsIndex ? options : new DocsIndex(options);
  const getSection = adaptTool(getSectionTool(index), {
    name: 'get_section',
    title: 'Get one Markdown section',
    description: [
      'Return a single section of a Markdown file, or of Markdown text you send, chosen by heading title or anchor slug.',
      "Reach for it when only one part of a long document matters, such as a README's Install part.",
      'Not for splitting a whole document (chunk_markdown) or for listing its headings (outline_markdown).',
      "Send exactly one of path and text; anchor wins over heading, and heading ignores letter case. When titles repeat, the first match is returned and matches counts them: take another one's anchor from outline_markdown.",
      "If nothing matches, the error lists the document's headings, nearest first.",
    ].join('\n'),
    inputSchema: z.object({
      path: pathField,
      text: textField,
      anchor: z
        .string()
        .max(4096, 'an anchor is at most 4096 characters')
        .min(1)
        .optional()
        .describe(
          "Anchor slug as listed by outline_markdown, e.g. 'install', or 'install-1' for a repeated 'Install' heading. Takes precedence over heading.",
        ),
      heading: z
        .string()
        .max(1000, 'a heading is at most 1000 characters')
        .min(1)
        .optional()
        .describe(
          "Title of the heading to look up, e.g. 'Install'; letter case is ignored. Omit when sending anchor.",
        ),
      include_subsections: z
        .boolean()
        .default(true)
        .describe(
          'True (default) keeps the nested lower-level headings and their text; false stops at the next heading.',
        ),
    }),
    outputSchema: z.object({
      title: z.string().describe('Heading text of the section.'),
      heading_path: z
        .array(z.string())
        .describe('Enclosing headings, outermost first, ending with this one.'),
      level: z.number().int().describe('Heading level, 1 to 6.'),
      anchor: z.string().describe('Anchor slug, unique in the document.'),
      start_line: z.number().int().describe('Line of the heading (1-based).'),
      end_line: z.number().int().describe('Last line of the section.'),
      chars: z.number().int().describe('Section length in characters.'),
      matches: z
        .number()
        .int()
        .describe('Sections sharing the requested title (1 when found by anchor).'),
      text: z
        .string()
        .describe('Markdown of the section (cut at 200000 characters, see truncated).'),
      truncated: z.boolean().describe('True when text was cut at 200000 characters.'),
    }),
    mapInput: (i) => {
      exactlyOne(i);
      return {
        path: i.path,
        text: i.text,
        anchor: i.anchor,
        heading: i.heading,
        include_subsections: i.include_subsections,
        offset: 0,
        max_chars: 200000,
      };
    },
    mapOutput: (o) => ({
      title: o.title,
      heading_path: o.heading_path,
      level: o.level,
      anchor: o.anchor,
      start_line: o.start_line,
      end_line: o.end_line,
      chars: o.chars,
      matches: o.matches,
      text: o.text,
      truncated: o.truncated,
    }),
  });
  const outline = adaptTool(outlineTool(index), {
    name: 'outline_markdown',
    title: 'List the headings of a Markdown document',
    description: [
      'List the headings of one Markdown file or text, with the anchors get_section accepts.',
      'Call it first to learn which sections exist and to tell apart headings that share a title.',
      'Not for reading a section (get_section) or for splitting the document (chunk_markdown).',
      'Only real headings count: lines in code fences, HTML blocks or front matter are skipped, and underlined (setext) headings are recognised.',
      'Send exactly one of path and text. The whole outline comes in one answer; a file outside the root or too large is refused with an error naming the problem.',
    ].join('\n'),
    inputSchema: z.object({
      path: pathField,
      text: textField,
      max_depth: z
        .number()
        .int()
        .min(1)
        .max(6)
        .default(6)
        .describe('Deepest heading level to list, 1 to 6 (default 6).'),
    }),
    outputSchema: z.object({
      title: z
        .string()
        .nullable()
        .describe('Document title (first level-1 heading, else first heading), or null.'),
      headings: z
        .array(
          z.object({
            title: z.string().describe('Heading text.'),
            level: z.number().int().describe('Heading level, 1 to 6.'),
            anchor: z.string().describe('Anchor slug for get_section.'),
            start_line: z.number().int().describe('Line of the heading (1-based).'),
            end_line: z.number().int().describe('Last line of the section, subsections included.'),
            chars: z.number().int().describe('Section size in characters, subsections included.'),
          }),
        )
        .describe('Headings in document order.'),
      total: z.number().int().describe('Number of headings listed.'),
    }),
    mapInput: (i) => {
      exactlyOne(i);
      return { path: i.path, text: i.text, depth: i.max_depth, offset: 0, limit: 1 };
    },
    mapOutput: (o) => {
      const d = o.documents[0]!;
      return {
        title: d.title,
        headings: d.sections.map((s) => ({
          title: s.heading,
          level: s.level,
          anchor: slugOf(s.anchor),
          start_line: s.start_line,
          end_line: s.end_line,
          chars: s.chars,
        })),
        total: d.sections.length,
      };
    },
  });
  const chunk = adaptTool(chunkTool(index), {
    name: 'chunk_markdown',
    title: 'Split Markdown into chunks',
    description: [
      'Split a whole Markdown file or text into consecutive chunks that follow its headings and stay within a character budget, ready for embedding.',
      'Use it to ingest or index an entire document.',
      'Not for one section (get_section) or for the heading list (outline_markdown).',
      'Sections that fit stay whole with their subsections; bigger ones are divided at blank lines, and code fences or tables are never cut (one that alone is too big comes back whole, marked oversized). Front matter is dropped.',
      'Send exactly one of path and text. Chunks come in pages; continue with next_offset. A file outside the root, too large or not UTF-8 is refused with an error naming the problem.',
    ].join('\n'),
    inputSchema: z.object({
      path: pathField,
      text: textField,
      max_chars: z
        .number()
        .int()
        .min(200)
        .max(100000)
        .default(2000)
        .describe('Character budget per chunk, 200 to 100000 (default 2000).'),
      offset: z
        .number()
        .int()
        .min(0)
        .default(0)
        .describe('Index of the first chunk to return (default 0); send next_offset to continue.'),
    }),
    outputSchema: z.object({
      chunks: z
        .array(
          z.object({
            index: z.number().int().describe('Chunk position, from 0.'),
            heading_path: z
              .array(z.string())
              .describe('Headings enclosing the chunk, outermost first.'),
            anchor: z
              .string()
              .describe(
                'Anchor slug of the section the chunk belongs to ("" before the first heading).',
              ),
            start_line: z.number().int().describe('First line (1-based).'),
            end_line: z.number().int().describe('Last line.'),
            chars: z.number().int().describe('Length of text.'),
            oversized: z
              .boolean()
              .describe('True when an uncuttable code fence or table exceeds max_chars.'),
            text: z.string().describe('Markdown of the chunk.'),
          }),
        )
        .describe('Chunks in document order.'),
      total_chunks: z.number().int().describe('Chunks in the whole document.'),
      next_offset: z.number().int().nullable().describe('Offset of the next batch, or null.'),
    }),
    mapInput: (i) => {
      exactlyOne(i);
      return { path: i.path, text: i.text, max_chars: i.max_chars, offset: i.offset, limit: 50 };
    },
    mapOutput: (o) => ({
      chunks: o.chunks.map((c) => ({
        index: c.index,
        heading_path: c.heading_path,
        anchor: c.heading_path.length === 0 ? '' : slugOf(c.anchor),
        start_line: c.start_line,
        end_line: c.end_line,
        chars: c.chars,
        oversized: c.oversized,
        text: c.text,
      })),
      total_chunks: o.total_chunks,
      next_offset: o.next_offset,
    }),
  });
  return [getSection, outline, chunk];
}
