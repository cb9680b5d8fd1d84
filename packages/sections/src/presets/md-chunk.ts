import { type AnyToolDefinition, adaptTool, type FieldRule, fieldLimits } from '@lectern/core';
import { z } from 'zod';
import { checkSource, type SourceKey } from '../lib/common.js';
import { DocsIndex, type SectionsOptions } from '../lib/docs-index.js';
import { chunkTool } from '../tools/chunk.js';
import { getSectionTool } from '../tools/get-section.js';
import { outlineTool } from '../tools/outline.js';

const path: FieldRule = {
  describe:
    'Markdown or plain-text file inside the configured documentation root: relative to it, or absolute under it (UTF-8, at most 10 MB). Omit when sending text.',
};
const text: FieldRule = {
  describe: 'Raw Markdown to work on in place of a file (at most 10 MB). Omit when sending path.',
};

/** This preset names a document by path or text only, and always names one. */
const SOURCES: readonly SourceKey[] = ['path', 'text'];
const oneSource = (native: Record<string, unknown>) => {
  checkSource(native, { sources: SOURCES });
  return native;
};

/** The seed's chunk budget and page size (the native tool's own defaults are larger). */
const CHUNK_CHARS = 2000;
const CHUNKS_PER_CALL = 50;

const slugOf = (anchor: string) => anchor.slice(anchor.lastIndexOf('#') + 1);

/**
 * The `md-chunk` preset (seed 002): get_section, outline_markdown and chunk_markdown, each the
 * native tool under core's `adaptTool` with the seed's names and our descriptions; a document is
 * named by path or text only, and limits are the native ones.
 */
