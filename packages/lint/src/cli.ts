#!/usr/bin/env node
import { runLintCli } from './run-cli.js';

runLintCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`lectern-lint: ${(error as Error)?.message ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
