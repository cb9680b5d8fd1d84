import { join } from 'node:path';
import type { AnyToolDefinition, RegisterOptions } from '@lectern/core';
import { resolveToolNames, suggest } from '@lectern/core';
import { harnessTools, lineTools } from '@lectern/lines';
import { createMemory, type MemoryStore, memoriaTools, memoryTools } from '@lectern/memory';
import { atlasTools, mdChunkTools, sectionTools } from '@lectern/sections';
import { wikiTools } from '@lectern/wiki';
import { type Config, ConfigError, type PresetName, parseConfig } from './config.js';
import { examplesDir, examplesMemoryDb } from './examples.js';

/** A composed tool set, ready to register on any number of servers. */
export interface Composition {
  /** Server name announced to clients. */
  name: string;
  /** The preset served, if any. */
  preset: PresetName | undefined;
  /** Tool definitions, in registration order (handlers count in-flight calls). */
  tools: AnyToolDefinition[];
  /** Renames, prefix and locale descriptions for `registerTools`. */
  registerOptions: RegisterOptions;
  /** Final tool names as clients see them, in order. */
  names: string[];
  /** The memory store, when memory tools are served (for `lectern index`). */
  memory: MemoryStore | undefined;
  /** Number of tool calls running now. */
  inFlight: () => number;
  /** Resolves when no tool call is running (or after `timeoutMs`). */
  idle: (timeoutMs?: number) => Promise<void>;
  /** Releases resources (database handles). */
  close: () => void;
}

/** The config served when none is given: every package on the bundled examples. */
export function defaultConfig(): Config {
  const ex = examplesDir();
  return parseConfig(
    {
      name: 'lectern-examples',
      docs: [{ id: 'docs', path: join(ex, 'docs') }],
      workspaces: [{ id: 'examples', path: ex }],
      wikis: [{ id: 'examples', path: join(ex, 'wiki'), title: 'Example wiki' }],
      memory: { sources: [{ id: 'notes', path: join(ex, 'notes') }], db: examplesMemoryDb(ex) },
    },
    ex,
    'built-in default',
  );
}

/** Roots given on the command line, overriding a preset's bundled defaults. */
export interface RootFlags {
  docs?: string[];
  workspaces?: string[];
  wikis?: string[];
  notes?: string[];
  db?: string;
}

function parseRootFlag(value: string, fallbackId: string): { id: string; path: string } {
  const eq = value.indexOf('=');
  if (eq > 0 && !value.slice(0, eq).includes('/'))
    return { id: value.slice(0, eq), path: value.slice(eq + 1) };
  return { id: fallbackId, path: value };
}

function rootsFrom(values: string[] | undefined, fallbackId: string) {
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
  const value: Record<string, unknown> = { name: `lectern-${preset}`, preset };
  if (preset === 'atlas' || preset === 'md-chunk') {
    value.docs = rootsFrom(flags.docs, 'docs') ?? [{ id: 'docs', path: join(ex, 'docs') }];
  } else if (preset === 'harness') {
    value.workspaces = rootsFrom(flags.workspaces, 'project') ?? [{ id: 'examples', path: ex }];
  } else if (preset === 'wiki') {
    value.wikis = rootsFrom(flags.wikis, 'main') ?? [{ id: 'examples', path: join(ex, 'wiki') }];
  } else {
    const sources = rootsFrom(flags.notes, 'notas') ?? [{ id: 'notas', path: join(ex, 'notes') }];
    value.memory = { sources, db: flags.db ?? (flags.notes ? undefined : examplesMemoryDb(ex)) };
    value.locale = 'es';
  }
  return parseConfig(value, cwd, `preset ${preset}`);
}

/** Adds root flags to a config (used with `serve --docs …` without a preset). */
export function configFromFlags(flags: RootFlags, cwd = process.cwd()): Config {
  const value: Record<string, unknown> = {};
  if (flags.docs) value.docs = rootsFrom(flags.docs, 'docs');
  if (flags.workspaces) value.workspaces = rootsFrom(flags.workspaces, 'project');
  if (flags.wikis) value.wikis = rootsFrom(flags.wikis, 'main');
  if (flags.notes) value.memory = { sources: rootsFrom(flags.notes, 'notes'), db: flags.db };
  return parseConfig(value, cwd, 'command-line flags');
}

