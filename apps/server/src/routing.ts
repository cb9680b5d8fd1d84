import { addRouting, type ToolFamily } from '@lectern/core';

/**
 * Tools of different packages that do the same kind of job on different stores. When a config
 * serves more than one member of a family, each member's description gains one sentence naming
 * the others served (see `addRouting` in @lectern/core). Presets are never routed: their
 * surfaces mirror a fixed published contract.
 */
export const TOOL_FAMILIES: readonly ToolFamily[] = [
  {
    lead: 'Other stores:',
    members: {
      search_text: '(files)',
      docs_search: '(docs)',
      search_wiki: '(wiki)',
      memory_search: '(notes)',
    },
  },
  {
    lead: 'Other stores:',
    members: {
      read_text: '(files)',
      docs_read: '(docs)',
      read_page: '(wiki)',
      memory_read_fragment: '(notes)',
    },
  },
];

/**
 * Appends the cross-package sentences to a composed (non-preset) tool list. `names` are the
 * names clients see, index for index with `tools` (after renames and prefix).
 */
export function routeComposed<T extends { name: string; description: string }>(
  tools: readonly T[],
  names: readonly string[],
): T[] {
  const shown = new Map(tools.map((t, i) => [t.name, names[i] ?? t.name]));
  return addRouting(tools, TOOL_FAMILIES, { displayName: (n) => shown.get(n) ?? n });
}
