import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { oneLine } from '../lib/search-text.js';
import { sectionTools } from '../package.js';
import { session, tempTree } from '../test-helpers/mcp.js';

/*
 * docs_search's text block (what a client puts into the model's context) against its structured
 * content (what a program reads), through the SDK Client over the in-memory transport.
 */

const sections = Array.from(
  { length: 14 },
  (_, i) =>
    `## Retry part ${i}\n\nThe cache retry timeout of part ${i} waits, then tries again.\nA second line about\nthe timeout ${i}.\n`,
).join('\n');

let tree: ReturnType<typeof tempTree>;
let s: Awaited<ReturnType<typeof session>>;
let tools: ReturnType<typeof sectionTools>;
beforeAll(async () => {
  tree = tempTree({
    'guide/cache.md': `# Cache\n\n${sections}`,
    'other.md': '# Other\n\nNothing.\n',
  });
  tools = sectionTools({ roots: [{ id: 'docs', path: tree.dir }] });
  s = await session(tools);
});
afterAll(async () => {
  await s.close();
  tree.cleanup();
});

describe('docs_search text block', () => {
  it("carries every hit's anchor, lines and snippet, and the paging, in less than the JSON", async () => {
    const r = await s.call('docs_search', { query: 'retry timeout', limit: 10 });
    expect(r.isError, r.text).toBe(false);
    const results = r.data.results as Array<{
      anchor: string;
      start_line: number;
      end_line: number;
      snippet: string;
    }>;
    expect(results).toHaveLength(10);
    const lines = r.text.split('\n');
    expect(lines).toHaveLength(11);
    results.forEach((h, i) => {
      expect(lines[i]).toContain(h.anchor);
      expect(lines[i]).toContain(`L${h.start_line}-${h.end_line}`);
      expect(lines[i]).toContain(oneLine(h.snippet));
    });
    expect(r.data.next_offset).toBe(10);
    expect(lines[10]).toBe('Sections 1-10 of 14 matching, best first. More: offset=10.');
    const json = JSON.stringify(r.data);
    expect(r.text).not.toBe(json);
    expect(r.text.length).toBeLessThan(json.length * 0.6);
  });

  it('sends structured content that validates against the output schema, every field kept', async () => {
    // The SDK Client validates structuredContent against the listed output schema on callTool;
    // the tool's own zod schema must accept it too, strictly (no field lost or added).
    const r = await s.client.callTool({ name: 'docs_search', arguments: { query: 'timeout' } });
    expect(r.isError).not.toBe(true);
    const tool = tools.find((t) => t.name === 'docs_search')!;
    const schema = tool.outputSchema as unknown as z.ZodObject<z.ZodRawShape>;
    const parsed = schema.strict().safeParse(r.structuredContent);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const first = (r.structuredContent as { results: Array<Record<string, unknown>> }).results[0]!;
    expect(Object.keys(first).sort()).toEqual([
      'anchor',
      'end_line',
      'heading',
      'heading_path',
      'level',
      'path',
      'score',
      'snippet',
      'start_line',
    ]);
  });
});
