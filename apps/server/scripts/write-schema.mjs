// Regenerates lectern.schema.json (the config file's JSON Schema) from the zod schema.
// Run after `pnpm --filter lectern build`; a test fails when the committed file is stale.
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../dist/config.js';

writeFileSync(
  new URL('../lectern.schema.json', import.meta.url),
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
);
