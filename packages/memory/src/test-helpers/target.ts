import type { BackendFactory } from '../backend/types.js';

/**
 * A memory backend as the shared suite sees it. Every test creates its stores with
 * `backend(db)`: the same `db` name within one test reaches the same database, and every test
 * starts from empty databases.
 */
export interface BackendUnderTest {
  /** Shown in test names. */
  name: string;
  /** A backend factory for the database called `db` (default `'main'`) of the current test. */
  backend: (db?: string) => BackendFactory;
  /** Runs before each test (after the notes folder exists): e.g. a fresh schema. */
  beforeEach?: () => void | Promise<void>;
  /** Runs after each test, once its stores are closed: e.g. drop what the test created. */
  afterEach?: () => void | Promise<void>;
  /** The expressions the backend reports as `fts_query` for the suite's queries. */
  expressions: {
    /** For `deploy*`. */
    prefix: string;
    /** For `weekly quince` after `weekly` (in most chunks) is left out of the any-term query. */
    pruned: string;
    /** For `weekly qunice` (nothing is left out: `qunice` occurs nowhere). */
    typo: string;
  };
  /** Raw queries in the backend's own syntax, over the suite's `recetas.md` and `ops.md`. */
  raw: {
    /** Matches "deployments" or "canela": one chunk in each file. */
    either: string;
    /** Matches "incidents" in the heading path only (so only ops.md). */
    headingOnly: string;
    /** Expressions the backend refuses as invalid syntax. */
    invalid: string[];
  };
}
