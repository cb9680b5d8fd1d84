import { z } from 'zod';
import type { Spelling } from './errors.js';

/**
 * How one field of an adapted tool surface is made from the native tool's schema: `true` keeps
 * the native field as it is, a string replaces only its description, and a {@link FieldRule}
 * says more. Types, limits and defaults always come from the native schema unless a rule
 * changes them on purpose, so a surface never repeats a native limit as a literal.
 */
export type FieldSpec = true | string | FieldRule;

/** The fields of a surface object, in the order the surface shows them. */
export type SurfaceFields = Readonly<Record<string, FieldSpec>>;

/** What {@link FieldSpec} can say beyond a description. */
export interface FieldRule {
  /**
   * The native field this one comes from. Inputs: a native parameter name. Outputs: a key or a
   * dot path from the enclosing native object (`documents.0.sections`; a number picks an array
   * item), or `.` for the enclosing object itself (to group some of its fields under a new key).
   * Default: the surface key in the native spelling (see {@link SurfaceSpec.case}).
   */
  from?: string;
  /** This surface's description of the field (default: the native one). */
  describe?: string;
  /** For an object, or an array of objects: its fields on this surface, in order. */
  fields?: SurfaceFields;
  /**
   * Inputs. `true`: the surface requires a field the native tool takes as optional. `false`: the
   * surface lets it out and shows no default (the native default still applies).
   */
  required?: boolean;
  /** Inputs: this surface's default, applied before the native tool sees the input. */
  default?: unknown;
  /** Inputs: an empty string counts as not given (and the field accepts one). */
  blankIsAbsent?: boolean;
  /** Outputs: `false` when this surface never sees null here (a nullable native field loses it). */
  nullable?: false;
  /**
   * A field the native tool does not have, with its (described) schema. Inputs: its value goes
   * to the native tool only through {@link AdaptSpecHooks.toNative}. Outputs: `value` makes it.
   */
  schema?: z.ZodType;
  /**
   * Converts a value. Outputs: from the native value at `from` (undefined when there is none)
   * and the enclosing native object. Inputs: from the surface value to the native one.
   */
  value?: (value: unknown, parent: Record<string, unknown>) => unknown;
}

/** One side (input or output) of an adapted surface. */
export interface SurfaceSpec {
  /**
   * `camel`: a field given without `from` is the native snake_case field of the same name in
   * camelCase (`startLine` is `start_line`), at every depth. Default: the same name.
   */
  case?: 'camel';
  /** The surface's fields, in order; native fields not listed are not shown. */
  fields: SurfaceFields;
}

/** `start_line` → `startLine`. */
export const camelCase: Spelling = (name) =>
  name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** `startLine` → `start_line`. */
export const snakeCase: Spelling = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

type AnySchema = z.ZodType;
type Def = { type: string; innerType?: AnySchema; element?: AnySchema; checks?: unknown[] };
const defOf = (s: AnySchema) => (s as unknown as { _zod: { def: Def } })._zod.def;
const kind = (s: AnySchema) => defOf(s).type;

const rule = (spec: FieldSpec): FieldRule =>
  spec === true ? {} : typeof spec === 'string' ? { describe: spec } : spec;

/** The native key a surface key stands for. */
function nativeKey(key: string, r: FieldRule, spelling: SurfaceSpec['case']): string {
  return r.from ?? (spelling === 'camel' ? snakeCase(key) : key);
}

/** Strips optional, default and nullable wrappers; says which were there. */
function unwrap(schema: AnySchema): {
  core: AnySchema;
  optional: boolean;
  nullable: boolean;
  defaultValue: { value: unknown } | undefined;
} {
  let core = schema;
  let optional = false;
  let nullable = false;
  let defaultValue: { value: unknown } | undefined;
  for (;;) {
    const t = kind(core);
    if (t === 'optional') optional = true;
    else if (t === 'nullable') nullable = true;
    else if (t === 'default') {
      const d = defOf(core) as Def & { defaultValue: unknown };
      defaultValue = { value: d.defaultValue };
    } else break;
    core = defOf(core).innerType!;
  }
  return { core, optional, nullable, defaultValue };
}

/** An object schema's shape (the object under optional/nullable wrappers, or an array's items). */
function shapeOf(schema: AnySchema, where: string): Record<string, AnySchema> {
  let core = unwrap(schema).core;
  if (kind(core) === 'array') core = unwrap(defOf(core).element!).core;
  if (kind(core) !== 'object') throw new Error(`${where} is not an object in the native schema`);
  return (core as z.ZodObject).shape as Record<string, AnySchema>;
}

