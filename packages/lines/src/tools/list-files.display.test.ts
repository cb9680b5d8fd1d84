import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineTools } from '../package.js';
import { serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

// Issue 30, small ones: list_files showed U+202E unescaped, so `invoice\u202Efdp.exe` read as
// `invoiceexe.pdf`. The path stays the handle read_text takes; `display` shows what it holds.
let t: TempDir;
let s: Awaited<ReturnType<typeof serve>>;
const RLO = 'invoice\u202Efdp.txt';
const ZWSP = 'read\u200Bme.txt';
const NEWLINE = 'two\nlines.txt';
/** 80 zero-width spaces (240 bytes): 640 characters escaped, over the display bound. */
const LONG = `${'\u200B'.repeat(80)}.txt`;
beforeAll(async () => {
  t = tempDir();
  t.write('plain.txt', 'plain\n');
  t.write('emoji 👩\u200D👧.txt', 'family\n');
  writeFileSync(join(t.dir, RLO), 'spoofed\n');
  writeFileSync(join(t.dir, ZWSP), 'hidden space\n');
  writeFileSync(join(t.dir, NEWLINE), 'newline\n');
  writeFileSync(join(t.dir, LONG), 'long\n');
  // not UTF-8 and a bidi override: shown, never listed
  writeFileSync(join(t.dir, 'bad\u202E.txt'), 'x');
  writeFileSync(
    Buffer.concat([Buffer.from(`${t.dir}/odd\u202E`), Buffer.from([0xfe]), Buffer.from('.txt')]),
    'x',
  );
  s = await serve(lineTools({ workspaces: [{ id: 'w', path: t.dir }] }));
});
afterAll(async () => {
  await s?.close();
  t?.cleanup();
});

describe('list_files and names that display as something else', () => {
  it('adds display, with each invisible or direction-changing character as \\u{XXXX}', async () => {
    const r = await s.call('list_files', { workspace: 'w' });
    expect(r.isError, r.text).toBe(false);
    const byPath = new Map(
      r.data.entries.map((e: { path: string; display?: string }) => [e.path, e]),
    );
    expect(byPath.get(RLO)).toMatchObject({ path: RLO, display: 'invoice\\u{202E}fdp.txt' });
    expect(byPath.get(ZWSP)).toMatchObject({ display: 'read\\u{200B}me.txt' });
    expect(byPath.get(NEWLINE)).toMatchObject({ display: 'two\\u{000A}lines.txt' });
    expect(byPath.get('bad\u202E.txt')).toMatchObject({ display: 'bad\\u{202E}.txt' });
    // a long display keeps its beginning and its end (the extension) within 512 characters
    const long = byPath.get(LONG) as { display: string };
    expect(long.display.length).toBeLessThanOrEqual(512);
    expect(long.display).toMatch(/^\\u\{200B\}.*….*\\u\{200B\}\.txt$/);
    // ordinary names, and a joiner inside an emoji, carry no display field
    expect(byPath.get('plain.txt')).not.toHaveProperty('display');
    expect(byPath.get('emoji 👩\u200D👧.txt')).not.toHaveProperty('display');
    // the unlisted (not UTF-8) name is escaped for both reasons
    expect(r.data.unlisted).toEqual({ count: 1, names: ['odd\\u{202E}\\xfe.txt'] });
    // The raw answer text carries no bare U+202E outside the path fields' JSON escapes.
    const displayed = r.data.entries.map(
      (e: { display?: string; path: string }) => e.display ?? e.path,
    );
    expect(displayed.join('|')).not.toMatch(/[\u202E\u200B\n]/);
  });

  it('the path round-trips: read_text opens the file by the path list_files gave', async () => {
    const r = await s.call('list_files', { workspace: 'w' });
    for (const name of [RLO, ZWSP, NEWLINE]) {
      const entry = r.data.entries.find((e: { path: string }) => e.path === name);
      const read = await s.call('read_text', { workspace: 'w', path: entry.path });
      expect(read.isError, read.text).toBe(false);
      expect(JSON.stringify(read.data.lines)).toMatch(
        name === RLO ? /spoofed/ : name === ZWSP ? /hidden space/ : /newline/,
      );
    }
  });
});

describe('search_text and names that display as something else', () => {
  it('adds display to a match in such a file; path stays the handle', async () => {
    const r = await s.call('search_text', { workspace: 'w', query: 'spoofed' });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.matches).toHaveLength(1);
    expect(r.data.matches[0]).toMatchObject({ path: RLO, display: 'invoice\\u{202E}fdp.txt' });
    const plain = await s.call('search_text', { workspace: 'w', query: 'plain' });
    expect(plain.data.matches[0]).not.toHaveProperty('display');
  });
});
