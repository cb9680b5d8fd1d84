import type { AnyToolDefinition, RegisterOptions, ToolSet } from '@lectern/core';
import { isToolError, resolveToolNames, suggest } from '@lectern/core';
import { type Config, ConfigError, type PresetName, parseConfig } from './config.js';
import { examplesDir, examplesMemoryDb } from './examples.js';
import {
  type ConfigRoot,
  type PackageEntry,
  PackageLoadError,
  packageEntry,
  presetEntry,
  REGISTRY,
  type RootFlags,
} from './registry.js';
import { routeComposed } from './routing.js';

export type { RootFlags } from './registry.js';

/**
 * What `lectern index` needs of the memory store (the memory package's `MemoryStore` has it),
 * stated here so the app's types do not depend on the optional `@lectern/memory`.
 */
export interface IndexableStore {
  reindex(options: {
    full?: boolean;
    onProgress?: (done: number, total: number) => void;
  }): Promise<unknown>;
}

/** A composed tool set, ready to register on any number of servers. */
export interface Composition {
  /** Server name announced to clients. */
  name: string;
  /** The preset served, if any. */
  preset: PresetName | undefined;
  /** The packages served, in registry order. */
  packages: string[];
  /** Tool definitions, in registration order (handlers count in-flight calls). */
  tools: AnyToolDefinition[];
  /** Renames, prefix and locale descriptions for `registerTools`. */
  registerOptions: RegisterOptions;
  /** Final tool names as clients see them, in order. */
  names: string[];
  /**
   * The memory store, when memory tools are served (for `lectern index`). It opens on first
   * use: listing tools never opens it.
   */
  memory: IndexableStore | undefined;
  /** What the config does that is allowed but probably not meant (shown on stderr). */
  warnings: string[];
  /** Number of tool calls running now. */
  inFlight: () => number;
  /** Resolves when no tool call is running (or after `timeoutMs`). */
  idle: (timeoutMs?: number) => Promise<void>;
  /**
   * Starts every package's slow set-up (opening and checking the memory database) and resolves
   * when it is done, or rejects with the first failure, which the tools concerned also report.
   * Tools wait for it on their own: serving never needs to call it, it only starts earlier.
   */
  start: () => Promise<void>;
  /** Releases resources (database handles). */
  close: () => Promise<void>;
}

/** The config served when none is given: every package on the bundled examples. */
export function defaultConfig(): Config {
  const ex = examplesDir();
  const value: Record<string, unknown> = { name: 'lectern-examples' };
  for (const entry of REGISTRY as readonly PackageEntry[]) {
    Object.assign(value, entry.place(entry.examples(ex), examplesMemoryDb(ex)));
  }
  return parseConfig(value, ex, 'built-in default');
}

function parseRootFlag(value: string, fallbackId: string): ConfigRoot {
  const eq = value.indexOf('=');
  if (eq > 0 && !value.slice(0, eq).includes('/'))
    return { id: value.slice(0, eq), path: value.slice(eq + 1) };
  return { id: fallbackId, path: value };
}

function rootsFrom(values: string[] | undefined, fallbackId: string): ConfigRoot[] | undefined {
  return values?.map((v, i) =>
    parseRootFlag(v, values.length === 1 ? fallbackId : `${fallbackId}${i + 1}`),
  );
}

/**
 * Builds a config from a preset name and root flags. Roots not given default to the bundled
 * examples, so `lectern serve --preset atlas` works out of the box.
 */
export function presetConfig(
  preset: PresetName,
  flags: RootFlags = {},
  cwd = process.cwd(),
): Config {
  const ex = examplesDir();
  const { entry, preset: p } = presetEntry(preset);
  const given = rootsFrom(flags[entry.flag], p.rootId);
  const value: Record<string, unknown> = {
    name: `lectern-${preset}`,
    preset,
    ...entry.place(given ?? p.examples(ex), flags.db ?? (given ? undefined : examplesMemoryDb(ex))),
  };
  return parseConfig(value, cwd, `preset ${preset}`);
}

/** Adds root flags to a config (used with `serve --docs …` without a preset). */
export function configFromFlags(flags: RootFlags, cwd = process.cwd()): Config {
  const value: Record<string, unknown> = {};
  for (const entry of REGISTRY as readonly PackageEntry[]) {
    const roots = rootsFrom(flags[entry.flag], entry.rootId);
    if (roots) Object.assign(value, entry.place(roots, flags.db));
  }
  return parseConfig(value, cwd, 'command-line flags');
}

/** The registry entries a config serves: its preset's package, or the chosen packages. */
function servedEntries(config: Config): PackageEntry[] {
  if (config.preset) return [presetEntry(config.preset).entry];
  if (config.packages) return config.packages.map(packageEntry);
  return (REGISTRY as readonly PackageEntry[]).filter((e) => e.roots(config)?.length);
}

