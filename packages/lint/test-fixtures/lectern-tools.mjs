// A small Lectern-style tool set used by the lint tests: zod schemas, core's defineTool, and
// descriptions written the way Lectern asks (purpose, siblings, when / when-not, behaviour).
import { defineTool } from '@lectern/core';
import { z } from 'zod';

const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export const notesOutline = defineTool({
  name: 'notes_outline',
  title: 'Outline a note',
  description:
    "List the heading tree of one Markdown note with each section's anchor and line range. Call it first when you know the file but not the section, then read a section with notes_read; to find text across many notes, use notes_search instead. Paths are relative to the notes root; a path outside it, a symlink or a non-Markdown file is refused with a clear error. Files over 5 MB are rejected before parsing.",
  inputSchema: z.object({
    path: z.string().min(1).describe('Note path relative to the notes root, e.g. guides/setup.md.'),
  }),
  outputSchema: z.object({
    headings: z
      .array(z.object({ anchor: z.string(), title: z.string(), level: z.number().int() }))
      .describe('Headings in document order.'),
  }),
  annotations: READ_ONLY,
  handler: async () => ({ headings: [] }),
});

export const notesRead = defineTool({
  name: 'notes_read',
  title: 'Read a note section',
  description:
    "Read one Markdown section of a note by its anchor, a page of characters at a time. Use it after notes_outline or notes_search handed you an anchor; to see every heading of a file first, call notes_outline instead. Long sections arrive in pages of `max_chars` characters: pass the returned next_offset as `offset` to continue. An unknown anchor fails with ANCHOR_NOT_FOUND and lists the closest anchors. Each result carries the file's SHA-256 version.",
  inputSchema: z.object({
    anchor: z
      .string()
      .min(1)
      .describe(
        'Section anchor such as guide.md#install, as given by notes_outline or notes_search.',
      ),
    offset: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Character offset to start at; 0 by default.'),
    max_chars: z
      .number()
      .int()
      .min(100)
      .max(20000)
      .default(4000)
      .describe('Page size in characters, 100 to 20000, default 4000.'),
  }),
  outputSchema: z.object({
    content: z.string().describe('The page of section text.'),
    next_offset: z
      .number()
      .int()
      .nullable()
      .describe('Offset of the next page, or null at the end.'),
    version: z.string().describe('SHA-256 of the file.'),
  }),
  annotations: READ_ONLY,
  handler: async () => ({ content: '', next_offset: null, version: '0'.repeat(64) }),
});

export const notesSearch = defineTool({
  name: 'notes_search',
  title: 'Search notes',
  description:
    'Search every note for words or a phrase and return ranked section hits with anchors and snippets. Use it when you do not know which file holds the answer; once you have an anchor, read the section with notes_read rather than searching again. Results are capped at `limit` hits (default 10, at most 50), best first; an empty query is refused. The index refreshes when a file changes size or mtime.',
  inputSchema: z.object({
    query: z
      .string()
      .min(1)
      .max(200)
      .describe('Words or a quoted phrase to look for; 1 to 200 characters.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .describe('Most hits to return, 1-50, default 10.'),
  }),
  outputSchema: z.object({
    hits: z
      .array(z.object({ anchor: z.string(), snippet: z.string() }))
      .describe('Best hits first.'),
  }),
  annotations: READ_ONLY,
  handler: async () => ({ hits: [] }),
});

/** Every tool of the fixture, in registration order. */
export const tools = [notesOutline, notesRead, notesSearch];
