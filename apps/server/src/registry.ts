import { join } from 'node:path';
import type { PackageOptions, ToolPackage, ToolSet } from '@lectern/core';
import type { Config } from './config.js';

/**
 * The tool packages the app serves, in the order their tools are listed, each with the presets
 * it provides. The names the config accepts (`packages`, `preset`) come from here; each
 * package's registry export has exactly these presets (a test loads them and checks).
 */
export const PACKAGE_PRESETS = {
  sections: ['atlas', 'md-chunk'],
  lines: ['harness'],
  wiki: ['wiki'],
  memory: ['memoria'],
} as const;

/** A package name, as in the config's `packages`. */
export type PackageName = keyof typeof PACKAGE_PRESETS;
/** A preset name, as in the config's `preset` and `--preset`. */
export type PresetName = (typeof PACKAGE_PRESETS)[PackageName][number];

/** Every package name, in registry order. */
export const PACKAGES = Object.keys(PACKAGE_PRESETS) as [PackageName, ...PackageName[]];
/** Every preset name, package by package. */
export const PRESET_NAMES = Object.values(PACKAGE_PRESETS).flat() as [PresetName, ...PresetName[]];

/** A root as the config and the command line give it. */
export interface ConfigRoot {
  id: string;
  path: string;
  /** A wiki's title. */
  title?: string;
}

/** Roots given on the command line, by flag (`--docs`, `--workspace`, `--wiki`, `--notes`). */
export interface RootFlags {
  docs?: string[];
  workspaces?: string[];
  wikis?: string[];
  notes?: string[];
  db?: string;
}

/** A preset as the app knows it before its package is loaded: what the command line needs. */
export interface PresetEntry {
  /** The name, as in `--preset` and the config's `preset`. */
  name: PresetName;
  /** The id a root given on the command line without one gets (`--docs DIR`). */
  rootId: string;
  /** The roots served when none is given: the bundled examples in `dir`. */
  examples: (dir: string) => ConfigRoot[];
}

/**
 * One tool package in the registry: where it comes from, where its roots are in the config, and
 * the presets it provides. Its code is loaded only when a config serves it.
 */
export interface PackageEntry {
  /** The package's short name, as in the config's `packages`. */
  name: PackageName;
  /** The npm package that provides it. */
  module: string;
  /** The config key of its roots, for messages. */
  rootsKey: string;
  /** Its roots in a config (undefined or empty when it has none). */
  roots: (config: Config) => readonly unknown[] | undefined;
  /** The command-line flag of its roots. */
  flag: keyof Omit<RootFlags, 'db'>;
  /** The id a root given on the command line without one gets. */
  rootId: string;
  /** Roots in the bundled examples, for the config served when none is given. */
  examples: (dir: string) => ConfigRoot[];
  /** The config fragment that serves `roots` (memory also places its `db`). */
  place: (roots: ConfigRoot[], db: string | undefined) => Record<string, unknown>;
  /** Presets it provides, in order; its `ToolPackage.presets` has exactly these. */
  presets: readonly PresetEntry[];
  /** Loads the package (a dynamic import); a missing install is a {@link PackageLoadError}. */
  load: () => Promise<ToolPackage<never>>;
  /** Loads the package and builds its native tools, or a preset's, from a config. */
  serve: (config: Config, preset: string | undefined) => Promise<ToolSet>;
}

/** Thrown when a package a config serves is not installed or does not load. */
export class PackageLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PackageLoadError';
  }
}

/** The limits of `config.limits` that belong to package `name`: `linesMaxLines` → `maxLines`. */
export function limitsOf(name: string, config: Config): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(config.limits)) {
    if (value === undefined || !key.startsWith(name)) continue;
    const rest = key.slice(name.length);
    if (!/^[A-Z]/.test(rest)) continue;
    out[rest[0]!.toLowerCase() + rest.slice(1)] = value;
  }
  return out;
}

/** The options every package takes, from a config: its roots, its limits, the locale. */
function common<Root>(name: string, roots: readonly Root[] | undefined, config: Config) {
  const limits = limitsOf(name, config);
  return {
    roots: roots ?? [],
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    locale: config.locale,
  } satisfies PackageOptions<Root>;
}

/**
 * Imports a package by a literal specifier (so every bundler and `tsc` sees it), turning a
 * missing install into a message that names the package and how to add it.
 */
async function importPackage<M>(name: string, module: string, load: () => Promise<M>): Promise<M> {
  try {
    return await load();
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code;
    const message = (cause as Error)?.message ?? String(cause);
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      message.includes(`'${module}'`)
    ) {
      throw new PackageLoadError(
        `serving ${name} needs the package ${module}, which is not installed; install it beside lectern (npm install ${module}), or remove ${name} from the config.`,
        { cause },
      );
    }
    throw new PackageLoadError(
      `the package ${module} (for ${name}) could not be loaded: ${message}`,
      {
        cause,
      },
    );
  }
}

