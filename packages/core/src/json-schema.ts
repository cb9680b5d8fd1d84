import { z } from 'zod';

/**
 * Schemas already marked by {@link leanJsonSchema}: marking is idempotent, and a schema shared by
 * several tools (a preset's field derived from a native one) is walked once.
 */
const marked = new WeakSet<object>();

type Node = { _zod: { def: Record<string, unknown> } };

function isSchema(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** Adds `meta` to the metadata `schema` already has (its `.describe()` text stays). */
function addMeta(schema: Node, meta: Record<string, unknown>): void {
  const s = schema as unknown as z.ZodType;
  z.globalRegistry.add(s, { ...z.globalRegistry.get(s), ...meta });
}

/**
 * Marks a zod schema so the JSON Schema an MCP SDK derives from it (`tools/list`) carries no
 * noise: no `$schema` dialect line on the root, and no `minimum`/`maximum` that only restate the
 * safe-integer range of an integer (`9007199254740991`), which says nothing to an agent. The
 * bounds a field really has (`.min(1)`, `.max(200)`) stay, and validation is unchanged: only the
 * metadata zod merges into its JSON Schema is set (a key set to `undefined` is left out of the
 * JSON). Returns the same schema.
 */
export function leanJsonSchema<T extends z.ZodType>(schema: T): T {
  addMeta(schema as unknown as Node, { $schema: undefined });
  walk(schema);
  return schema;
}

function walk(value: unknown): void {
  if (!isSchema(value) || marked.has(value)) return;
  marked.add(value);
  const def = value._zod.def;
  if (def.type === 'number') {
    // The bounds as zod writes them (its checks, `.int()` adding the safe-integer range).
    const json = z.toJSONSchema(value as unknown as z.ZodType) as Record<string, unknown>;
    const meta: Record<string, unknown> = {};
    if (typeof json.maximum === 'number' && json.maximum >= Number.MAX_SAFE_INTEGER)
      meta.maximum = undefined;
    if (typeof json.minimum === 'number' && json.minimum <= Number.MIN_SAFE_INTEGER)
      meta.minimum = undefined;
    if (Object.keys(meta).length) addMeta(value, meta);
  }
  for (const [key, child] of Object.entries(def)) {
    // `checks` are refinements, not schemas: their bounds are in the bag read above.
    if (key === 'checks') continue;
    if (key === 'shape' && child && typeof child === 'object') {
      for (const field of Object.values(child as Record<string, unknown>)) walk(field);
    } else if (Array.isArray(child)) {
      for (const item of child) walk(item);
    } else {
      walk(child);
    }
  }
}
