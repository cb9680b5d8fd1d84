import { addRouting, type ToolFamily } from '@lectern/core';

/**
 * Tools of different packages that do the same kind of job on different stores. When a config
 * serves more than one member of a family, each member's description gains one sentence naming
 * the others served (see `addRouting` in @lectern/core). Presets are never routed: their
 * surfaces mirror a fixed published contract.
 */
export const TOOL_FAMILIES: readonly ToolFamily[] = [
  {
    lead: 'Other search tools on this server:',
    members: {
      search_text: 'finds exact text or a regex in project files',
      docs_search: 'ranks documentation sections',
      search_wiki: 'finds wiki pages by topic',
      memory_search: 'cites passages from the indexed notes',
    },
  },
  {
    lead: 'To read from the other stores served here, use',
    members: {
      read_text: 'for numbered lines of a project file',
      docs_read: 'for a documentation section by anchor',
      read_page: 'for a wiki page',
      memory_read_fragment: 'for the lines a memory citation points to',
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