export function mdChunkTools(options: SectionsOptions | DocsIndex): AnyToolDefinition[] {
  const index = options instanceof DocsIndex ? options : new DocsIndex(options);
  const nativeGet = getSectionTool(index);
  const sectionPage = fieldLimits(nativeGet.inputSchema, 'max_chars');
  const getSection = adaptTool(nativeGet, {
    name: 'get_section',
    title: 'Get one Markdown section',
    description: [
      'Return a single section of a Markdown file, or of Markdown text you send, chosen by heading title or anchor slug.',
      "Reach for it when only one part of a long document matters, such as a README's Install part.",
      'Not for splitting a whole document (chunk_markdown) or listing its headings (outline_markdown).',
      `Send exactly one of path and text. When titles repeat, the first match is returned and matches counts them. A section over ${sectionPage.max} characters comes in parts: while truncated is true, next_offset continues it.`,
      "If nothing matches, the error lists the document's headings, nearest first.",
    ].join('\n'),
    // The seed tells callers to send "" for the parameters they leave empty.
    input: {
      path: { ...path, blankIsAbsent: true },
      text: { ...text, blankIsAbsent: true },
      anchor: {
        blankIsAbsent: true,
        describe:
          "Anchor slug as listed by outline_markdown, e.g. 'install', or 'install-1' for a repeated 'Install' heading. Takes precedence over heading. An empty string counts as not given.",
      },
      heading: {
        blankIsAbsent: true,
        describe:
          "Title of the heading to look up, e.g. 'Install'; letter case is ignored. Omit (or send an empty string) when sending anchor.",
      },
      include_subsections:
        'True (default) keeps the nested lower-level headings and their text; false stops at the next heading.',
      offset: `Character position in the section to start at (default 0). A section longer than ${sectionPage.max} characters comes in parts: send the next_offset of the previous answer to get the next one.`,
    },
    output: {
      anchor: 'Anchor slug, unique in the document.',
      title: 'Heading text of the section.',
      level: 'Heading level, 1 to 6.',
      heading_path: 'Enclosing headings, outermost first, ending with this one.',
      start_line: 'Line of the heading (1-based).',
      end_line: 'Last line of the section.',
      chars: 'Section length in characters.',
      matches: 'Sections sharing the requested title (1 when found by anchor).',
      text: `Markdown of the section from offset, at most ${sectionPage.max} characters (see truncated).`,
      truncated: {
        from: 'has_more',
        describe: `True when text stops before the end of the section (it was cut at ${sectionPage.max} characters); next_offset reads on.`,
      },
      next_offset:
        'Offset of the rest of the section for the next call, or null when text reaches its end.',
    },
    fixed: { max_chars: sectionPage.max },
    toNative: oneSource,
  });
  const nativeOutline = outlineTool(index);
  const depth = fieldLimits(nativeOutline.inputSchema, 'depth');
  const outline = adaptTool(nativeOutline, {
    name: 'outline_markdown',
    title: 'List the headings of a Markdown document',
    description: [
      'List the headings of one Markdown file or text, with the anchors get_section accepts.',
      'Call it first to learn which sections exist and to tell apart headings that share a title.',
      'Not for reading a section (get_section) or splitting the document (chunk_markdown).',
      'Lines in code fences, HTML blocks or front matter are not headings; underlined (setext) headings are.',
      'Send exactly one of path and text; the whole outline comes in one answer. A file outside the root or too large is refused.',
    ].join('\n'),
    input: {
      path,
      text,
      max_depth: {
        from: 'depth',
        default: depth.max,
        describe: `Deepest heading level to list, ${depth.min} to ${depth.max} (default ${depth.max}).`,
      },
    },
    output: {
      title: {
        from: 'documents.0.title',
        describe: 'Document title (first level-1 heading, else first heading), or null.',
      },
      headings: {
        from: 'documents.0.sections',
        describe: 'Headings in document order.',
        fields: {
          title: { from: 'heading', describe: 'Heading text.' },
          level: 'Heading level, 1 to 6.',
          anchor: { describe: 'Anchor slug for get_section.', value: (a) => slugOf(String(a)) },
          start_line: 'Line of the heading (1-based).',
          end_line: 'Last line of the section, subsections included.',
          chars: 'Section size in characters, subsections included.',
        },
      },
      total: {
        from: 'documents.0.sections',
        schema: z.number().int().describe('Number of headings listed.'),
        value: (sections) => (sections as unknown[]).length,
      },
    },
    fixed: { offset: 0, limit: 1 },
    toNative: oneSource,
  });
  const nativeChunk = chunkTool(index);
  const budget = fieldLimits(nativeChunk.inputSchema, 'max_chars');
  const chunk = adaptTool(nativeChunk, {
    name: 'chunk_markdown',
    title: 'Split Markdown into chunks',
    description: [
      'Split a whole Markdown file or text into consecutive chunks that follow its headings and stay within a character budget, ready for embedding.',
      'Use it to ingest or index an entire document.',
      'Not for one section (get_section) or the heading list (outline_markdown).',
      'Sections that fit stay whole; bigger ones are divided at blank lines, and code fences or tables are never cut. Front matter is dropped.',
      "Send exactly one of path and text; continue with next_offset. Choose max_chars from your embedding model's input size, about four characters per English token.",
      'A file outside the root, too large or not UTF-8 is refused.',
    ].join('\n'),
    input: {
      path,
      text,
      max_chars: {
        default: CHUNK_CHARS,
        describe: `Character budget per chunk, ${budget.min} to ${budget.max} (default ${CHUNK_CHARS}).`,
      },
      offset: 'Index of the first chunk to return (default 0); send next_offset to continue.',
    },
    output: {
      chunks: {
        describe: 'Chunks in document order.',
        fields: {
          index: 'Chunk position, from 0.',
          heading_path: 'Headings enclosing the chunk, outermost first.',
          anchor: {
            describe:
              'Anchor slug of the section the chunk belongs to ("" before the first heading).',
            value: (a, chunk) =>
              (chunk.heading_path as unknown[]).length === 0 ? '' : slugOf(String(a)),
          },
          start_line: 'First line (1-based).',
          end_line: 'Last line.',
          chars: 'Length of text.',
          oversized: 'True when an uncuttable code fence or table exceeds max_chars.',
          text: 'Markdown of the chunk.',
        },
      },
      total_chunks: 'Chunks in the whole document.',
      next_offset: 'Offset of the next batch, or null.',
    },
    fixed: { limit: CHUNKS_PER_CALL },
    toNative: oneSource,
  });
  return [getSection, outline, chunk];
}
