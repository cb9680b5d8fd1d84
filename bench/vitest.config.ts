import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../vitest.shared.mjs';

// The postgres scenario of the smoke test uses one private PostgreSQL cluster per run (or
// LECTERN_PG_URL), started by the same global setup as the memory and server suites.
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['../scripts/vitest-postgres.mjs'] } }),
);
