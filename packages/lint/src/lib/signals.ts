import { inputHash } from './canonical.js';
import type { ContextSignals, Json, JsonSchema, ToolInput } from './types.js';

/** Traversal depth cap for invocation cost, per the TDQS spec. */
export const MAX_SCHEMA_DEPTH = 10;

type Obj = { [key: string]: Json };

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(schema: Obj, type: string): boolean {
  const t = schema.type;
  return t === type || (Array.isArray(t) && t.includes(type));
}

/** Resolves a local JSON pointer (`#/$defs/x`, `#/definitions/x`) against the root schema. */
function resolvePointer(root: Obj, ref: string): Obj | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: Json | undefined = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObj(node)) node = node[key];
    else return undefined;
  }
  return isObj(node) ? node : undefined;
}

interface Measure {
  /** Deepest absolute object level reached (0 when nothing object-shaped). */
  depth: number;
  required: number;
  unions: number;
}

const NONE = (level: number): Measure => ({
  depth: Math.max(0, level - 1),
  required: 0,
  unions: 0,
});

function isNullOnly(schema: Json | undefined): boolean {
  if (!isObj(schema)) return false;
  const keys = Object.keys(schema).filter((k) => k !== 'description' && k !== 'title');
  return keys.length === 1 && schema.type === 'null';
}

/**
 * Measures the required subtree of `schema` sitting at object level `level`.
 * - `$ref` is resolved against the root; a pointer already on the current path stops (recursion).
 * - An object occupies `level` and recurses into its required properties at `level + 1`.
 * - An array is transparent: its `items` schema sits at the array's own level, so an array of
 *   objects adds one level, like a nested object.
 * - `allOf` branches all apply (required counts add up); `oneOf`/`anyOf` take the branch with the
 *   most required fields and add `branches - 1` union choices unless the union is the nullable
 *   idiom (one real branch plus `{ type: "null" }`); `not` counts for depth only.
 */
function measure(root: Obj, schema: Json | undefined, level: number, refs: string[]): Measure {
  if (!isObj(schema)) return NONE(level);
  if (level > MAX_SCHEMA_DEPTH) return { depth: MAX_SCHEMA_DEPTH, required: 0, unions: 0 };
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const { $ref: _ignored, ...rest } = schema;
    if (refs.includes(ref)) return NONE(level);
    const target = resolvePointer(root, ref);
    const viaRef = target ? measure(root, target, level, [...refs, ref]) : NONE(level);
    const own = Object.keys(rest).length > 0 ? measure(root, rest, level, refs) : NONE(level);
    return {
      depth: Math.max(viaRef.depth, own.depth),
      required: viaRef.required + own.required,
      unions: viaRef.unions + own.unions,
    };
  }

  let depth = level - 1;
  let required = 0;
  let unions = 0;

  const props = isObj(schema.properties) ? schema.properties : undefined;
  if (props || hasType(schema, 'object')) {
    depth = level;
    const names = Array.isArray(schema.required)
      ? schema.required.filter((n): n is string => typeof n === 'string')
      : [];
    for (const name of names) {
      required += 1;
      const child = measure(root, props?.[name], level + 1, refs);
      depth = Math.max(depth, child.depth);
      required += child.required;
      unions += child.unions;
    }
  } else if (hasType(schema, 'array') || schema.items !== undefined) {
    const items = Array.isArray(schema.items) ? schema.items : [schema.items];
    for (const item of items) {
      const child = measure(root, item, level, refs);
      depth = Math.max(depth, child.depth);
      required += child.required;
      unions += child.unions;
    }
  }

  if (Array.isArray(schema.allOf)) {
    for (const branch of schema.allOf) {
      const m = measure(root, branch, level, refs);
      depth = Math.max(depth, m.depth);
      required += m.required;
      unions += m.unions;
    }
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const real = branches.filter((b) => !isNullOnly(b));
    const nullableIdiom = real.length === 1 && branches.length > 1;
    if (!nullableIdiom) unions += branches.length - 1;
    let widest = 0;
    for (const branch of branches) {
      const m = measure(root, branch, level, refs);
      depth = Math.max(depth, m.depth);
      widest = Math.max(widest, m.required);
      unions += m.unions;
    }
    required += widest;
  }
  if (isObj(schema.not)) {
    depth = Math.max(depth, measure(root, schema.not, level, refs).depth);
  }
  return { depth: Math.min(depth, MAX_SCHEMA_DEPTH), required, unions };
}

