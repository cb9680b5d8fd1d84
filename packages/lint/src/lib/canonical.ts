import { createHash } from 'node:crypto';
import type { Json, ToolInput } from './types.js';

function normalize(value: unknown, seen: Set<object>): Json | undefined {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  const obj = value as object;
  if (seen.has(obj)) throw new TypeError('cannot serialize a cyclic structure as JSON');
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return obj.map((item) => normalize(item, seen) ?? null);
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(obj).sort()) {
      const v = normalize((obj as Record<string, unknown>)[key], seen);
      if (v !== undefined) out[key] = v;
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

/** A JSON-safe copy with object keys sorted (code-unit order) at every level; `undefined` dropped. */
export function sortKeysDeep(value: unknown): Json {
  return normalize(value, new Set()) ?? null;
}

/**
 * Deterministic JSON: keys sorted at every level, `undefined` dropped, non-finite numbers as
 * `null`. Compact by default; `indent` pretty-prints (snapshots use 2).
 */
export function canonicalJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeysDeep(value), null, indent);
}

/** The definition fields the input hash covers, absent ones as `null`. */
export function hashedFields(tool: ToolInput): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
}

/**
 * TDQS `inputHash`: the first 16 hex characters of SHA-256 over the canonical JSON of the tool's
 * own definition fields (name, title, description, inputSchema, outputSchema, annotations).
 * Sibling names are not part of it.
 */
export function inputHash(tool: ToolInput): string {
  return createHash('sha256')
    .update(canonicalJson(hashedFields(tool)), 'utf8')
    .digest('hex')
    .slice(0, 16);
}