/** The native schema at a dot path from an object schema. */
function schemaAt(object: AnySchema, path: string, where: string): AnySchema {
  if (path === '.') return object;
  let current = object;
  for (const segment of path.split('.')) {
    const core = unwrap(current).core;
    if (/^\d+$/.test(segment)) {
      if (kind(core) !== 'array') throw new Error(`${where}: ${segment} indexes a non-array`);
      current = defOf(core).element!;
      continue;
    }
    const field = shapeOf(current, where)[segment];
    if (!field) throw new Error(`${where}: the native schema has no field "${segment}"`);
    current = field;
  }
  return current;
}

/** The native value at a dot path. */
function valueAt(object: unknown, path: string): unknown {
  if (path === '.') return object;
  let current = object;
  for (const segment of path.split('.')) {
    if (current === null || current === undefined) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** The same leaf type with this surface's error messages (for a surface in another language). */
function withErrors(schema: AnySchema, error: z.core.$ZodErrorMap | undefined): AnySchema {
  if (!error) return schema;
  const def = defOf(schema);
  const t = def.type;
  if (t === 'optional' || t === 'nullable' || t === 'default') {
    const inner = withErrors(def.innerType!, error);
    return (schema as unknown as { clone: (d: object) => AnySchema }).clone({
      ...def,
      innerType: inner,
    });
  }
  return (schema as unknown as { clone: (d: object) => AnySchema }).clone({ ...def, error });
}

/** A string schema without its minimum length, so that an empty string passes. */
function allowBlank(schema: AnySchema): AnySchema {
  if (kind(schema) !== 'string') return schema;
  const def = defOf(schema);
  const checks = (def.checks ?? []).filter(
    (c) => (c as { _zod: { def: { check: string } } })._zod.def.check !== 'min_length',
  );
  return (schema as unknown as { clone: (d: object) => AnySchema }).clone({ ...def, checks });
}

const describe = (schema: AnySchema, text: string | undefined) =>
  text === undefined ? schema : schema.describe(text);

/** A derived input side: the surface schema, and how a surface input becomes the native one. */
export interface DerivedInput {
  schema: z.ZodObject;
  /** Native input from surface input: renamed keys, blank strings dropped, values converted. */
  toNative: (input: Record<string, unknown>) => Record<string, unknown>;
  /** Surface spelling of native parameter names (for errors). */
  names: Record<string, string>;
}

/**
 * The input side of a surface over a native input schema: every listed field's type, limits and
 * default come from the native field, with the rule's renames, description and modifiers.
 * `error` gives the surface's own (e.g. Spanish) schema messages.
 */
export function deriveInput(
  native: z.ZodObject,
  spec: SurfaceSpec,
  error?: z.core.$ZodErrorMap,
): DerivedInput {
  const nativeShape = native.shape as Record<string, AnySchema>;
  const shape: Record<string, AnySchema> = {};
  const names: Record<string, string> = {};
  const plan: Array<{ key: string; from: string | undefined; r: FieldRule }> = [];
  for (const [key, spec_] of Object.entries(spec.fields)) {
    const r = rule(spec_);
    if (r.schema) {
      shape[key] = r.schema;
      plan.push({ key, from: r.from, r });
      if (r.from) names[r.from] = key;
      continue;
    }
    const from = nativeKey(key, r, spec.case);
    const base = nativeShape[from];
    if (!base) throw new Error(`input field "${key}": the native schema has no field "${from}"`);
    const u = unwrap(base);
    let core = withErrors(u.core, error);
    if (r.blankIsAbsent) core = allowBlank(core);
    if (u.nullable) core = core.nullable();
    let field: AnySchema;
    if (r.default !== undefined) field = core.default(r.default as never);
    else if (r.required === true) field = core;
    else if (r.required === false) field = core.optional();
    else if (u.defaultValue) field = core.default(u.defaultValue.value as never);
    else if (u.optional) field = core.optional();
    else field = core;
    shape[key] = describe(field, r.describe ?? base.description);
    names[from] = key;
    plan.push({ key, from, r });
  }
  return {
    schema: z.object(shape),
    names,
    toNative: (input) => {
      const out: Record<string, unknown> = {};
      for (const { key, from, r } of plan) {
        if (from === undefined) continue;
        let v = input[key];
        if (r.blankIsAbsent && v === '') v = undefined;
        if (v !== undefined && r.value) v = r.value(v, input);
        if (v !== undefined) out[from] = v;
      }
      return out;
    },
  };
}

/** A derived output side: the surface schema, and how a native result becomes the surface's. */
export interface DerivedOutput {
  schema: z.ZodObject;
  fromNative: (output: Record<string, unknown>) => Record<string, unknown>;
}

interface Built {
  schema: AnySchema;
  value: (parent: Record<string, unknown>) => unknown;
}

function deriveObject(
  native: AnySchema,
  fields: SurfaceFields,
  spelling: SurfaceSpec['case'],
  where: string,
): { schema: z.ZodObject; build: (native: Record<string, unknown>) => Record<string, unknown> } {
  const parts: Array<[string, Built]> = [];
  for (const [key, spec_] of Object.entries(fields)) {
    parts.push([key, deriveField(native, key, rule(spec_), spelling, `${where}.${key}`)]);
  }
  return {
    schema: z.object(Object.fromEntries(parts.map(([k, b]) => [k, b.schema]))),
    build: (obj) => {
      const out: Record<string, unknown> = {};
      for (const [k, b] of parts) {
        const v = b.value(obj);
        if (v !== undefined) out[k] = v;
      }
      return out;
    },
  };
}

function deriveField(
  parent: AnySchema,
  key: string,
  r: FieldRule,
  spelling: SurfaceSpec['case'],
  where: string,
): Built {
  if (r.schema) {
    const convert = r.value;
    if (!convert) throw new Error(`${where}: a field with its own schema needs a value`);
    const from = r.from;
    return {
      schema: r.schema,
      value: (obj) => convert(from === undefined ? undefined : valueAt(obj, from), obj),
    };
  }
  const from = nativeKey(key, r, spelling);
  const base = schemaAt(parent, from, where);
  const u = unwrap(base);
  let schema: AnySchema;
  let convert: (v: unknown) => unknown = (v) => v;
  if (r.fields) {
    const isArray = kind(u.core) === 'array';
    const item = isArray ? defOf(u.core).element! : u.core;
    const obj = deriveObject(item, r.fields, spelling, where);
    schema = isArray ? z.array(obj.schema) : obj.schema;
    const build = (v: unknown) =>
      v === null || v === undefined ? v : obj.build(v as Record<string, unknown>);
    convert = isArray ? (v) => (Array.isArray(v) ? v.map(build) : v) : build;
  } else {
    schema = u.core;
  }
  if (u.nullable && r.nullable !== false) schema = schema.nullable();
  if (u.optional && from !== '.') schema = schema.optional();
  schema = describe(schema, r.describe ?? (from === '.' ? undefined : base.description));
  const own = r.value;
  return {
    schema,
    value: (obj) => {
      const v = convert(valueAt(obj, from));
      return own ? own(v, obj) : v;
    },
  };
}

/**
 * The output side of a surface over a native output schema: the listed fields, each typed by
 * the native field it comes from, renamed, regrouped and described as the rules say.
 */
export function deriveOutput(native: z.ZodObject, spec: SurfaceSpec): DerivedOutput {
  const obj = deriveObject(native, spec.fields, spec.case, '(output)');
  return { schema: obj.schema, fromNative: obj.build };
}

/** The limits a native field declares, for descriptions that state them. */
export interface FieldLimits {
  /** Smallest number, or shortest string or array. */
  min: number | undefined;
  /** Largest number, or longest string or array. */
  max: number | undefined;
  /** The default, when the field has one. */
  default: unknown;
}

/**
 * The limits of field `key` of an object schema (`min`/`max` of a number, or the length bounds
 * of a string or array) and its default, so that a description can state the native values
 * instead of repeating them as literals.
 */
export function fieldLimits(object: z.ZodObject, key: string): FieldLimits {
  const field = (object.shape as Record<string, AnySchema>)[key];
  if (!field) throw new Error(`the schema has no field "${key}"`);
  const u = unwrap(field);
  const bag = u.core as unknown as {
    minValue?: number | null;
    maxValue?: number | null;
    minLength?: number | null;
    maxLength?: number | null;
  };
  const t = kind(u.core);
  let min: number | undefined;
  let max: number | undefined;
  if (t === 'number') {
    // an integer schema without bounds reports the safe-integer range: no limit of its own
    const own = (v: number | null | undefined) =>
      v === null || v === undefined || Math.abs(v) >= Number.MAX_SAFE_INTEGER ? undefined : v;
    min = own(bag.minValue);
    max = own(bag.maxValue);
  } else if (t === 'string') {
    min = bag.minLength ?? undefined;
    max = bag.maxLength ?? undefined;
  } else if (t === 'array') {
    const checks = (defOf(u.core).checks ?? []) as Array<{
      _zod: { def: { check: string; minimum?: number; maximum?: number } };
    }>;
    for (const c of checks) {
      if (c._zod.def.check === 'min_length') min = c._zod.def.minimum;
      if (c._zod.def.check === 'max_length') max = c._zod.def.maximum;
    }
  }
  return { min, max, default: u.defaultValue?.value };
}
