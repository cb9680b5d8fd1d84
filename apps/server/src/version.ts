import { createRequire } from 'node:module';

/** The `lectern` package version. */
export const VERSION: string = (
  createRequire(import.meta.url)('../package.json') as { version: string }
).version;
