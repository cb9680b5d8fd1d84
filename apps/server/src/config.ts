import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { closest } from './lib/closest.js';
import { findJsonSyntaxError } from './lib/json-syntax.js';
import { PACKAGES, PRESET_NAMES, packageEntry } from './registry.js';

// The package and preset names come from the registry: a package lists its own presets.
export { PACKAGES, PRESET_NAMES, type PresetName } from './registry.js';

const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'use 1 to 64 letters, digits, ".", "_" or "-"')
  .describe('Identifier that tools use to name this root, e.g. "docs".');
const rootPath = z
  .string()
  .min(1)
  .describe("Folder path; a relative path resolves from the config file's folder.");
const allowHardLinks = z
  .boolean()
  .optional()
  .describe(
    'Read files of this root that have more than one hard link (default false: they are refused, since another name of such a file may be outside the root). Turn on only for trusted trees, e.g. pnpm or cp -al copies.',
  );
const root = z.object({ id, path: rootPath, allowHardLinks }).strict();

/** The schema of `lectern.config.json`. */
/**
 * The byte budget of one answer of a package's tools: 64 KiB by default (what clients take), and
 * unlike the other limits it may be raised, up to 16 MiB.
 */
const outputBytes = (what: string) =>
  z
    .number()
    .int()
    .min(4096)
    .max(16 * 1024 * 1024)
    .optional()
    .describe(
      `Byte budget of one ${what} answer, 4 KiB to 16 MiB (default 64 KiB); longer answers page.`,
    );

