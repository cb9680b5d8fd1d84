import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionTools } from '../package.js';
import { session } from '../test-helpers/mcp.js';

// Issue 30 #14, for the docs tools: a Markdown file or a folder whose name is not valid UTF-8
// was dropped without a word (readdir decodes it with U+FFFD, a name that finds no file).
let dir: string;
let s: Awaited<ReturnType<typeof session>>;
const at = (...parts: Array<string | number[]>) =>
  Buffer.concat([
    Buffer.from(`${dir}/`),
    ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))),
  ]);
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lectern-sections-names-'));
  writeFileSync(join(dir, 'ok.md'), '# Ok\n\nfine\n');
  writeFileSync(at('note', [0xfe], '.md'), '# Lost\n');
  writeFileSync(at('image', [0xfe], '.png'), 'not Markdown: not reported');
  writeFileSync(at('.hid', [0xfe], '.md'), '# hidden: not reported\n');
  mkdirSync(at('bad', [0xff], 'dir'));
  writeFileSync(at('bad', [0xff], 'dir/inside.md'), '# Inside\n');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(at('sub/caf', [0xc3, 0xa9, 0xe9], '.md'), '# Lost too\n');
  s = await session(sectionTools({ roots: [{ id: 'docs', path: dir }] }));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs_outline and names that are not UTF-8', () => {
  it('lists every such Markdown file and folder in skipped, escaped, and outlines the rest', async () => {
    const r = await s.call('docs_outline', {});
    expect(r.isError, r.text).toBe(false);
    expect(r.data.documents.map((d: { doc_id: string }) => d.doc_id)).toEqual(['ok']);
    expect(r.data.skipped.map((x: { path: string }) => x.path)).toEqual([
      'bad\\xffdir/',
      'note\\xfe.md',
      'sub/café\\xe9.md',
    ]);
    expect(r.data.skipped[0].reason).toMatch(/folder whose name is not valid UTF-8.*not entered/);
    expect(r.data.skipped[1].reason).toMatch(/name is not valid UTF-8/);
  });
});
