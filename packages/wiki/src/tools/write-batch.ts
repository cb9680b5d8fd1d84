import { CONTENT_WRITE, defineTool } from '@lectern/core';
import { z } from 'zod';
import type { Operation } from '../lib/batch.js';
import type { WikiRuntime } from '../lib/runtime.js';
import { SEED_WIKI_PARAM, versionSchema, wikiParam } from '../lib/schemas.js';

/** The wiki preset's description (its surface is pinned by a snapshot). */
const SEED_DESCRIPTION = `Change pages of one wiki in a single all-or-nothing batch: create, overwrite, append, replace exact text, delete, or move a page while rewriting every link to it.
Use it after read_page with raw=true gave you each page's exact text and version; every change to an existing page needs that version.
Not for reading: it never returns page text (use read_page).
Operations run in order. If any is invalid or a version is stale, nothing is written and BATCH_REJECTED lists each failure with the page's current version.
dry_run previews the diffs. Writes are atomic, crash-safe and locked per wiki.`;

const DESCRIPTION = `Change pages of one wiki in one all-or-nothing batch: create, overwrite, append, replace exact text, delete, or move a page and its links.
Use it after read_page with raw=true gave you each page's text and version.
Not for reading (use read_page).
If any operation is invalid or a version is stale, nothing is written and BATCH_REJECTED lists each failure. dry_run previews the diffs.`;

/**
 * Most characters that `content`, `old_text` and `new_text` of one batch may hold together, so
 * that any batch the schema accepts fits in one MCP message however it is escaped.
 */
export const WRITE_BATCH_MAX_TEXT_CHARS = 8_000_000;

/** A page text field, bounded by the whole batch's budget. */
const text = () => z.string().max(WRITE_BATCH_MAX_TEXT_CHARS);

const path = z.string().min(1).max(1024).describe('Page path, e.g. "wiki/a.md".');
const expected = versionSchema
  .optional()
  .describe('Version from read_page; needed if the page exists.');

/** The wiki preset's operations: one object shape per op (its snapshot pins it). */
const seedOperation = z.discriminatedUnion('op', [
  z
    .object({
      op: z.literal('put').describe('Create the page, or overwrite all of it.'),
      path,
      content: text().describe('The complete new text of the page.'),
      expected_version: expected,
    })
    .describe('put: create a page or replace its whole text.'),
  z
    .object({
      op: z
        .literal('append')
        .describe('Add text at the end of the page (creates it when missing).'),
      path,
      content: text()
        .min(1)
        .describe(
          'Text to add; a line break is inserted first when the page does not end with one.',
        ),
      expected_version: expected,
    })
    .describe('append: add text at the end of a page.'),
  z
    .object({
      op: z.literal('replace').describe('Replace exact text inside an existing page.'),
      path,
      old_text: text()
        .min(1)
        .describe('Text to find, exactly as stored (read with raw=true), line breaks included.'),
      new_text: text().describe('Replacement text; may be empty to delete old_text.'),
      expected_occurrences: z
        .number()
        .int()
        .min(1)
        .max(10_000)
        .default(1)
        .describe(
          'How many times old_text must occur (default 1); every occurrence is replaced, and any other count refuses the batch.',
        ),
      expected_version: expected,
    })
    .describe('replace: swap exact text for new text.'),
  z
    .object({
      op: z.literal('delete').describe('Remove an existing page.'),
      path,
      expected_version: expected,
    })
    .describe('delete: remove a page.'),
  z
    .object({
      op: z.literal('move').describe('Rename an existing page and update links to it.'),
      path,
      new_path: z
        .string()
        .min(1)
        .max(1024)
        .describe(
          'New page path from the wiki root; must not exist yet. Missing folders are created.',
        ),
      expected_version: expected,
    })
    .describe('move: rename a page; links across the wiki follow it.'),
]);

/** The fields each op takes besides op, path and expected_version (required ones first). */
const OP_FIELDS = {
  put: { required: ['content'], optional: [] },
  append: { required: ['content'], optional: [] },
  replace: { required: ['old_text', 'new_text'], optional: ['expected_occurrences'] },
  delete: { required: [], optional: [] },
  move: { required: ['new_path'], optional: [] },
} as const;
const OP_SPECIFIC = [
  'content',
  'old_text',
  'new_text',
  'expected_occurrences',
  'new_path',
] as const;

/**
 * The native operations: one flat object whose op says which fields apply (a third of the
 * union's size in the tool list), checked per op so a missing or stray field is refused.
 */
const flatOperation = z
  .object({
    op: z
      .enum(['put', 'append', 'replace', 'delete', 'move'])
      .describe('put, append, replace (old_text), delete, or move (to new_path; links follow).'),
    path: z.string().min(1).max(1024).describe('Page path.'),
    content: text().optional().describe('put: the whole new text; append: text to add.'),
    old_text: text().min(1).optional().describe('replace: exact stored text to find.'),
    new_text: text().optional().describe('replace: its replacement; may be empty.'),
    expected_occurrences: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('replace: times old_text must occur; default 1.'),
    new_path: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('move: the new path; must not exist.'),
    expected_version: versionSchema
      .optional()
      .describe('From read_page; needed if the page exists.'),
  })
  .superRefine((o, ctx) => {
    const spec = OP_FIELDS[o.op];
    for (const field of spec.required) {
      if (o[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${o.op} needs ${field}` });
      }
    }
    const allowed: readonly string[] = [...spec.required, ...spec.optional];
    for (const field of OP_SPECIFIC) {
      if (o[field] !== undefined && !allowed.includes(field)) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} does not apply to ${o.op}${allowed.length ? `; ${o.op} takes ${allowed.join(', ')}` : ''}`,
        });
      }
    }
    if (o.op === 'append' && o.content === '') {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'append needs text to add' });
    }
  });

