// Scaffolds the shared files of a workspace package (package.json, tsconfigs, vitest config).
// Usage: node scripts/new-package.mjs <dir> <name> "<description>"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, name, description] = process.argv.slice(2);
if (!dir || !name || !description) {
  console.error('usage: node scripts/new-package.mjs <dir> <name> "<description>"');
  process.exit(2);
}
mkdirSync(join(dir, 'src'), { recursive: true });
const pkg = {
  name,
  version: '0.1.0',
  description,
  license: 'MIT',
  type: 'module',
  sideEffects: false,
  engines: { node: '>=20' },
  // Sources ship beside dist so the source and declaration maps resolve in a consumer.
  files: [
    'dist',
    '!dist/**/*.test.*',
    'src',
    '!src/**/*.test.ts',
    '!src/**/test-helpers',
    'README.md',
    'LICENSE',
  ],
  main: './dist/index.js',
  types: './dist/index.d.ts',
  exports: {
    '.': { types: './dist/index.d.ts', default: './dist/index.js' },
    './package.json': './package.json',
  },
  publishConfig: { access: 'public', provenance: true },
  repository: {
    type: 'git',
    url: 'git+https://github.com/lectern-dev/lectern.git',
    directory: dir,
  },
  scripts: {
    build: 'node ../../scripts/clean-dist.mjs && tsc -p tsconfig.build.json',
    typecheck: 'tsc -p tsconfig.json --noEmit',
    test: 'vitest run',
  },
  // One copy of the SDK and zod for the consumer's server and our tools (see tests/packaging).
  peerDependencies: { '@modelcontextprotocol/sdk': '^1.23.0', zod: '^4.0.0' },
  devDependencies: { '@modelcontextprotocol/sdk': '^1.32.2', zod: '^4.6.7' },
};
const write = (file, content) => {
  const p = join(dir, file);
  if (!existsSync(p)) writeFileSync(p, content);
};
write('package.json', `${JSON.stringify(pkg, null, 2)}\n`);
write('LICENSE', readFileSync(new URL('../LICENSE', import.meta.url), 'utf8'));
write(
  'tsconfig.json',
  `${JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true }, include: ['src'] }, null, 2)}\n`,
);
write(
  'tsconfig.build.json',
  `${JSON.stringify(
    {
      extends: '../../tsconfig.base.json',
      compilerOptions: { outDir: 'dist', rootDir: 'src' },
      include: ['src'],
      exclude: ['src/**/*.test.ts', 'src/**/test-helpers/**'],
    },
    null,
    2,
  )}\n`,
);
write(
  'vitest.config.ts',
  `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
    testTimeout: 30_000,
  },
});
`,
);
