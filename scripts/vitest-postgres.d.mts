import type { TestProject } from 'vitest/node';

/** Vitest global setup: provides `lecternPg` (see vitest-postgres.mjs). */
export default function setup(
  project: Pick<TestProject, 'provide'>,
): Promise<(() => void) | undefined>;
