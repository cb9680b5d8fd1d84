import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@lectern/core';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../test-helpers/wiki.js';
import { LinkResolver, resolverStats } from './resolve.js';
import { WikiSet } from './wiki.js';
import { WikiWriter } from './writer.js';

// Link resolution cost (issue 30, item 5): it grows with distinct link targets, not with
// links x files. Bounded by counts of work, never by time.
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const FOLDERS = 2_000;
const LINKS = 100_000;
const notes = Array.from({ length: FOLDERS }, (_, i) => `topics/t${i}/index.md`);

describe('link resolution cost', () => {
  it('resolves one link path once per linking folder, whatever the number of links', () => {
    const resolver = new LinkResolver(notes);
    const before = { ...resolverStats };
    for (let i = 0; i < LINKS; i++) {
      expect(resolver.resolve('index', 'home.md')).toBe('topics/t0/index.md');
    }
    for (let i = 0; i < 1_000; i++) {
      expect(resolver.resolve('index', 'topics/t7/page.md')).toBe('topics/t7/index.md');
    }
    expect(resolverStats.resolved - before.resolved).toBe(2);
    // one scan of the 2,001 files named index.md, not one per link
    expect(resolverStats.candidates - before.candidates).toBeLessThanOrEqual(FOLDERS);
  });

  it('a put of 100,000 [[index]] links and a move in a wiki of 2,000 index.md folder notes cost work by distinct targets', async () => {
    const dir = tempDir();
    dirs.push(dir);
    for (const n of notes) {
      mkdirSync(join(dir, n, '..'), { recursive: true });
      writeFileSync(join(dir, n), `# ${n}\n`);
    }
    const wiki = new WikiSet({
      wikis: [{ id: 'w', path: dir }],
      maxPageBytes: 4 * 1024 * 1024,
    }).get('w');
    const writer = new WikiWriter(wiki);
    const text = `# Hub\n${'[[index]] '.repeat(LINKS)}\n`;
    let before = { ...resolverStats };
    const put = await writer.run({ operations: [{ op: 'put', path: 'hub.md', content: text }] });
    expect(put.applied).toBe(true);
    // all 100,000 links point at one (the shallowest) index.md
    expect(put.broken_links).toEqual([]);
    const putWork = resolverStats.candidates - before.candidates;
    // Before: 100,000 links x 2,000 candidates = 2e8. Now: a few scans of the 2,000.
    expect(putWork).toBeLessThanOrEqual(10 * FOLDERS);

    before = { ...resolverStats };
    const moved = await writer.run({
      operations: [
        {
          op: 'move',
          path: 'topics/t0/index.md',
          new_path: 'zz/a/b/index.md',
          expected_version: sha256(`# ${notes[0]}\n`),
        },
      ],
    });
    expect(moved.applied).toBe(true);
    // [[index]] would now open topics/t1/index.md: every link is respelled to keep its target
    expect(moved.operations[0]!.links_updated).toBe(LINKS);
    // every page is read and every link looked at, but each distinct (link, folder) pair is
    // resolved once per resolver: the 2,001 pages' folders, not the 100,000 links
    expect(resolverStats.resolved - before.resolved).toBeLessThanOrEqual(4 * (FOLDERS + 10));
    expect(resolverStats.candidates - before.candidates).toBeLessThanOrEqual(20 * FOLDERS);
  }, 300_000);
});
