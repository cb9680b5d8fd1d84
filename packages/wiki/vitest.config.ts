import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
    testTimeout: 30_000,
    // Child-process tests run the built package; rebuild dist when the sources are newer.
    globalSetup: ['src/test-helpers/build.ts'],
  },
});
