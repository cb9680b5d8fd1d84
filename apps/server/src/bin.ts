#!/usr/bin/env node
import { main } from './cli.js';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`lectern: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
