// The one vitest configuration every workspace extends: tests beside the code, a JSON report
// for the summary line, and timeouts far above any test's run time on an idle machine, so a busy
// CI machine slows the suite down but never fails it. Heavier tests set their own, larger,
// timeout; sizes of property and torture tests follow LECTERN_TEST_DEPTH (see bySize in
// @lectern/core/testing).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
