import { connectTools } from '@lectern/core/testing';
import { WRITE_BATCH_MAX_TEXT_CHARS } from '@lectern/wiki';
import { afterAll, describe, expect, it } from 'vitest';
import { compose, defaultConfig, presetConfig } from './compose.js';
import { PRESET_NAMES } from './config.js';
import { MAX_MESSAGE_BYTES } from './lib/limits.js';
import { worstCaseBytes } from './test-helpers/worst-case.js';

/** Text budgets a tool states for several fields together: the fields and the characters. */
const BUDGETS: Record<string, { fields: string[]; chars: number }> = {
  write_batch: { fields: ['content', 'old_text', 'new_text'], chars: WRITE_BATCH_MAX_TEXT_CHARS },
};

/** `{"jsonrpc":"2.0","id":…,"method":"tools/call","params":{"name":…,"arguments":…,"_meta":…}}` */
const ENVELOPE_BYTES = 1024;

// biome-ignore lint/suspicious/noExplicitAny: JSON Schemas of any shape
function unbounded(schema: any, path: string, out: string[]): string[] {
  if (!schema || typeof schema !== 'object') return out;
  for (const alt of schema.anyOf ?? schema.oneOf ?? []) unbounded(alt, path, out);
  if (worstCaseBytes(schema) !== Infinity) return out;
  if (schema.properties) {
    for (const [k, v] of Object.entries(schema.properties)) unbounded(v, `${path}.${k}`, out);
  } else if (schema.items) unbounded(schema.items, `${path}[]`, out);
  else if (!schema.anyOf && !schema.oneOf) out.push(path);
  return out;
}

const compositions = [
  ['every package (the bundled examples)', () => compose(defaultConfig())],
  ...PRESET_NAMES.map((p) => [`preset ${p}`, () => compose(presetConfig(p))] as const),
] as const;

describe('every input a schema accepts fits in one message', () => {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of closers) await c();
  });

  it.each(compositions)('%s', async (_name, make) => {
    const composition = await make();
    closers.push(() => composition.close());
    const c = await connectTools(composition.tools, composition.registerOptions);
    try {
      const { tools } = await c.client.listTools();
      const open = tools.flatMap((t) => {
        const fields = new Set(BUDGETS[t.name]?.fields ?? []);
        return unbounded(t.inputSchema, t.name, []).filter(
          (p) => !fields.has(p.split('.').pop()!.replace(/\[\]$/, '')),
        );
      });
      expect(open, 'fields with no size bound').toEqual([]);
      const sizes: Record<string, number> = {};
      for (const t of tools) {
        const budget = BUDGETS[t.name];
        const fields = new Set(budget?.fields ?? []);
        const bytes =
          ENVELOPE_BYTES + worstCaseBytes(t.inputSchema, fields) + 6 * (budget?.chars ?? 0);
        sizes[t.name] = bytes;
        expect(bytes, `${t.name} can need ${bytes} bytes`).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
      }
      expect(Object.keys(sizes).length).toBe(tools.length);
    } finally {
      await c.close();
    }
  });
});