/** The three invocation-cost inputs of an input schema, measured over its required subtree. */
export function requiredSubtree(inputSchema: JsonSchema | null | undefined): {
  requiredFieldCount: number;
  schemaDepth: number;
  unionChoiceCount: number;
} {
  if (!isObj(inputSchema) || !isObj(inputSchema.properties)) {
    return { requiredFieldCount: 0, schemaDepth: 0, unionChoiceCount: 0 };
  }
  if (Object.keys(inputSchema.properties).length === 0) {
    return { requiredFieldCount: 0, schemaDepth: 0, unionChoiceCount: 0 };
  }
  const m = measure(inputSchema, inputSchema, 1, []);
  return {
    requiredFieldCount: m.required,
    schemaDepth: Math.max(1, m.depth),
    unionChoiceCount: m.unions,
  };
}

/** `requiredFieldCount + 2·max(0, schemaDepth − 1) + 2·unionChoiceCount`. */
export function computeInvocationCost(s: {
  requiredFieldCount: number;
  schemaDepth: number;
  unionChoiceCount: number;
}): number {
  return s.requiredFieldCount + 2 * Math.max(0, s.schemaDepth - 1) + 2 * s.unionChoiceCount;
}

/** The tool's display title: `title`, else `annotations.title`, else null. */
export function toolTitle(tool: ToolInput): string | null {
  if (typeof tool.title === 'string' && tool.title.trim() !== '') return tool.title;
  const t = tool.annotations?.title;
  return typeof t === 'string' && t.trim() !== '' ? t : null;
}

function boolOrNull(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

function resolveProp(root: Obj, prop: Json | undefined): Obj | undefined {
  if (!isObj(prop)) return undefined;
  if (typeof prop.$ref === 'string') return resolvePointer(root, prop.$ref) ?? prop;
  return prop;
}

/** The top-level input properties as `[name, schema]` pairs (`$ref` resolved one step). */
export function topLevelParams(inputSchema: JsonSchema | null | undefined): [string, Obj][] {
  if (!isObj(inputSchema) || !isObj(inputSchema.properties)) return [];
  return Object.entries(inputSchema.properties).map(([name, prop]) => [
    name,
    resolveProp(inputSchema, prop) ?? {},
  ]);
}

/** Stage 1: every TDQS context signal of one tool definition, deterministically. */
export function computeSignals(tool: ToolInput): ContextSignals {
  const schema = isObj(tool.inputSchema) ? tool.inputSchema : undefined;
  const params = topLevelParams(schema);
  const paramCount = params.length;
  const requiredParamCount = Array.isArray(schema?.required) ? schema.required.length : 0;
  const paramsWithDescriptions = params.filter(
    ([, p]) => typeof p.description === 'string' && p.description.trim() !== '',
  ).length;
  const paramsWithEnums = params.filter(([, p]) => Array.isArray(p.enum)).length;
  const schemaDescriptionCoverage =
    paramCount === 0
      ? 100
      : Math.floor((200 * paramsWithDescriptions + paramCount) / (2 * paramCount));
  const hasNestedObjects = params.some(([, p]) => hasType(p, 'object'));
  const subtree = requiredSubtree(schema);
  const annotations = isObj(tool.annotations) ? tool.annotations : undefined;
  const title = toolTitle(tool);
  return {
    paramCount,
    requiredParamCount,
    paramsWithDescriptions,
    paramsWithEnums,
    schemaDescriptionCoverage,
    hasNestedObjects,
    ...subtree,
    invocationCost: computeInvocationCost(subtree),
    hasOutputSchema: isObj(tool.outputSchema) && Object.keys(tool.outputSchema).length > 0,
    hasAnnotations: annotations !== undefined && Object.keys(annotations).length > 0,
    annotationValues: {
      readOnly: boolOrNull(annotations?.readOnlyHint),
      destructive: boolOrNull(annotations?.destructiveHint),
      idempotent: boolOrNull(annotations?.idempotentHint),
      openWorld: boolOrNull(annotations?.openWorldHint),
    },
    titleIsMeaningful: title !== null && title !== tool.name && title.length > tool.name.length,
    inputHash: inputHash(tool),
  };
}
