#!/usr/bin/env node
import { main } from './cli.js';
import { exitAfterFlush, quietOnClosedPipe } from './lib/exit.js';

quietOnClosedPipe();
main(process.argv.slice(2)).then(
  (code) => exitAfterFlush(code),
  (e) => {
    process.stderr.write(`lectern: ${(e as Error)?.stack ?? String(e)}\n`);
    exitAfterFlush(1);
  },
);
