// What the global setup (scripts/vitest-postgres.mjs) hands to the bench's smoke test.
declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL of this test run, or why there is none. */
    lecternPg: { url: string | null; reason: string | null; ci: boolean };
  }
}

export {};