export const ConfigSchema = z
  .object({
    $schema: z.string().optional().describe('JSON Schema reference for editors.'),
    name: z.string().min(1).default('lectern').describe('Server name announced to clients.'),
    preset: z
      .enum(PRESET_NAMES)
      .optional()
      .describe(
        'Serve one preset tool surface instead of native tools: atlas, md-chunk, harness, wiki or memoria.',
      ),
    packages: z
      .array(z.enum(PACKAGES))
      .optional()
      .describe('Tool packages to serve; by default every package that has roots configured.'),
    tools: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Serve only these tools (native names, before renames); by default every tool of the chosen packages.',
      ),
    docs: z.array(root).optional().describe('Markdown documentation roots for the sections tools.'),
    workspaces: z.array(root).optional().describe('Project folders for the lines tools.'),
    wikis: z
      .array(
        root
          .extend({
            title: z.string().optional().describe('Human title of the wiki.'),
            schemaFile: z
              .string()
              .optional()
              .describe('Conventions file at the wiki root (default SCHEMA.md).'),
          })
          .strict(),
      )
      .optional()
      .describe('Obsidian-style wikis for the wiki tools.'),
    memory: z
      .object({
        sources: z
          .array(
            root
              .extend({
                include: z
                  .array(z.string())
                  .optional()
                  .describe('Globs of files to index (default Markdown and text).'),
                exclude: z.array(z.string()).optional().describe('Globs of files to skip.'),
              })
              .strict(),
          )
          .min(1)
          .describe('Folders of notes to index.'),
        db: z
          .string()
          .optional()
          .describe(
            'Where the index lives: a SQLite file (default .lectern/memory.db beside the first source), or a postgres://user@host:port/database URL for one index shared by several servers (needs the pg package; the password comes from postgres.passwordEnv, PGPASSWORD or ~/.pgpass, never from this file).',
          ),
        postgres: z
          .object({
            schema: z
              .string()
              .optional()
              .describe('Schema of the index tables (default lectern); created when missing.'),
            passwordEnv: z
              .string()
              .optional()
              .describe(
                'Environment variable holding the password (default: PGPASSWORD, then ~/.pgpass).',
              ),
            tls: z
              .object({
                ca: z
                  .string()
                  .optional()
                  .describe("PEM file of the server certificate's authority."),
                cert: z.string().optional().describe('PEM file of a client certificate.'),
                key: z.string().optional().describe("PEM file of the client certificate's key."),
                rejectUnauthorized: z
                  .boolean()
                  .optional()
                  .describe('Refuse a server certificate that does not verify (default true).'),
                servername: z
                  .string()
                  .optional()
                  .describe('Name to check the server certificate against, if not the host.'),
              })
              .strict()
              .optional()
              .describe('TLS to the database; relative file paths resolve from the config file.'),
            poolSize: z
              .number()
              .int()
              .min(1)
              .max(100)
              .optional()
              .describe('Most database connections this server opens (default 4).'),
            machine: z
              .string()
              .min(1)
              .optional()
              .describe(
                'Name of this machine among the servers sharing the index (default the host name).',
              ),
          })
          .strict()
          .optional()
          .describe('Connection options when db is a postgres:// URL.'),
        watch: z
          .boolean()
          .optional()
          .describe(
            'Watch the source folders for changes so a reindex checks only the notes that changed instead of every one (default false; local disks only, not network mounts).',
          ),
      })
      .strict()
      .optional()
      .describe('Indexed memory of notes for the memory tools.'),
    http: z
      .object({
        stateless: z
          .boolean()
          .optional()
          .describe(
            'Serve HTTP without sessions, so that several lectern processes behind a load balancer can each answer any request (same as serve --stateless).',
          ),
      })
      .strict()
      .optional()
      .describe('Options of serve --http.'),
    rename: z
      .record(z.string(), z.string().min(1))
      .default({})
      .describe('New tool names by native name, applied before the prefix.'),
    prefix: z.string().default('').describe('Prepended to every tool name, e.g. "kb_".'),
    locale: z
      .enum(['en', 'es'])
      .default('en')
      .describe(
        'Language of error messages, and of tool descriptions where a package has them; it never changes which tools are served (a preset is chosen by "preset").',
      ),
    limits: z
      .object({
        sectionsMaxFileBytes: z
          .number()
          .int()
          .min(1024)
          .max(10 * 1024 * 1024)
          .optional()
          .describe(
            'Largest Markdown file the sections tools read, 1 KiB to 10 MiB (default 10 MiB).',
          ),
        linesMaxFileBytes: z
          .number()
          .int()
          .min(1)
          .max(16 * 1024 * 1024)
          .optional()
          .describe('Largest file the lines tools read as text, up to 16 MiB (default).'),
        linesMaxLines: z
          .number()
          .int()
          .min(1)
          .max(200)
          .optional()
          .describe('Most lines per read, up to 200 (default).'),
        linesMaxTextBytes: z
          .number()
          .int()
          .min(256)
          .max(32 * 1024)
          .optional()
          .describe('Most text bytes per read, 256 B to 32 KiB (default).'),
        linesMaxOutputBytes: z
          .number()
          .int()
          .min(1024)
          .max(64 * 1024)
          .optional()
          .describe('Most serialized output bytes per read, 1 KiB to 64 KiB (default).'),
        sectionsMaxOutputBytes: outputBytes('docs'),
        wikiMaxOutputBytes: outputBytes('wiki'),
        memoryMaxOutputBytes: outputBytes('memory'),
        wikiMaxPageBytes: z
          .number()
          .int()
          .min(1024)
          .max(16 * 1024 * 1024)
          .optional()
          .describe('Largest wiki page that can be written, 1 KiB to 16 MiB.'),
      })
      .strict()
      .default({})
      .describe(
        'Limits; each may only be lowered from its default, except the *MaxOutputBytes budgets of one answer, which may be raised for clients that take more.',
      ),
  })
  .strict();

/** A parsed config, before roots are resolved. */
export type Config = z.output<typeof ConfigSchema>;

/** Every problem found in a config, each with where it is. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`invalid configuration (${source}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function where(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0
    ? '(top level)'
    : path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('')
        .replace(/^\./, '');
}

/**
 * Parses a config value, resolves relative root paths from `baseDir`, and checks that every root
 * exists and is a folder. Throws {@link ConfigError} listing every problem at once.
 */
