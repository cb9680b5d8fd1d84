#!/usr/bin/env node
import * as nodeModule from 'node:module';

// Node 22.1+ keeps compiled code of the modules it loads in a cache on disk (in the OS temp
// folder, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off), which makes every
// later start faster. Older Node has no such API: nothing happens there. It has to be on before
// the rest of the CLI loads, hence the dynamic imports below.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const [{ main }, { exitAfterFlush, quietOnClosedPipe }, { exposeGc }] = await Promise.all([
  import('./cli.js'),
  import('./lib/exit.js'),
  import('./lib/expose-gc.js'),
]);

// The docs index frees a large document's replaced outline with a full collection after a
// re-parse (see @lectern/sections); this process is ours, so it may switch that on.
exposeGc();
quietOnClosedPipe();
main(process.argv.slice(2)).then(
  (code) => exitAfterFlush(code),
  (e) => {
    process.stderr.write(`lectern: ${(e as Error)?.stack ?? String(e)}\n`);
    exitAfterFlush(1);
  },
);
