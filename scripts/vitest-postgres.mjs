// Vitest global setup for the suites that need PostgreSQL: one private cluster per test run
// (see pg-cluster.mjs), or the server named by LECTERN_PG_URL. Test files read the outcome with
// inject('lecternPg'). Under CI a PostgreSQL that cannot be started fails the run, with the
// reason; elsewhere the suites say loudly that they did not run.
import { startCluster } from './pg-cluster.mjs';

const inCi = () => {
  const ci = (process.env.CI ?? '').toLowerCase();
  return ci !== '' && ci !== 'false' && ci !== '0';
};

export default async function setup({ provide }) {
  const external = process.env.LECTERN_PG_URL?.trim();
  if (external) {
    provide('lecternPg', { url: external, reason: null, ci: inCi() });
    return undefined;
  }
  let cluster;
  try {
    cluster = await startCluster();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (inCi()) {
      throw new Error(
        `CI is set, so the PostgreSQL suites must run, but no PostgreSQL could be started: ${reason}`,
      );
    }
    process.stderr.write(
      `\n[lectern] WARNING: the PostgreSQL test suites will NOT run: ${reason}\n` +
        '[lectern] Install PostgreSQL (initdb and pg_ctl), or set LECTERN_PG_URL to a database to use.\n\n',
    );
    provide('lecternPg', { url: null, reason, ci: false });
    return undefined;
  }
  provide('lecternPg', { url: cluster.url, reason: null, ci: inCi() });
  return () => cluster.stop();
}
