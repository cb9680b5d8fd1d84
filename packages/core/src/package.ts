import { ToolError } from './errors.js';
import type { AnyToolDefinition } from './tool.js';

/**
 * What every tool package takes: the roots it serves, lower limits, and a locale. Each package
 * names its own root and limit types, e.g. `PackageOptions<WorkspaceConfig, LineLimits>`, and may
 * add options of its own (memory's `db`).
 */
export interface PackageOptions<Root, Limits extends object = Record<string, number>> {
  /** The folders served, each with an id the tools take as a parameter; at least one. */
  roots: readonly Root[];
  /** Limits to lower from the package's defaults; a limit can never be raised. */
  limits?: Readonly<Partial<Limits>>;
  /**
   * Language of error messages (and of descriptions, where a package has them), e.g. `es`.
   * Never changes which tools are served or their parameters; default `en`.
   */
  locale?: string;
}

/** The tools one package serves for one set of options, and what they hold. */
export interface ToolSet {
  /** The tool definitions, in the package's order. */
  tools: AnyToolDefinition[];
  /**
   * Starts slow set-up (opening and checking a database) and resolves when it is done, or
   * rejects with the error the tools will report. Idempotent. The tools wait for it on their
   * own, so a server can answer `initialize` and `tools/list` before it finishes; calling it is
   * only an earlier start. Absent when there is nothing to wait for.
   */
  start?: () => Promise<void>;
  /** Releases what the tools hold (database handles). Idempotent. */
  close?: () => Promise<void>;
}

/**
 * The one shape every tool package exports (`sectionsPackage`, `linesPackage`, `wikiPackage`,
 * `memoryPackage`): its native tools and its presets, each built from the same options.
 * A package never creates a server; registration is `registerTools`.
 */
export interface ToolPackage<Options, Set extends ToolSet = ToolSet> {
  /** The package's short name, e.g. `lines` (the app's config calls packages by it). */
  readonly name: string;
  /**
   * The native tools over `options`. Synchronous; a bad option throws a `ToolError`
   * (`ROOT_MISSING`, `LIMIT_INVALID`, `LIMIT_UNKNOWN`, …) before anything is served.
   */
  tools(options: Options): Set;
  /** Other tool surfaces over the same options, by preset name (e.g. `harness`). */
  readonly presets: Readonly<Record<string, (options: Options) => Set>>;
}

/**
 * Checks that `limits` names only known limits and that each is a positive whole number;
 * returns the limits that are set. Throws `LIMIT_UNKNOWN` or `LIMIT_INVALID`, naming the limit.
 * For packages whose limits are a few plain numbers (each package still checks the ranges).
 */
export function checkLimits<K extends string>(
  pkg: string,
  limits: Readonly<Partial<Record<string, number>>> | undefined,
  known: readonly K[],
): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const [key, value] of Object.entries(limits ?? {})) {
    if (value === undefined) continue;
    if (!(known as readonly string[]).includes(key)) {
      throw new ToolError(
        'LIMIT_UNKNOWN',
        `${pkg}: unknown limit "${key}"; the limits are ${known.join(', ')}.`,
        { details: { param: key } },
      );
    }
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ToolError(
        'LIMIT_INVALID',
        `${pkg}: limit ${key} must be a positive whole number, got ${String(value)}.`,
        { details: { param: key, value } },
      );
    }
    out[key as K] = value;
  }
  return out;
}
