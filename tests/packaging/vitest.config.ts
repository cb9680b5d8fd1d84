import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.mjs';

// The tarballs are packed once for every test file (see src/global-setup.ts).
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['./src/global-setup.ts'] } }),
);
