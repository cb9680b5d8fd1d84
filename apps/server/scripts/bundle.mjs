// Bundles the `lectern` command (src/bin.ts) into dist/bin.js and its chunks (dist/bin-*.js).
//
// Start-up is mostly module loading: unbundled, `lectern serve` resolves, reads and links about
// 260 files before it answers tools/list. Bundled, it loads a handful. Everything that shares
// state is inside the bundle, so there is one copy of each at run time: zod (whose registry holds
// the `.describe()` texts the SDK reads), the SDK, @lectern/core (ToolError), and the tool
// packages. Each tool package, the lint, the HTTP transport and the in-process client stay their
// own chunks, loaded by dynamic import only when a command needs them.
//
// Left outside, loaded from node_modules as before:
// - @lectern/markdown: it imports no Lectern package, zod or SDK, and loads remark (and its
//   worker thread) relative to its own files;
// - native and optional modules (better-sqlite3, pg), and what the packages load with
//   `createRequire` (snowball-stemmers, remark): the bundled code of a package finds them from
//   that package's installed location (see `moduleUrl` below).
//
// The library entry (dist/index.js and the rest, from tsc) is not bundled: programs that import
// `lectern` load the SDK and zod from node_modules. dist/bin-chunks.json says which modules each chunk holds
// (for the start-up test; it does not ship); dist/bin-licenses.txt carries the licenses of the
// third-party code inside the bundle.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const app = fileURLToPath(new URL('..', import.meta.url));
const dist = join(app, 'dist');
const require = createRequire(join(app, 'package.json'));

/** Loaded from node_modules, not bundled (see above). */
const EXTERNAL = ['@lectern/markdown', 'better-sqlite3', 'pg'];

/** The @lectern packages bundled into the command: every one the app depends on but markdown. */
const BUNDLED = Object.keys(readJson(join(app, 'package.json')).dependencies).filter(
  (name) => name.startsWith('@lectern/') && !EXTERNAL.includes(name),
);

/** Each bundled package's folder (real path) and the folder of its main entry. */
const packages = BUNDLED.map((name) => {
  const main = require.resolve(name);
  let dir = dirname(main);
  while (!readJson(join(dir, 'package.json'))?.name?.startsWith('@lectern/')) dir = dirname(dir);
  return { name, dir: `${dir}${sep}`, mainDir: dirname(main) };
});

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A module of a bundled package keeps the `import.meta.url` it has when installed: its own file
 * in that package's dist, found at run time from the package's entry (`require.resolve` from the
 * bundle, which the app depends on). So `createRequire(import.meta.url)` still finds the
 * package's own dependencies (better-sqlite3, snowball-stemmers, pg), and `new URL('../x',
 * import.meta.url)` still finds its files (the lint's calibration weights).
 */
const moduleUrl = {
  name: 'lectern-module-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const pkg = packages.find((p) => args.path.startsWith(p.dir));
      if (!pkg) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const rel = relative(pkg.mainDir, args.path).split(sep).join('/');
      const url = `new __lecternURL(${JSON.stringify(`./${rel}`)}, __lecternPathToFileURL(__lecternRequire.resolve(${JSON.stringify(pkg.name)}))).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

const result = await build({
  absWorkingDir: app,
  entryPoints: { bin: 'src/bin.ts' },
  outdir: 'dist',
  chunkNames: 'bin-[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Prefer each package's ES module build (the SDK and zod ship both).
  mainFields: ['module', 'main'],
  external: EXTERNAL,
  plugins: [moduleUrl],
  banner: {
    js: [
      "import { createRequire as __lecternCreateRequire } from 'node:module';",
      "import { pathToFileURL as __lecternPathToFileURL } from 'node:url';",
      'const __lecternRequire = __lecternCreateRequire(import.meta.url);',
      'const __lecternURL = URL;',
      // For bundled CommonJS (Ajv, picomatch, ignore) that requires Node's built-in modules.
      'const require = __lecternRequire;',
    ].join('\n'),
  },
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});

// Which modules each chunk holds, relative to the repository (node_modules paths shortened to
// the package), for the start-up test.
const chunks = {};
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  chunks[relative('dist', file).split(sep).join('/')] = Object.keys(output.inputs);
}
writeFileSync(join(dist, 'bin-chunks.json'), `${JSON.stringify(chunks, null, 1)}\n`);

// The licenses of the third-party packages bundled into the command, beside it in the package.
const bundled = new Map();
for (const output of Object.values(result.metafile.outputs)) {
  for (const input of Object.keys(output.inputs)) {
    if (!input.includes('node_modules')) continue;
    let dir = dirname(join(app, input));
    while (!existsSync(join(dir, 'package.json')) || !readJson(join(dir, 'package.json'))?.name) {
      dir = dirname(dir);
    }
    bundled.set(dir, readJson(join(dir, 'package.json')));
  }
}
const notices = [...bundled]
  .sort(([, a], [, b]) => a.name.localeCompare(b.name))
  .map(([dir, pkg]) => {
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file ? readFileSync(join(dir, file), 'utf8').trim() : `License: ${pkg.license}`;
    return `${pkg.name}@${pkg.version} (${pkg.license})\n\n${text}\n`;
  });
writeFileSync(
  join(dist, 'bin-licenses.txt'),
  `The lectern command (dist/bin.js and dist/bin-*.js) bundles these packages:\n\n${notices.join(`\n${'-'.repeat(72)}\n\n`)}`,
);