export function parseConfig(value: unknown, baseDir: string, source = 'config'): Config {
  const parsed = ConfigSchema.safeParse(value);
  if (!parsed.success) {
    throw new ConfigError(source, parsed.error.issues.flatMap(describeIssue));
  }
  const config = parsed.data;
  const problems: string[] = [];
  const fix = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const checkRoots = (key: string, roots: Array<{ id: string; path: string }> | undefined) => {
    const seen = new Set<string>();
    roots?.forEach((r, i) => {
      r.path = fix(r.path);
      if (seen.has(r.id)) problems.push(`${key}[${i}].id: "${r.id}" is used twice`);
      seen.add(r.id);
      try {
        if (!statSync(r.path).isDirectory())
          problems.push(`${key}[${i}].path: ${r.path} is a file, not a folder`);
      } catch {
        problems.push(`${key}[${i}].path: ${r.path} does not exist`);
      }
    });
  };
  checkRoots('docs', config.docs);
  checkRoots('workspaces', config.workspaces);
  checkRoots('wikis', config.wikis);
  checkRoots('memory.sources', config.memory?.sources);
  const memory = config.memory;
  if (memory?.db && !/^postgres(?:ql)?:\/\//i.test(memory.db)) memory.db = fix(memory.db);
  if (memory?.postgres && !/^postgres(?:ql)?:\/\//i.test(memory.db ?? '')) {
    problems.push('memory.postgres: these options need memory.db to be a postgres:// URL');
  }
  const tls = memory?.postgres?.tls;
  for (const k of ['ca', 'cert', 'key'] as const) if (tls?.[k]) tls[k] = fix(tls[k]);
  if (config.preset && (config.packages || config.tools)) {
    problems.push(
      'preset: a preset fixes its own tools; remove "packages" and "tools" or the preset',
    );
  }
  for (const pkg of config.packages ?? []) {
    const entry = packageEntry(pkg);
    if (!entry.roots(config)?.length) {
      problems.push(`packages: "${pkg}" is listed but no ${entry.rootsKey} are configured`);
    }
  }
  if (problems.length) throw new ConfigError(source, problems);
  return config;
}

/** The property names the config schema allows at `path` (an object inside the config). */
function keysAt(path: ReadonlyArray<PropertyKey>): string[] {
  // biome-ignore lint/suspicious/noExplicitAny: walking a generated JSON Schema
  let node: any = configJsonSchema();
  for (const p of path) {
    while (node && !node.properties && !node.items && node.anyOf) {
      node = node.anyOf.find((n: { type?: string }) => n.type !== 'null');
    }
    node = typeof p === 'number' ? node?.items : node?.properties?.[String(p)];
  }
  return Object.keys(node?.properties ?? {});
}

/** One line per problem of a zod issue; an unknown key gets the closest allowed one. */
function describeIssue(issue: z.core.$ZodIssue): string[] {
  if (issue.code !== 'unrecognized_keys') return [`${where(issue.path)}: ${issue.message}`];
  const known = keysAt(issue.path);
  return issue.keys.map((key) => {
    const near = closest(key, known);
    const at = where([...issue.path, key]);
    return near
      ? `${at}: unknown key; did you mean "${near}"?`
      : `${at}: unknown key; allowed here: ${known.join(', ')}`;
  });
}

/** Reads and parses a config file (JSON); relative paths resolve from its folder. */
export function loadConfigFile(file: string): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(file, [`cannot read ${file}`]);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const found = findJsonSyntaxError(text);
    throw new ConfigError(file, [
      found
        ? `not valid JSON at line ${found.line}, column ${found.column}: ${found.message}`
        : `not valid JSON: ${(e as Error).message}`,
    ]);
  }
  return parseConfig(value, dirname(resolve(file)), file);
}

/** The JSON Schema of the config file, generated from {@link ConfigSchema}. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ConfigSchema, { io: 'input' }),
    $id: 'https://unpkg.com/lectern/lectern.schema.json',
    title: 'Lectern server configuration',
  };
}
