/** One module specifier of a TypeScript or declaration file. */
export interface Specifier {
  from: string;
  /** `import type …` / `export type …`: needs the package's types, not its code. */
  typeOnly: boolean;
}

/**
 * The module specifiers a file names: static imports and re-exports (statements end with `;`,
 * as Biome writes them), side-effect imports and dynamic `import('…')`.
 */
export function specifiers(text: string): Specifier[] {
  const out: Specifier[] = [];
  const q = `['"]([^'"]+)['"]`;
  for (const m of text.matchAll(
    new RegExp(`^\\s*(?:import|export)\\s+(type\\s+)?[^;]*?\\bfrom\\s+${q}`, 'gm'),
  ))
    out.push({ from: m[2]!, typeOnly: m[1] !== undefined });
  for (const m of text.matchAll(new RegExp(`^\\s*import\\s+${q}`, 'gm')))
    out.push({ from: m[1]!, typeOnly: false });
  for (const m of text.matchAll(new RegExp(`\\bimport\\(\\s*${q}\\s*\\)`, 'g')))
    out.push({ from: m[1]!, typeOnly: false });
  return out;
}

/** The npm package a specifier names (`zod/v4` -> `zod`, `@a/b/c.js` -> `@a/b`). */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** True for Node's built-in modules (`node:fs`, and relative paths are not packages either). */
export function isBuiltinOrRelative(specifier: string): boolean {
  return specifier.startsWith('.') || specifier.startsWith('node:');
}

/** The package whose types a bare name needs: itself, or `@types/<name>` for untyped ones. */
export function typesPackages(name: string): string[] {
  const types = name.startsWith('@')
    ? `@types/${name.slice(1).replace('/', '__')}`
    : `@types/${name}`;
  return [name, types];
}
