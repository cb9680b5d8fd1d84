// The test side of scripts/vitest-postgres.mjs, shared by every workspace whose suites use the
// test run's PostgreSQL (memory, the app): the URL the global setup provided, or one test that
// says why the PostgreSQL tests did not run and fails under CI, where they must run.
import { expect, inject, test } from 'vitest';

export function postgresForTests(what) {
  const provided = inject('lecternPg');
  if (provided.url) return provided.url;
  const reason = provided.reason ?? 'no PostgreSQL was provided';
  test(`NOT RUN: ${what} (no PostgreSQL: ${reason})`, () => {
    console.warn(`[lectern] ${what} did not run: ${reason}`);
    // Under CI the global setup already fails the run; this keeps the rule visible here too.
    expect(provided.ci, 'under CI the PostgreSQL tests must run').toBe(false);
  });
  return undefined;
}
