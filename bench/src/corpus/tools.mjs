// Generated MCP tool lists (the tools/list shape) for the lint scenarios: the same model as
// packages/lint/bench, on this harness's seeded generator.
import { createRandom } from '../lib/random.mjs';

const VERBS = ['Read', 'List', 'Search', 'Fetch', 'Write', 'Delete', 'Update', 'Outline'];
const NOUNS = ['note', 'page', 'section', 'file', 'record', 'issue', 'ticket', 'document'];
const SENTENCES = [
  (s) => `Use it after ${s} returned an id; to browse everything, use ${s} instead.`,
  () => 'Results are capped at 50 items (default 10); an unknown id fails with a clear error.',
  () => 'Paths outside the root are refused; symlinks are never followed.',
  (s) =>
    `Pass the version from ${s} as \`expected_version\`: a stale one fails with VERSION_MISMATCH.`,
  () => 'Long results are paginated: pass next_offset back as `offset` to continue.',
  () => 'This tool allows you to easily do various things.',
];

function makeTool(random, i, names) {
  const verb = random.pick(VERBS);
  const noun = random.pick(NOUNS);
  const sib = names[(i + 1) % names.length];
  const extra = Array.from({ length: random.int(0, 4) }, () => random.pick(SENTENCES)(sib));
  const paramCount = random.int(1, 6);
  const properties = {};
  for (let p = 0; p < paramCount; p++) {
    properties[`p${p}`] =
      random.next() < 0.7
        ? { type: 'string', description: `Parameter ${p}, default none.` }
        : { type: 'integer' };
  }
  if (random.next() < 0.2) {
    properties.filter = {
      type: 'object',
      properties: {
        kind: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
        at: { type: 'string' },
      },
      required: ['kind', 'at'],
    };
  }
  return {
    name: names[i],
    title: `${verb} ${noun}`,
    description:
      random.next() < 0.05
        ? null
        : `${verb} one ${noun} by its id from the store. ${extra.join(' ')}`.trim(),
    inputSchema: {
      type: 'object',
      properties,
      required: Object.keys(properties).slice(0, random.int(1, paramCount)),
    },
    ...(random.next() < 0.6
      ? { outputSchema: { type: 'object', properties: { result: { type: 'string' } } } }
      : {}),
    ...(random.next() < 0.7
      ? {
          annotations: {
            readOnlyHint: verb !== 'Write' && verb !== 'Delete',
            destructiveHint: verb === 'Delete',
            idempotentHint: true,
            openWorldHint: false,
          },
        }
      : {}),
  };
}

/** `n` tools named `<prefix>_<verb>_<i>`. */
export function generateTools({ seed, n, prefix }) {
  const random = createRandom(seed, `tools-${prefix}`);
  const names = Array.from(
    { length: n },
    (_, i) => `${prefix}_${random.pick(VERBS).toLowerCase()}_${i}`,
  );
  return names.map((_, i) => makeTool(random, i, names));
}

/** A next version of a tool list: some removed, descriptions and schemas changed, one added. */
export function mutateTools(tools) {
  return tools
    .filter((_, i) => i % 50 !== 7)
    .map((t, i) => {
      const c = structuredClone(t);
      if (i % 5 === 0) c.description = `${c.description ?? ''} Now with more detail.`;
      if (i % 7 === 0)
        c.inputSchema.properties.added = { type: 'string', description: 'New optional.' };
      if (i % 11 === 0) c.inputSchema.required = Object.keys(c.inputSchema.properties);
      if (i % 13 === 0 && c.annotations) c.annotations.readOnlyHint = false;
      return c;
    })
    .concat([
      {
        name: 'zz_new_tool',
        description: 'List new things.',
        inputSchema: { type: 'object', properties: {} },
      },
    ]);
}
