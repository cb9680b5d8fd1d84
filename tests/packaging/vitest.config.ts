import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.mjs';

// The tarballs are packed once for every test file (see src/global-setup.ts). The files run
// side by side even on two cores: installs wait on the registry and the disk while attw and
// tsc use the CPU.
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['./src/global-setup.ts'], maxWorkers: 3 } }),
);