async function closeAll(sets: readonly ToolSet[]): Promise<void> {
  await Promise.allSettled(sets.map((s) => s.close?.()));
}

/**
 * Turns a config into tool definitions: a preset's surface, or the chosen packages filtered by
 * the `tools` allow-list. Only the packages the config serves are loaded (dynamic imports).
 * Unknown tools, name collisions, missing packages and options a package refuses are reported
 * as a {@link ConfigError} listing every problem, before anything is served. Nothing slow
 * happens here: databases open on first use or on `start`.
 */
export async function compose(config: Config): Promise<Composition> {
  const entries = servedEntries(config);
  if (entries.length === 0) {
    throw new ConfigError('config', [
      'nothing to serve: configure docs, workspaces, wikis or memory.sources, or choose a preset',
    ]);
  }
  const warnings: string[] = [];
  if (!config.preset && config.locale === 'es' && entries.some((e) => e.name === 'memory')) {
    warnings.push(
      'locale "es" no longer serves memory as the memoria tools: the memory tools keep their names and answer errors in Spanish. For buscar_memoria, leer_fragmento, listar_fuentes and reindexar, set "preset": "memoria" (or --preset memoria).',
    );
  }
  const problems: string[] = [];
  const sets: ToolSet[] = [];
  let memory: IndexableStore | undefined;
  try {
    // Loading is what takes time (importing each package): do it for all at once.
    const built = await Promise.allSettled(entries.map((e) => e.serve(config, config.preset)));
    for (const result of built) {
      if (result.status === 'fulfilled') sets.push(result.value);
    }
    for (const [i, result] of built.entries()) {
      if (result.status === 'rejected') {
        const e = result.reason;
        // A package refused a root or an option: report it like any other config problem.
        problems.push(
          e instanceof PackageLoadError
            ? e.message
            : `${entries[i]!.name}: ${(e as Error)?.message ?? String(e)}${isToolError(e) ? ` (${e.code})` : ''}`,
        );
      }
    }
    if (problems.length) throw new ConfigError('config', problems);
    entries.forEach((e, i) => {
      if (e.name === 'memory') memory = (sets[i] as ToolSet & { store?: IndexableStore }).store;
    });

    let tools = sets.flatMap((s) => s.tools);
    if (!config.preset && config.tools) {
      const known = tools.map((t) => t.name);
      config.tools.forEach((name, i) => {
        if (!known.includes(name)) {
          problems.push(
            `tools[${i}]: unknown tool "${name}"; closest: ${suggest(name, known, { max: 3 }).join(', ')}`,
          );
        }
      });
      tools = tools.filter((t) => config.tools?.includes(t.name));
    }
    const known = tools.map((t) => t.name);
    for (const from of Object.keys(config.rename)) {
      if (!known.includes(from)) {
        problems.push(
          `rename.${from}: unknown tool; closest: ${suggest(from, known, { max: 3 }).join(', ')}`,
        );
      }
    }
    const registerOptions: RegisterOptions = {
      rename: Object.fromEntries(Object.entries(config.rename).filter(([k]) => known.includes(k))),
      prefix: config.prefix,
    };
    let names: string[] = [];
    try {
      names = resolveToolNames(tools, registerOptions);
    } catch (e) {
      problems.push(`rename/prefix: ${(e as Error).message}`);
    }
    if (problems.length) throw new ConfigError('config', problems);
    // Packages served together learn of each other's similar tools; presets stay as published.
    if (!config.preset) tools = routeComposed(tools, names);

    let running = 0;
    const waiters: Array<() => void> = [];
    const counted = tools.map(
      (t): AnyToolDefinition => ({
        ...t,
        handler: async (input, ctx) => {
          running++;
          try {
            return await t.handler(input, ctx);
          } finally {
            running--;
            if (running === 0) for (const w of waiters.splice(0)) w();
          }
        },
      }),
    );
    let started: Promise<void> | undefined;
    return {
      name: config.name,
      preset: config.preset,
      packages: entries.map((e) => e.name),
      tools: counted,
      registerOptions,
      names,
      memory,
      warnings,
      inFlight: () => running,
      idle: (timeoutMs = 10_000) =>
        running === 0
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, timeoutMs);
              waiters.push(() => {
                clearTimeout(timer);
                resolve();
              });
            }),
      start: () => {
        started ??= Promise.allSettled(sets.map((s) => s.start?.())).then((results) => {
          const failed = results.find((r) => r.status === 'rejected');
          if (failed) throw (failed as PromiseRejectedResult).reason;
        });
        return started;
      },
      close: () => closeAll(sets),
    };
  } catch (e) {
    await closeAll(sets);
    if (e instanceof ConfigError) throw e;
    throw new ConfigError('config', [...problems, (e as Error).message]);
  }
}
