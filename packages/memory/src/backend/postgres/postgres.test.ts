import { afterAll, afterEach, beforeEach, describe } from 'vitest';
import { postgresForTests, testSchemas } from '../../test-helpers/postgres.js';
import { memoryBackendSuite } from '../../test-helpers/suite.js';
import { postgresBackend } from './backend.js';

const url = postgresForTests('the memory suite on PostgreSQL');

if (url) {
  const schemas = testSchemas(url);
  afterAll(() => schemas.close());

  // The shared suite: every database of a test is a schema of its own in one database.
  memoryBackendSuite({
    name: 'PostgreSQL',
    backend: (db = 'main') => postgresBackend({ url, schema: schemas.schema(db), poolSize: 2 }),
    beforeEach: () => schemas.next(),
    afterEach: () => schemas.dropAll(),
    expressions: { prefix: "'deploy':*", pruned: "'quince'", typo: "'weekly' | 'qunice'" },
    raw: {
      either: 'deployments | canela',
      headingOnly: 'incidents:A',
      invalid: ['&(', 'deploy &', '(canela', 'a <-> ', '!'],
    },
  });
}
