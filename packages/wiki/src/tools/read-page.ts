import {
  defineTool,
  isToolError,
  jsonBytes,
  paginateChars,
  planLines,
  READ_ONLY,
  ToolError,
} from '@lectern/core';
import { z } from 'zod';
import { lineStartsOf } from '../lib/markdown.js';
import { renderPage } from '../lib/page.js';
import type { WikiRuntime } from '../lib/runtime.js';
import { wikiParam } from '../lib/schemas.js';

/**
 * The description of read_page; `more` names the field that says lines follow (`has_more` here,
 * the wiki seed's `truncated` in the wiki preset).
 */
export const readPageDescription = (
  more: string,
) => `Read one wiki page, or one of its root files, whole or as a window of lines.
Use it after list_pages or search_wiki gave you a path, and always before editing.
Not for finding pages by words: search_wiki does that.
Links are rendered for people by default; show that form to users. Pass raw=true before an edit to get the stored text a write_batch replace must quote, and the version it expects.
Line numbers match in both forms; when ${more} is true, follow next_offset. A missing page is refused with the nearest existing paths.`;

/** The native description of read_page (the wiki preset keeps {@link readPageDescription}). */
const DESCRIPTION = `Read one wiki page, or one of its root files, whole or as a window of lines.
Use it after list_pages or search_wiki gave you a path, and always before editing.
Not for finding pages by words: search_wiki does that.
Links are rendered by default; raw=true gives the stored text and version a write_batch needs.
When has_more is true, follow next_offset. A missing page is refused with the nearest paths.`;

/** Which surface: the native tool, or the wiki preset's (the seed's parameters only). */
export type ReadPageSurface = 'native' | 'seed';

/**
 * The read_page tool: a page rendered for display or raw for editing, by line window. A line
 * longer than one answer is cut: the part that fits, `has_more`, and (natively) `start_char` to
 * read on; rendered text marks the cut, raw text stays verbatim (the fields say it was cut).
 */
export function readPageTool(runtime: WikiRuntime, surface: ReadPageSurface = 'native') {
  const seed = surface === 'seed';
  const startChar = z.number().int().min(0).optional().describe("A cut line's next_start_char.");
  return defineTool({
    name: 'read_page',
    title: 'Read wiki page',
    description: DESCRIPTION,
    inputSchema: z.object({
      wiki: wikiParam,
      path: z.string().min(1).max(1024).describe('Page path, e.g. "wiki/queen-bee.md".'),
      raw: z
        .boolean()
        .default(false)
        .describe('true: stored text for write_batch; false: rendered.'),
      offset: z.number().int().min(1).optional().describe('First line, 1-based; pass next_offset.'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(1_000_000)
        .optional()
        .describe('Lines from offset; all that fit when omitted.'),
      ...(seed ? {} : { start_char: startChar }),
    }),
    outputSchema: z.object({
      path: z.string().describe('Normalised page path.'),
      content: z.string().describe('The requested lines, with their original line endings.'),
      version: z
        .string()
        .describe('SHA-256 of the whole page; pass it as expected_version to write_batch.'),
      total_lines: z.number().int().describe('Lines in the whole page.'),
      start_line: z.number().int().describe('First line returned, 1-based.'),
      end_line: z.number().int().describe('Last line returned (start_line - 1 when none).'),
      has_more: z.boolean().describe('True when lines follow end_line.'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe('offset to continue from, or null at the end.'),
      raw: z.boolean().describe('Whether content is the stored text (true) or rendered (false).'),
      bom: z
        .boolean()
        .describe(
          'True when the file starts with a UTF-8 byte order mark; raw content then starts with U+FEFF.',
        ),
      size: z.number().int().describe('Size of the page in bytes.'),
      ...(seed
        ? {}
        : {
            next_start_char: z
              .number()
              .int()
              .nullable()
              .describe(
                'Set when a line longer than one answer was cut: pass it as start_char with next_offset.',
              ),
          }),
    }),
    annotations: READ_ONLY,
    handler: async (input) => {
      const wiki = await runtime.open(input.wiki);
      const page = await wiki.readPage(input.path);
      // Raw is verbatim: a byte order mark is the first character (U+FEFF), so the text written
      // back with write_batch gives the same bytes. Rendered text is for reading: no mark.
      const text = input.raw
        ? `${page.bom ? '\ufeff' : ''}${page.text}`
        : renderPage(page.text, page.analysis, wiki.extensions);
      const starts = lineStartsOf(text);
      const total = text === '' ? 0 : starts.length;
      const first = input.offset ?? 1;
      const skip = (seed ? undefined : (input as { start_char?: number }).start_char) ?? 0;
      // The window also stops at a whole line before content would pass the byte budget.
      const lineEnd = (n: number) => (n < total ? starts[n]! : text.length);
      const lineFrom = (n: number) => starts[n - 1]! + (n === first ? skip : 0);
      if (skip > 0 && first <= total && skip > lineEnd(first) - starts[first - 1]!) {
        throw new ToolError(
          'INVALID_RANGE',
          (n) =>
            `${n('start_char')} ${skip} is past the end of line ${first}, which has ${lineEnd(first) - starts[first - 1]!} characters.`,
          { details: { param: 'start_char', line_chars: lineEnd(first) - starts[first - 1]! } },
        );
      }
      const budget = runtime.maxOutputBytes - 1024 - jsonBytes(page.path) - jsonBytes(page.version);
      let plan: ReturnType<typeof planLines>;
      let cut: { content: string; next: number } | null = null;
      try {
        plan = planLines({
          totalLines: total,
          startLine: first,
          lineCount: input.limit ?? Math.max(total, 1),
          maxBytes: budget,
          lineBytes: (n) => jsonBytes(text.slice(lineFrom(n), lineEnd(n))) - 2,
        });
      } catch (error) {
        if (!isToolError(error) || error.code !== 'LINE_TOO_LONG') throw error;
        // One line longer than a whole answer: the part that fits, and where to read on.
        const line = text.slice(starts[first - 1]!, lineEnd(first));
        const part = paginateChars(line, {
          offset: skip,
          maxChars: line.length,
          maxBytes: budget - 256,
        });
        const next = part.next_offset ?? line.length;
        const mark = seed
          ? ` … [line ${first} cut at character ${next} of ${line.length}: one read_page answer holds no more of it; search_wiki finds words in the rest]`
          : ` … [line ${first} cut: characters ${skip} to ${next} of ${line.length}; read on with start_char ${next}]`;
        cut = { content: input.raw ? part.content : `${part.content}${mark}`, next };
        plan = {
          start_line: first,
          end_line: first,
          total_lines: total,
          // The seed's surface cannot read inside a line: it goes on at the next one.
          has_more: seed ? first < total : true,
          has_earlier: first > 1,
          next_start_line: seed ? (first < total ? first + 1 : null) : first,
          limited_by_bytes: true,
        };
      }
      const from = total === 0 ? 0 : lineFrom(plan.start_line);
      const to = plan.end_line < total ? starts[plan.end_line]! : text.length;
      return {
        path: page.path,
        content: cut ? cut.content : plan.end_line < plan.start_line ? '' : text.slice(from, to),
        version: page.version,
        total_lines: plan.total_lines,
        start_line: plan.start_line,
        end_line: plan.end_line,
        has_more: plan.has_more,
        next_offset: plan.next_start_line,
        raw: input.raw,
        bom: page.bom,
        size: page.bytes.length,
        ...(seed ? {} : { next_start_char: cut ? cut.next : null }),
      };
    },
  });
}
