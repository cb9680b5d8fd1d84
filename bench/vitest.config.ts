import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
    // The smoke test runs the whole quick benchmark (about 30-50 s on two cores).
    testTimeout: 115_000,
    hookTimeout: 30_000,
  },
});