function presetTools(config: Config, memory: () => MemoryStore): AnyToolDefinition[] {
  const docs = { roots: config.docs ?? [], maxFileBytes: config.limits.sectionsMaxFileBytes };
  switch (config.preset) {
    case 'atlas':
      return atlasTools(docs);
    case 'md-chunk':
      return mdChunkTools(docs);
    case 'harness':
      return harnessTools(linesOptions(config));
    case 'wiki':
      return wikiTools(wikiOptions(config));
    case 'memoria':
      return memoriaTools(memory());
    default:
      return [];
  }
}

function linesOptions(config: Config) {
  const l = config.limits;
  const limits: Record<string, number> = {};
  if (l.linesMaxFileBytes !== undefined) limits.maxFileBytes = l.linesMaxFileBytes;
  if (l.linesMaxLines !== undefined) limits.maxLines = l.linesMaxLines;
  if (l.linesMaxTextBytes !== undefined) limits.maxTextBytes = l.linesMaxTextBytes;
  if (l.linesMaxOutputBytes !== undefined) limits.maxOutputBytes = l.linesMaxOutputBytes;
  return { workspaces: config.workspaces ?? [], limits };
}

function wikiOptions(config: Config) {
  return {
    wikis: config.wikis ?? [],
    ...(config.limits.wikiMaxPageBytes === undefined
      ? {}
      : { maxPageBytes: config.limits.wikiMaxPageBytes }),
  };
}

/** Options of {@link compose}. */
export interface ComposeOptions {
  /**
   * Open the memory database only when a tool first uses it (default false: open it now, so a
   * bad database path stops the server before it serves). Listing tools sets it, so
   * `lectern tools` writes nothing.
   */
  deferStores?: boolean;
}

/**
 * A store that is created on first use: any property read creates it. `close` before that does
 * nothing.
 */
function deferredStore(create: () => MemoryStore): MemoryStore {
  let real: MemoryStore | undefined;
  return new Proxy({} as MemoryStore, {
    get(_target, prop) {
      if (prop === 'close' && !real) return () => {};
      real ??= create();
      const value = Reflect.get(real, prop, real) as unknown;
      return typeof value === 'function' ? value.bind(real) : value;
    },
  });
}

/**
 * Turns a config into tool definitions: a preset's surface, or the chosen packages filtered by
 * the `tools` allow-list. Unknown tools and name collisions are reported as a {@link ConfigError}
 * listing every problem, before anything is served.
 */
export function compose(config: Config, options: ComposeOptions = {}): Composition {
  let store: MemoryStore | undefined;
  const memory = () => {
    const m = config.memory;
    if (!m) throw new ConfigError('config', ['memory: no memory sources are configured']);
    const create = () =>
      createMemory({
        sources: m.sources,
        ...(m.db ? { dbPath: m.db } : {}),
        ...(m.postgres ? { postgres: m.postgres } : {}),
      });
    store ??= options.deferStores ? deferredStore(create) : create();
    return store;
  };
  let tools: AnyToolDefinition[];
  const problems: string[] = [];
  try {
    if (config.preset) {
      tools = presetTools(config, memory);
    } else {
      const wanted =
        config.packages ??
        (['sections', 'lines', 'wiki', 'memory'] as const).filter(
          (p) =>
            ({
              sections: config.docs?.length,
              lines: config.workspaces?.length,
              wiki: config.wikis?.length,
              memory: config.memory?.sources.length,
            })[p],
        );
      if (wanted.length === 0) {
        throw new ConfigError('config', [
          'nothing to serve: configure docs, workspaces, wikis or memory.sources, or choose a preset',
        ]);
      }
      tools = [];
      for (const pkg of wanted) {
        if (pkg === 'sections') {
          tools.push(
            ...sectionTools({
              roots: config.docs ?? [],
              maxFileBytes: config.limits.sectionsMaxFileBytes,
            }),
          );
        } else if (pkg === 'lines') tools.push(...lineTools(linesOptions(config)));
        else if (pkg === 'wiki') tools.push(...wikiTools(wikiOptions(config)));
        else tools.push(...memoryTools(memory(), { locale: config.locale }));
      }
      if (config.tools) {
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
    return {
      name: config.name,
      preset: config.preset,
      tools: counted,
      registerOptions,
      names,
      memory: store,
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
      close: () => store?.close(),
    };
  } catch (e) {
    store?.close();
    if (e instanceof ConfigError) throw e;
    // A package refused a root or an option: report it like any other config problem.
    throw new ConfigError('config', [...problems, (e as Error).message]);
  }
}