/** Which schema and words: the native flat operations, or the wiki preset's pinned union. */
export type WriteBatchSurface = 'native' | 'seed';

/** A checked operation (flat or union form) as the writer takes it: only its op's fields. */
function toOperation(o: z.output<typeof flatOperation>): Operation {
  const base = { path: o.path, expected_version: o.expected_version };
  switch (o.op) {
    case 'put':
    case 'append':
      return { op: o.op, ...base, content: o.content ?? '' };
    case 'replace':
      return {
        op: 'replace',
        ...base,
        old_text: o.old_text ?? '',
        new_text: o.new_text ?? '',
        expected_occurrences: o.expected_occurrences,
      };
    case 'delete':
      return { op: 'delete', ...base };
    case 'move':
      return { op: 'move', ...base, new_path: o.new_path ?? '' };
  }
}

/** The write_batch tool: all-or-nothing, version-checked, journaled edits. */
export function writeBatchTool(runtime: WikiRuntime, surface: WriteBatchSurface = 'native') {
  const seed = surface === 'seed';
  const operation = seed ? seedOperation : flatOperation;
  return defineTool({
    name: 'write_batch',
    title: 'Edit wiki pages in one batch',
    description: seed ? SEED_DESCRIPTION : DESCRIPTION,
    inputSchema: z.object({
      wiki: seed ? wikiParam.describe(SEED_WIKI_PARAM) : wikiParam,
      operations: z
        .array(operation as typeof flatOperation)
        .min(1)
        .max(100)
        .superRefine((ops, ctx) => {
          let total = 0;
          for (const op of ops) {
            total += (op.content?.length ?? 0) + (op.old_text?.length ?? 0);
            total += op.new_text?.length ?? 0;
          }
          if (total > WRITE_BATCH_MAX_TEXT_CHARS) {
            ctx.addIssue({
              code: 'custom',
              message: `content, old_text and new_text together hold ${total} characters; a batch takes at most ${WRITE_BATCH_MAX_TEXT_CHARS}, so split it into several batches`,
            });
          }
        })
        .describe(
          seed
            ? 'Applied in order, each to the result of the ones before; a page already changed in this batch needs no expected_version again. content, old_text and new_text hold 8,000,000 characters in all.'
            : 'Applied in order; a page changed earlier needs no expected_version again. 8,000,000 text characters at most.',
        ),
      log: z
        .string()
        .min(1)
        .max(4000)
        .optional()
        .describe(
          seed
            ? 'Note for log.md: first line a dated heading, then the entry.'
            : 'Entry for log.md: a dated heading line, then text.',
        ),
      dry_run: z.boolean().default(false).describe('Check and return diffs, writing nothing.'),
    }),
    outputSchema: z.object({
      dry_run: z.boolean().describe('True when this was a preview.'),
      applied: z
        .boolean()
        .describe(
          'True when the changes were written (false for a dry run or when nothing changed).',
        ),
      operations: z
        .array(
          z.object({
            index: z.number().int().describe('0-based position in operations.'),
            op: z.enum(['put', 'append', 'replace', 'delete', 'move']).describe('The operation.'),
            path: z.string().describe('Normalised page path.'),
            new_path: z.string().optional().describe('Destination of a move.'),
            version: z
              .string()
              .nullable()
              .describe(
                'Version of the page (new_path for a move) after the batch; null when it no longer exists.',
              ),
            replacements: z
              .number()
              .int()
              .optional()
              .describe('Occurrences replaced by a replace.'),
            links_updated: z
              .number()
              .int()
              .optional()
              .describe('Links rewritten across the wiki by a move.'),
          }),
        )
        .describe('One entry per operation, in order.'),
      changes: z
        .array(
          z.object({
            path: z.string().describe('Page written or removed.'),
            action: z.enum(['create', 'update', 'delete']).describe('What happens to the file.'),
            cause: z
              .enum(['operation', 'link_update', 'log'])
              .describe(
                'Changed by an operation, by a move updating its links, or by the log entry.',
              ),
            previous_version: z
              .string()
              .nullable()
              .describe('Version before the batch; null for a new page.'),
            version: z.string().nullable().describe('Version after the batch; null when removed.'),
            links_updated: z.number().int().optional().describe('Links rewritten in this page.'),
            diff: z.string().optional().describe('Unified diff (dry run only).'),
            diff_truncated: z
              .boolean()
              .optional()
              .describe('True when the diff was cut at 64 KiB.'),
          }),
        )
        .describe('Every file the batch writes or removes, sorted by path.'),
      broken_links: z
        .array(
          z.object({
            path: z.string().describe('Page containing the link.'),
            line: z.number().int().describe('1-based line of the link.'),
            link: z.string().describe('The link as written, e.g. "[[Old page#Intro]]".'),
            reason: z
              .enum(['missing_page', 'missing_heading', 'missing_block'])
              .describe('What the link points to that does not exist.'),
          }),
        )
        .describe(
          'Wikilinks in changed pages, or aimed at removed pages, that lead nowhere after the batch (first 100).',
        ),
      broken_links_truncated: z
        .boolean()
        .describe('True when more than 100 broken links were found.'),
      log_entry: z.string().nullable().describe('The entry appended to log.md, or null.'),
      warnings: z.array(z.string()).describe('Things worth knowing that did not stop the batch.'),
    }),
    annotations: CONTENT_WRITE,
    handler: async (input, context) => {
      const wiki = runtime.wikis.get(input.wiki);
      return runtime.writer(wiki).run(
        {
          operations: input.operations.map(toOperation),
          log: input.log,
          dry_run: input.dry_run,
        },
        context.signal,
      );
    },
  });
}
