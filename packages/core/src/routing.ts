/**
 * Cross-package guidance for composed servers. Each package describes its tools in terms of its
 * own siblings only; when several packages are served together, an agent also needs to know
 * which of the similar tools from other packages to pick (four different "search" tools, four
 * different "read" tools). {@link addRouting} appends that one sentence, naming only the tools
 * actually served.
 */

/** Tools from different packages that do the same kind of job on different stores. */
export interface ToolFamily {
  /** Opening words of the appended sentence, e.g. `"For other stores served here, search with"`. */
  lead: string;
  /**
   * Members by original tool name, each with a short phrase saying when to prefer it (used when
   * another member names it), e.g. `{ search_text: '(exact text in project files)' }`.
   */
  members: Readonly<Record<string, string>>;
}

/** Options of {@link addRouting}. */
export interface RoutingOptions {
  /**
   * The name clients see for an original tool name (after renames and prefix); defaults to the
   * original name.
   */
  displayName?: (name: string) => string;
}

/**
 * Returns `tools` with one sentence appended to the description of each member of each family
 * that is served together with at least one other member, naming those siblings (in the order
 * they are served) and when to prefer each. Tools that belong to no family, and families with
 * a single member served, are returned unchanged (the same objects). Pure: the input is not
 * modified. A tool in several families gets one sentence per family.
 */
export function addRouting<T extends { name: string; description: string }>(
  tools: readonly T[],
  families: readonly ToolFamily[],
  options: RoutingOptions = {},
): T[] {
  const display = options.displayName ?? ((n: string) => n);
  const extra = new Map<string, string[]>();
  for (const family of families) {
    const served = tools.filter((t) => family.members[t.name] !== undefined);
    if (served.length < 2) continue;
    for (const tool of served) {
      const others = served
        .filter((o) => o.name !== tool.name)
        .map((o) => `${display(o.name)} ${family.members[o.name]}`);
      const sentence = `${family.lead} ${joinOr(others)}.`;
      extra.set(tool.name, [...(extra.get(tool.name) ?? []), sentence]);
    }
  }
  return tools.map((t) => {
    const sentences = extra.get(t.name);
    if (!sentences) return t;
    const base = t.description.trimEnd();
    const sep = base.includes('\n') ? '\n' : ' ';
    return { ...t, description: [base, ...sentences].join(sep) };
  });
}

/** `a`, `a or b`, `a, b or c`. */
function joinOr(parts: string[]): string {
  if (parts.length < 2) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}
