// server: start-up to the first tools/list answer, with every package configured, against the
// filesystem server's start-up; and the peak memory of each process at that point.
import { join } from 'node:path';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectFilesystem, connectLectern } from '../lib/mcp.mjs';
import { alternate } from '../lib/measure.mjs';
import { makeRow } from '../lib/report.mjs';

async function startup(connect, seen) {
  const t0 = performance.now();
  const s = await connect();
  try {
    // The answer itself: the SDK client's listTools() then compiles a validator for every
    // output schema, client-side work that grows with the schemas, not with the server.
    const { tools } = await s.client.request({ method: 'tools/list' }, ListToolsResultSchema);
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
  const all = {};
  const light = {};
  const fs = {};
  const everything = [
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
  const files = ['--docs', `docs=${docs.dir}`, '--workspace', `big=${text.dir}`];
  const samples = await alternate(
    [
      { key: 'all', run: () => startup(() => connectLectern(everything), all) },
      { key: 'light', run: () => startup(() => connectLectern(files), light) },
      { key: 'peer', run: () => startup(() => connectFilesystem([docs.dir, text.dir]), fs) },
    ],
    { rounds: ctx.plan.rounds.startup, warmup: 1 },
  );
  const peer = `filesystem server (${fs.tools} tools)`;
  return [
    makeRow({
      scenario: 'server',
      measure: `start-up to first tools/list, every package (${all.tools} tools)`,
      peer,
      samples: { lectern: samples.all, peer: samples.peer },
      rssMb: all.rss,
      peerRssMb: fs.rss,
      note: `spawn, initialize and the first tools/list answer over stdio (until the answer arrives; the client's validator compilation after it is not counted). Lectern serves docs, a workspace, a wiki and notes; it loads only the packages the config uses, and opens and checks the notes' index after the first tools/list (a tool call waits for that). Peak RSS then: Lectern ${all.rss} MB, filesystem server ${fs.rss} MB.`,
    }),
    makeRow({
      scenario: 'server',
      measure: `start-up to first tools/list, docs + workspace (${light.tools} tools)`,
      peer,
      samples: { lectern: samples.light, peer: samples.peer },
      rssMb: light.rss,
      peerRssMb: fs.rss,
      note: 'the same with only a docs root and a workspace (no wiki, no memory database); same peer samples.',
    }),
  ];
}
