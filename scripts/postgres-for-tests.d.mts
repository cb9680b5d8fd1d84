declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL the suites use, or why there is none (see vitest-postgres.mjs). */
    lecternPg: { url: string | null; reason: string | null; ci: boolean };
  }
}

/**
 * The PostgreSQL of this test run: its URL, or undefined after registering one test that says
 * why the PostgreSQL tests did not run (and fails under CI, where they must run).
 */
export function postgresForTests(what: string): string | undefined;
