// server: start-up to the first tools/list answer, with every package configured, against the
// filesystem server's start-up; and the peak memory of each process at that point.
import { join } from 'node:path';
import { connectFilesystem, connectLectern } from '../lib/mcp.mjs';
import { alternate } from '../lib/measure.mjs';
import { makeRow } from '../lib/report.mjs';

async function startup(connect, seen) {
  const t0 = performance.now();
  const s = await connect();
  try {
    const { tools } = await s.client.listTools();
    const ms = performance.now() - t0;
    seen.tools = tools.length;
    seen.rss = Math.max(seen.rss ?? 0, s.peakRssMb() ?? 0);
    return ms;
  } finally {
    await s.close();
  }
}

export async function server(ctx) {
  const { docs, text, wiki, notes } = ctx.corpora;
  const lectern = {};
  const fs = {};
  const flags = [
    '--docs',
    `docs=${docs.dir}`,
    '--workspace',
    `big=${text.dir}`,
    '--wiki',
    `w=${wiki.dir}`,
    '--notes',
    `notes=${notes.dir}`,
    '--db',
    join(ctx.work, 'memory-mcp.db'),
  ];
  const samples = await alternate(
    [
      { key: 'lectern', run: () => startup(() => connectLectern(flags), lectern) },
      { key: 'peer', run: () => startup(() => connectFilesystem([docs.dir, text.dir]), fs) },
    ],
    { rounds: ctx.plan.rounds.startup, warmup: 1 },
  );
  return [
    makeRow({
      scenario: 'server',
      measure: `start-up to first tools/list (${lectern.tools} tools)`,
      peer: `filesystem server (${fs.tools} tools)`,
      samples,
      rssMb: lectern.rss,
      peerRssMb: fs.rss,
      note: `spawn, initialize and the first tools/list answer over stdio. Lectern serves all four packages (docs, workspace, wiki, notes with an existing index). Peak RSS at that point: Lectern ${lectern.rss} MB, filesystem server ${fs.rss} MB.`,
    }),
  ];
}
