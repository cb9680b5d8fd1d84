// One memory client in its own process, for the concurrent-query rows: several of these search
// one index at the same time, as several agents (or replicas) would. `node memory-client.mjs`
// answers one JSON line per stdin line:
//   { cmd: 'open', dbPath, notes }  open a store on the notes folder   -> { ok }
//   { cmd: 'queries', queries }      run them one after another         -> { ms: number[] }
// Each `ms` is one search, measured inside this process.
import { createInterface } from 'node:readline';
import { createMemory } from '@lectern/memory';

let store = null;

async function handle(msg) {
  if (msg.cmd === 'open') {
    await store?.close();
    store = createMemory({
      sources: [{ id: 'notes', path: msg.notes }],
      dbPath: msg.dbPath,
      // Each client process is one user: one connection is all it needs.
      ...(msg.dbPath.startsWith('postgres') ? { postgres: { poolSize: 1 } } : {}),
    });
    // Warm the connection and the store's caches before anything is timed.
    await store.search({ query: 'warmup' });
    return { ok: true };
  }
  if (msg.cmd === 'queries') {
    const ms = [];
    for (const q of msg.queries) {
      const t0 = performance.now();
      await store.search({ query: q });
      ms.push(performance.now() - t0);
    }
    return { ms };
  }
  throw new Error(`unknown command ${msg.cmd}`);
}

const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of rl) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(await handle(JSON.parse(line)))}\n`);
}
await store?.close();
