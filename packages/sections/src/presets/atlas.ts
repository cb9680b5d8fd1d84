import { type AnyToolDefinition, adaptTool, type FieldRule, fieldLimits } from '@lectern/core';
import { DocsIndex, type SectionsOptions } from '../lib/docs-index.js';
import { outlineTool } from '../tools/outline.js';
import { readTool } from '../tools/read.js';
import { searchTool } from '../tools/search.js';
import { whereTool } from '../tools/where.js';

/** The seed's `lines: { start, end }`, made of the native start_line and end_line. */
const lines: FieldRule = {
  from: '.',
  describe: 'Line range of the section in its file.',
  fields: {
    start: { from: 'start_line', describe: 'First line (1-based).' },
    end: { from: 'end_line', describe: 'Last line, inclusive.' },
  },
};

const anchorText =
  "Section anchor '<doc_id>#<slug>' (e.g. 'guide/install#linux') or a bare doc_id for a whole page, as listed by atlas_outline or returned by atlas_search and atlas_where.";

/**
 * The `atlas` preset (seed 000): atlas_read, atlas_where, atlas_search and atlas_outline, each
 * the native tool under core's `adaptTool` with the seed's names, its `lines` pairs and our
 * descriptions; limits and defaults are the native ones.
 */
export function atlasTools(options: SectionsOptions | DocsIndex): AnyToolDefinition[] {
  const index = options instanceof DocsIndex ? options : new DocsIndex(options);

  const nativeRead = readTool(index);
  const page = fieldLimits(nativeRead.inputSchema, 'max_chars');
  const read = adaptTool(nativeRead, {
    name: 'atlas_read',
    title: 'Read a doc section by anchor',
    description: [
      'Fetch one documentation section as Markdown, subsections included, addressed by anchor, a page of characters at a time.',
      'Use it once atlas_outline, atlas_where or atlas_search has given you an anchor.',
      'Not for finding sections by topic or words: call atlas_where or atlas_search first.',
      'While truncated is true, call again with offset set to next_offset. An unknown anchor fails with the nearest valid anchors.',
      'The answer is JSON text in the single field result; on failure result holds error, code and suggestions.',
    ].join('\n'),
    input: {
      anchor: anchorText,
      offset:
        'Character position to begin at (default 0); after a page with truncated true, send its next_offset.',
      max_chars: `Upper bound on characters in this page, ${page.min} to ${page.max} (default ${page.default}).`,
    },
    output: {
      anchor: 'The anchor that was read.',
      heading: 'Heading text (the page title for a whole page).',
      path: 'File of the section, relative to its documentation root.',
      lines,
      content: 'This page of the section’s Markdown.',
      truncated: { from: 'has_more', describe: 'True when more characters remain.' },
      next_offset: 'Offset for the next page, or null when done.',
    },
    fixed: { include_subsections: true },
    resultAsJson: {
      key: 'result',
      describe:
        'JSON text of the page read ({anchor, heading, path, lines: {start, end}, content, truncated, next_offset}), or of the error ({error, code, suggestions}).',
    },
  });

  const nativeWhere = whereTool(index);
  const candidates = fieldLimits(nativeWhere.inputSchema, 'limit');
  const where = adaptTool(nativeWhere, {
    name: 'atlas_where',
    title: 'Find where a topic is documented',
    description: [
      'Name the few documentation sections most likely to cover a topic, from a term, a phrase or a plain question.',
      'Start here when you know what you need but not which page has it, then open the best anchor with atlas_read.',
      'Not for every passage that mentions some words (atlas_search) or for the structure (atlas_outline).',
      'Filler words are dropped and headings with the remaining words weigh most. One answer, best first, no paging; a query without letters or digits fails with EMPTY_QUERY.',
    ].join('\n'),
    input: {
      query: {
        required: true,
        describe: "Topic to locate, as words or a question, e.g. 'rotate API tokens'.",
      },
      limit: `Most candidate sections to return, ${candidates.min} to ${candidates.max} (default ${candidates.default}).`,
    },
    output: {
      results: {
        describe: 'Candidate sections, best first.',
        fields: {
          anchor: 'Anchor to pass to atlas_read.',
          heading: 'Heading text.',
          heading_path: 'Enclosing headings, outermost first, ending with this one.',
          path: 'File relative to its documentation root.',
          lines,
          score: { nullable: false, describe: 'Relevance, higher is better.' },
        },
      },
    },
  });

  const nativeSearch = searchTool(index);
  const hits = fieldLimits(nativeSearch.inputSchema, 'limit');
  const search = adaptTool(nativeSearch, {
    name: 'atlas_search',
    title: 'Search the documentation',
    description: [
      'Search all documentation sections for words or a phrase and rank the matches, each with a snippet.',
      'Use it to gather every passage that mentions something, then open a hit with atlas_read.',
      "Not for the single section that owns a topic (atlas_where) or a page's structure (atlas_outline).",
      'Case and common English endings are ignored; heading hits count more than body hits.',
      'Follow next_offset for more. A query without letters or digits fails with EMPTY_QUERY.',
    ].join('\n'),
    input: {
      query: "Words or phrase to find, e.g. 'cache timeout'.",
      limit: `Results per call, ${hits.min} to ${hits.max} (default ${hits.default}).`,
      offset: 'Ranked results to skip (default 0); send next_offset to continue.',
    },
    output: {
      results: {
        describe: 'Matching sections, best first.',
        fields: {
          anchor: 'Anchor to pass to atlas_read.',
          heading: 'Heading text.',
          heading_path: 'Enclosing headings, outermost first.',
          path: 'File relative to its documentation root.',
          lines,
          snippet: 'Text around the first match.',
          score: 'Relevance, higher is better.',
        },
      },
      total: 'How many sections match.',
      next_offset: 'Offset of the next page, or null.',
    },
  });

  const nativeOutline = outlineTool(index);
  const depth = fieldLimits(nativeOutline.inputSchema, 'depth');
  const outline = adaptTool(nativeOutline, {
    name: 'atlas_outline',
    title: 'Outline the documentation',
    description: [
      "Show the documentation's table of contents: the headings of one page, or of every page when doc_id is omitted.",
      'Use it to see what exists and to collect anchors for atlas_read.',
      'Not for hunting down a topic: atlas_where finds it and atlas_search lists every mention.',
      'Files too large or not UTF-8 are left out. The all-pages list continues with next_offset; an unknown doc_id fails with DOC_NOT_FOUND and the nearest ids.',
    ].join('\n'),
    input: {
      doc_id:
        "Page to outline, by doc_id (its path without extension, e.g. 'guide/install'). Leave out for all pages.",
      depth: `Deepest heading level to list, ${depth.min} to ${depth.max} (default 6 for one page, 2 for all pages).`,
      offset: 'All-pages listing: pages to skip (default 0); send next_offset to continue.',
    },
    output: {
      documents: {
        describe: 'Outlined pages, sorted by doc_id.',
        fields: {
          doc_id: { nullable: false, describe: 'Page id.' },
          path: { nullable: false, describe: 'File relative to its documentation root.' },
          title: 'Page title (first top-level heading), if any.',
          sections: {
            describe: 'Headings in page order.',
            fields: {
              anchor: 'Anchor to pass to atlas_read.',
              heading: 'Heading text.',
              level: 'Heading level, 1 to 6.',
              lines,
              chars: 'Section size in characters, subsections included.',
            },
          },
        },
      },
      total_documents: 'Pages available.',
      next_offset: 'Offset of the next batch of pages, or null.',
    },
    fixed: { limit: 50 },
  });

  return [read, where, search, outline];
}
