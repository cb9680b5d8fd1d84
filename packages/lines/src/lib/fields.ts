import { z } from 'zod';

/** The `workspace` input every lines tool takes: one of the configured ids. */
export function workspaceField(ids: readonly string[]) {
  return z
    .string()
    .max(64, 'an id is at most 64 characters')
    .min(1)
    .describe(`Workspace id; one of: ${ids.join(', ')}.`);
}

/** An optional list of globs (`include` / `exclude`), described by `text`. */
export function globList(text: string) {
  return z.array(z.string().min(1).max(1000)).max(100).optional().describe(text);
}
