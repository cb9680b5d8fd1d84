// What every package.json promises a consumer, read from the sources: license, peer ranges,
// export conditions, the MCP registry entry, and no test helpers in production code.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBuiltinOrRelative, packageOf, specifiers } from './lib/imports.js';
import { PEER_RANGES } from './lib/peers.js';
import { type Published, published, publishedPackages, readJson, root } from './lib/workspace.js';

const packages = publishedPackages();
const APP = 'lectern';

/** Production TypeScript sources of a package (no tests, no test helpers). */
function productionSources(p: Published): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'test-helpers') walk(path);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(path);
    }
  };
  walk(join(p.dir, 'src'));
  return out;
}

/** Module specifiers a source file loads at run time (type-only imports left out). */
function importsOf(file: string): string[] {
  return specifiers(readFileSync(file, 'utf8'))
    .filter((s) => !s.typeOnly)
    .map((s) => s.from);
}

it('finds every published package', () => {
  expect(packages.map((p) => p.pkg.name).sort()).toEqual([
    '@lectern/core',
    '@lectern/lines',
    '@lectern/lint',
    '@lectern/markdown',
    '@lectern/memory',
    '@lectern/sections',
    '@lectern/text',
    '@lectern/wiki',
    APP,
  ]);
});

it('has an MIT LICENSE at the root', () => {
  const text = readFileSync(join(root, 'LICENSE'), 'utf8');
  expect(text).toMatch(/^MIT License\n\nCopyright \(c\) 2026 Lectern contributors\n/);
  expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
});

describe.each(packages.map((p) => [p.pkg.name, p] as const))('%s', (_name, p) => {
  it('ships the root LICENSE and says MIT', () => {
    expect(p.pkg.license).toBe('MIT');
    expect(p.pkg.files).toContain('LICENSE');
    expect(readFileSync(join(p.dir, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(root, 'LICENSE'), 'utf8'),
    );
  });

  // One copy of each for the consumer's server and our tools: a nested copy makes tsc refuse
  // the consumer's McpServer or zod schema. Tool packages pass core's peers on.
  it('takes the SDK and zod as peers, the app as dependencies', () => {
    const loaded = new Set(
      productionSources(p).flatMap((f) =>
        specifiers(readFileSync(f, 'utf8')).map((s) => packageOf(s.from)),
      ),
    );
    for (const [dep, range] of Object.entries(PEER_RANGES)) {
      // Tool packages pass core's peers on; a package that neither loads them nor uses core
      // (the Markdown reader) does not ask for them at all.
      const usesCore = p.pkg.dependencies?.['@lectern/core'] !== undefined;
      if (!loaded.has(dep) && !usesCore && p.pkg.name !== APP) {
        expect(p.pkg.peerDependencies?.[dep], dep).toBeUndefined();
        expect(p.pkg.dependencies?.[dep], dep).toBeUndefined();
        continue;
      }
      if (p.pkg.name === APP) {
        expect(p.pkg.dependencies?.[dep], dep).toBeDefined();
        expect(p.pkg.peerDependencies?.[dep], dep).toBeUndefined();
      } else {
        expect(p.pkg.peerDependencies?.[dep], dep).toBe(range);
        expect(p.pkg.dependencies?.[dep], dep).toBeUndefined();
        // Our own tests run against the newest version we install.
        expect(p.pkg.devDependencies?.[dep], dep).toBeDefined();
      }
    }
  });

  it('declares every package its production code loads', () => {
    const declared = new Set([
      ...Object.keys(p.pkg.dependencies ?? {}),
      // The app loads @lectern/memory only when a config serves memory (a dynamic import).
      ...Object.keys(p.pkg.optionalDependencies ?? {}),
      ...Object.keys(p.pkg.peerDependencies ?? {}),
      p.pkg.name,
    ]);
    for (const file of productionSources(p)) {
      for (const spec of importsOf(file)) {
        if (isBuiltinOrRelative(spec)) continue;
        expect(declared, `${relative(root, file)} imports ${spec}`).toContain(packageOf(spec));
      }
    }
  });

  it('does not use @lectern/core/testing in production code', () => {
    for (const file of productionSources(p)) {
      expect(importsOf(file), relative(root, file)).not.toContain('@lectern/core/testing');
    }
  });

  it('exports types first and a default condition for import and require', () => {
    for (const [key, target] of Object.entries(p.pkg.exports ?? {})) {
      if (typeof target === 'string') continue;
      expect(Object.keys(target), key).toEqual(['types', 'default']);
    }
  });

  it('leaves the native SQLite module to @lectern/memory and what uses it', () => {
    const dependsOnMemory = Object.keys(p.pkg.dependencies ?? {}).includes('@lectern/memory');
    if (p.pkg.name !== '@lectern/memory' && !dependsOnMemory) {
      expect(Object.keys(p.pkg.dependencies ?? {})).not.toContain('better-sqlite3');
    }
  });
});

describe('MCP registry entry', () => {
  const app = published(APP);
  const server = readJson<{
    name: string;
    version: string;
    packages: { registryType: string; identifier: string; version: string }[];
  }>(join(app.dir, 'server.json'));

  it('names the same server as mcpName in package.json', () => {
    expect(app.pkg.mcpName).toBe(server.name);
    expect(server.name).toMatch(/^io\.github\.lectern-dev\//);
  });

  it('has the version of package.json, for the server and its npm package', () => {
    expect(server.version).toBe(app.pkg.version);
    const npm = server.packages.filter((x) => x.registryType === 'npm');
    expect(npm.map((x) => [x.identifier, x.version])).toEqual([[APP, app.pkg.version]]);
  });

  it('is published with the package', () => {
    expect(app.pkg.files).toContain('server.json');
  });
});
