import { expect, inject, test } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL the suites use, or why there is none (see scripts/vitest-postgres.mjs). */
    lecternPg: { url: string | null; reason: string | null; ci: boolean };
  }
}

/**
 * The PostgreSQL of this test run: its URL, or undefined after registering one test that says
 * why the PostgreSQL tests did not run (and fails under CI, where they must run).
 */
export function postgresForTests(what: string): string | undefined {
  const provided = inject('lecternPg');
  if (provided.url) return provided.url;
  const reason = provided.reason ?? 'no PostgreSQL was provided';
  test(`NOT RUN: ${what} (no PostgreSQL: ${reason})`, () => {
    console.warn(`[lectern] ${what} did not run: ${reason}`);
    expect(provided.ci, 'under CI the PostgreSQL tests must run').toBe(false);
  });
  return undefined;
}

/** `url` with a schema of its own for one test (`?schema=` is Lectern's own URL parameter). */
export function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  return u.toString();
}