/** What an entry states; {@link entry} adds loading and building. */
type EntrySpec<N extends PackageName, O> = Omit<
  PackageEntry,
  'name' | 'presets' | 'load' | 'serve'
> & {
  name: N;
  /** What the command line needs of each preset the package provides (all of them). */
  presets: Record<(typeof PACKAGE_PRESETS)[N][number], Omit<PresetEntry, 'name'>>;
  /** The dynamic import of the package's registry export, with a literal specifier. */
  import: () => Promise<ToolPackage<O>>;
  /** The package's options from a config. */
  options: (config: Config) => O;
};

function entry<N extends PackageName, O>(spec: EntrySpec<N, O>): PackageEntry {
  const { import: load, options, presets, ...rest } = spec;
  const loadPackage = () => importPackage(spec.name, spec.module, load);
  return {
    ...rest,
    presets: PACKAGE_PRESETS[spec.name].map((name: PresetName) => ({
      name,
      ...(presets as Record<PresetName, Omit<PresetEntry, 'name'>>)[name],
    })),
    load: loadPackage as () => Promise<ToolPackage<never>>,
    serve: async (config, preset) => {
      const pkg = await loadPackage();
      if (preset === undefined) return pkg.tools(options(config));
      const make = pkg.presets[preset];
      if (!make) throw new PackageLoadError(`the package ${spec.module} has no preset "${preset}"`);
      return make(options(config));
    },
  };
}

const docsExamples = (dir: string) => [{ id: 'docs', path: join(dir, 'docs') }];

/**
 * Every tool package the app can serve, in the order their tools are listed. Each entry loads
 * its package with a dynamic import, so a config that serves docs never loads the wiki, the
 * memory package or its native SQLite module.
 */
export const REGISTRY: readonly PackageEntry[] = [
  entry({
    name: 'sections',
    module: '@lectern/sections',
    rootsKey: 'docs',
    roots: (config) => config.docs,
    flag: 'docs',
    rootId: 'docs',
    examples: docsExamples,
    place: (roots) => ({ docs: roots }),
    presets: {
      atlas: { rootId: 'docs', examples: docsExamples },
      'md-chunk': { rootId: 'docs', examples: docsExamples },
    },
    import: () => import('@lectern/sections').then((m) => m.sectionsPackage),
    options: (config) => common('sections', config.docs, config),
  }),
  entry({
    name: 'lines',
    module: '@lectern/lines',
    rootsKey: 'workspaces',
    roots: (config) => config.workspaces,
    flag: 'workspaces',
    rootId: 'project',
    examples: (dir) => [{ id: 'examples', path: dir }],
    place: (roots) => ({ workspaces: roots }),
    presets: {
      harness: { rootId: 'project', examples: (dir) => [{ id: 'examples', path: dir }] },
    },
    import: () => import('@lectern/lines').then((m) => m.linesPackage),
    options: (config) => common('lines', config.workspaces, config),
  }),
  entry({
    name: 'wiki',
    module: '@lectern/wiki',
    rootsKey: 'wikis',
    roots: (config) => config.wikis,
    flag: 'wikis',
    rootId: 'main',
    examples: (dir) => [{ id: 'examples', path: join(dir, 'wiki'), title: 'Example wiki' }],
    place: (roots) => ({ wikis: roots }),
    presets: {
      wiki: { rootId: 'main', examples: (dir) => [{ id: 'examples', path: join(dir, 'wiki') }] },
    },
    import: () => import('@lectern/wiki').then((m) => m.wikiPackage),
    options: (config) => common('wiki', config.wikis, config),
  }),
  entry({
    name: 'memory',
    module: '@lectern/memory',
    rootsKey: 'memory.sources',
    roots: (config) => config.memory?.sources,
    flag: 'notes',
    rootId: 'notes',
    examples: (dir) => [{ id: 'notes', path: join(dir, 'notes') }],
    place: (roots, db) => ({ memory: { sources: roots, db } }),
    presets: {
      memoria: { rootId: 'notas', examples: (dir) => [{ id: 'notas', path: join(dir, 'notes') }] },
    },
    import: () => import('@lectern/memory').then((m) => m.memoryPackage),
    options: (config) => ({
      ...common('memory', config.memory?.sources, config),
      ...(config.memory?.db === undefined ? {} : { db: config.memory.db }),
      ...(config.memory?.postgres === undefined ? {} : { postgres: config.memory.postgres }),
      ...(config.memory?.watch === undefined ? {} : { watch: config.memory.watch }),
    }),
  }),
];

/** The registry entry of a package. */
export function packageEntry(name: PackageName): PackageEntry {
  const found = REGISTRY.find((e) => e.name === name);
  if (!found) throw new Error(`unknown package "${name}"`);
  return found;
}

/** The package that provides a preset, and the preset's entry. */
export function presetEntry(name: PresetName): { entry: PackageEntry; preset: PresetEntry } {
  for (const entry of REGISTRY) {
    const preset = entry.presets.find((p) => p.name === name);
    if (preset) return { entry, preset };
  }
  throw new Error(`unknown preset "${name}"`);
}
