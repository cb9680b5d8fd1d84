import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@lectern/core';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../test-helpers/wiki.js';
import { WikiSet } from './wiki.js';
import { WikiWriter } from './writer.js';

// A person's edit while a move is planned or written (issue 30, item 3): a page that links to
// the moved one is named by no operation, so no expected_version can protect it.
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const MOVED = '# Moved\n';
function setup() {
  const dir = tempDir();
  dirs.push(dir);
  writeFiles(dir, {
    'notes/moved.md': MOVED,
    'links.md': '# Links\nSee [[notes/moved]].\n',
    'other.md': '# Other\nAlso [[notes/moved]].\n',
  });
  const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
  return { dir, writer: new WikiWriter(wiki) };
}
const move = {
  operations: [
    {
      op: 'move' as const,
      path: 'notes/moved.md',
      new_path: 'archive/moved.md',
      expected_version: sha256(MOVED),
    },
  ],
};
const read = (dir: string, p: string) => readFileSync(join(dir, p), 'utf8');

describe('an outside edit to a linking page while a move is in flight', () => {
  it('made while the batch is planned: the batch is planned again and the edit is kept', async () => {
    const { dir, writer } = setup();
    const attempts: number[] = [];
    writer.hooks.afterPlan = (attempt) => {
      attempts.push(attempt);
      if (attempt === 0) appendFileSync(join(dir, 'links.md'), 'typed while the move ran\n');
    };
    const result = await writer.run(move);
    expect(result.applied).toBe(true);
    expect(attempts).toEqual([0, 1]);
    expect(read(dir, 'links.md')).toBe(
      '# Links\nSee [[archive/moved]].\ntyped while the move ran\n',
    );
    expect(read(dir, 'archive/moved.md')).toBe(MOVED);
    expect(existsSync(join(dir, 'notes/moved.md'))).toBe(false);
  });

  it('made on every attempt: VERSION_MISMATCH naming the page, nothing written', async () => {
    const { dir, writer } = setup();
    let n = 0;
    writer.hooks.afterPlan = () => {
      appendFileSync(join(dir, 'links.md'), `edit ${++n}\n`);
    };
    const err = await writer.run(move).catch((e) => e);
    expect(err).toMatchObject({
      code: 'VERSION_MISMATCH',
      details: { written: false, path: 'links.md' },
    });
    expect(err.message).toMatch(/links\.md/);
    expect(read(dir, 'notes/moved.md')).toBe(MOVED);
    expect(existsSync(join(dir, 'archive/moved.md'))).toBe(false);
    expect(read(dir, 'links.md')).toBe('# Links\nSee [[notes/moved]].\nedit 1\nedit 2\nedit 3\n');
    expect(read(dir, 'other.md')).toBe('# Other\nAlso [[notes/moved]].\n');
  });

  it('made while the pages are written: the pages written so far are put back, the batch planned again, the edit kept', async () => {
    const { dir, writer } = setup();
    let edited = false;
    writer.hooks.beforeWrite = (path) => {
      // after archive/moved.md and links.md are written, other.md changes on disk
      if (!edited && path === 'other.md') {
        edited = true;
        appendFileSync(join(dir, 'other.md'), 'saved by an editor\n');
      }
    };
    const result = await writer.run(move);
    expect(result.applied).toBe(true);
    expect(read(dir, 'other.md')).toBe('# Other\nAlso [[archive/moved]].\nsaved by an editor\n');
    expect(read(dir, 'links.md')).toBe('# Links\nSee [[archive/moved]].\n');
    expect(read(dir, 'archive/moved.md')).toBe(MOVED);
    expect(existsSync(join(dir, '.lectern/journal.json'))).toBe(false);
  });
});
