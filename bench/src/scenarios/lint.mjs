// lint: TDQS scoring of generated tools and the schema changelog of two snapshots, against a
// JSON.stringify + JSON.parse round trip of the same data: a floor (the least any tool that
// reads the data at all must spend), not a competing linter.
import {
  diffSnapshots,
  formatSnapshot,
  renderChangelog,
  scoreTools,
  snapshotTools,
} from '@lectern/lint';
import { generateTools, mutateTools } from '../corpus/tools.mjs';
import { alternate } from '../lib/measure.mjs';
import { makeRow } from '../lib/report.mjs';

const roundTrip = (value) => JSON.parse(JSON.stringify(value));

export async function lint(ctx) {
  const { lintTools, diffTools } = ctx.plan;
  const { rounds } = ctx.plan;
  const tools = generateTools({ seed: ctx.seed, n: lintTools, prefix: 'bench' });
  const base = generateTools({ seed: ctx.seed, n: diffTools, prefix: 'snap' });
  const changed = mutateTools(base);
  const rows = [];

  let scored = 0;
  const score = await alternate(
    [
      {
        key: 'handler',
        run: async () => {
          scored = (await scoreTools(tools, { concurrency: 8 })).length;
        },
      },
      { key: 'peer', run: () => roundTrip(tools) },
    ],
    { rounds: rounds.call, warmup: 1 },
  );
  if (scored !== tools.length) throw new Error(`scored ${scored} of ${tools.length} tools`);
  rows.push(
    makeRow({
      scenario: 'lint',
      measure: `score ${lintTools.toLocaleString('en')} tools (offline judge)`,
      peer: 'JSON round trip (floor)',
      samples: score,
      note: 'in-process library call (lint is a CLI and a library, not an MCP tool). The peer only serialises and parses the same tool list: a floor that shows the cost over merely reading the data, not a competing linter.',
    }),
  );

  let entries = 0;
  const diff = await alternate(
    [
      {
        key: 'handler',
        run: () => {
          const a = snapshotTools(base, { version: '1.0.0' });
          const b = snapshotTools(changed, { version: '1.1.0' });
          formatSnapshot(a);
          formatSnapshot(b);
          const d = diffSnapshots(a, b);
          renderChangelog(d);
          entries = d.tools.reduce((n, t) => n + t.entries.length, 0);
        },
      },
      { key: 'peer', run: () => [roundTrip(base), roundTrip(changed)] },
    ],
    { rounds: rounds.fast, warmup: 2 },
  );
  rows.push(
    makeRow({
      scenario: 'lint',
      measure: `diff two ${diffTools}-tool snapshots`,
      peer: 'JSON round trip (floor)',
      samples: diff,
      note: `snapshot both lists, format them, diff (${entries} changelog entries) and render the changelog; the peer round-trips both lists through JSON: a floor again.`,
    }),
  );
  return rows;
}
