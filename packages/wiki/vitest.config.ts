import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.mjs';

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Child-process tests run the built package; rebuild dist when the sources are newer.
      globalSetup: ['src/test-helpers/build.ts'],
    },
  }),
);
