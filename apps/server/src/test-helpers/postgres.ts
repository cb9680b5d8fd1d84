export { postgresForTests } from '../../../../scripts/postgres-for-tests.mjs';

/** `url` with a schema of its own for one test (`?schema=` is Lectern's own URL parameter). */
export function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  return u.toString();
}
