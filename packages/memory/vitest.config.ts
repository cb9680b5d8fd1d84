import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.mjs';

// One private PostgreSQL cluster per run for the PostgreSQL suites (or LECTERN_PG_URL).
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['../../scripts/vitest-postgres.mjs'] } }),
);
