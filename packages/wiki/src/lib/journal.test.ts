import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRootSync, sha256, TEMP_PREFIX } from '@lectern/core';
import { afterEach, describe, expect, it } from 'vitest';
import { connectWiki, removeDir, tempDir, writeFiles } from '../test-helpers/wiki.js';
import { JOURNAL_FORMAT, type Journal, recover } from './journal.js';
import { WikiSet } from './wiki.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const entry = (path: string, before: string | null, after: string | null) => ({
  path,
  before: before === null ? null : b64(before),
  after: after === null ? null : b64(after),
  before_version: before === null ? null : sha256(before),
  after_version: after === null ? null : sha256(after),
});

/** A wiki left as a crash would leave it: journal written, some pages already new. */
function crashedWiki(): { dir: string; journal: Journal } {
  const dir = tempDir();
  dirs.push(dir);
  writeFiles(dir, {
    'a.md': 'A new\n', // already applied
    'b.md': 'B old\n', // not yet applied
    'gone.md': 'G old\n', // to be deleted
    [`wiki/${TEMP_PREFIX}b.md.123abc`]: 'B ne', // torn temp file of the interrupted write
  });
  const journal: Journal = {
    format: JOURNAL_FORMAT,
    batch_id: 'b1',
    created_at: new Date().toISOString(),
    pid: 1,
    entries: [
      entry('a.md', 'A old\n', 'A new\n'),
      entry('b.md', 'B old\n', 'B new\n'),
      entry('wiki/c.md', null, 'C new\n'),
      entry('gone.md', 'G old\n', null),
    ],
  };
  writeFiles(dir, { '.lectern/journal.json': JSON.stringify(journal) });
  return { dir, journal };
}

const check = (dir: string) => {
  const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
  return (rel: string) => wiki.checkPagePath(rel);
};

describe('recover', () => {
  it('rolls an interrupted batch forward, removes the journal and the torn temp file', () => {
    const { dir } = crashedWiki();
    const report = recover(createRootSync(dir), join(dir, '.lectern'), check(dir));
    expect(report).toMatchObject({ batch_id: 'b1', skipped: [], temp_files_removed: 1 });
    expect(report!.completed.sort()).toEqual(['b.md', 'gone.md', 'wiki/c.md']);
    expect(readFileSync(join(dir, 'a.md'), 'utf8')).toBe('A new\n');
    expect(readFileSync(join(dir, 'b.md'), 'utf8')).toBe('B new\n');
    expect(readFileSync(join(dir, 'wiki/c.md'), 'utf8')).toBe('C new\n');
    expect(existsSync(join(dir, 'gone.md'))).toBe(false);
    expect(existsSync(join(dir, '.lectern/journal.json'))).toBe(false);
    expect(readdirSync(join(dir, 'wiki'))).toEqual(['c.md']);
    expect(recover(createRootSync(dir), join(dir, '.lectern'), check(dir))).toBeNull();
  });

  it('leaves a page that someone changed after the crash as it is', () => {
    const { dir } = crashedWiki();
    writeFileSync(join(dir, 'b.md'), 'edited by hand\n');
    const report = recover(createRootSync(dir), join(dir, '.lectern'), check(dir));
    expect(report!.skipped).toEqual(['b.md']);
    expect(readFileSync(join(dir, 'b.md'), 'utf8')).toBe('edited by hand\n');
  });

  it('never applies an entry whose path the wiki would refuse', () => {
    const { dir, journal } = crashedWiki();
    journal.entries = [
      entry('../escape.md', null, 'x'),
      entry('.git/config.md', null, 'x'),
      entry('x.sh', null, 'x'),
    ];
    writeFiles(dir, { '.lectern/journal.json': JSON.stringify(journal) });
    const report = recover(createRootSync(dir), join(dir, '.lectern'), check(dir));
    expect(report!.skipped).toEqual(['../escape.md', '.git/config.md', 'x.sh']);
    expect(existsSync(join(dir, '..', 'escape.md'))).toBe(false);
    expect(existsSync(join(dir, '.git'))).toBe(false);
  });

  it('moves an unreadable journal aside instead of guessing', () => {
    const { dir } = crashedWiki();
    writeFiles(dir, { '.lectern/journal.json': '{"format":' });
    const report = recover(createRootSync(dir), join(dir, '.lectern'), check(dir));
    expect(report!.quarantined).toMatch(/^journal\.unreadable-\d+\.json$/);
    expect(readFileSync(join(dir, 'b.md'), 'utf8')).toBe('B old\n');
  });

  it('runs when the tools are created, and list_wikis reports it', async () => {
    const { dir } = crashedWiki();
    const { call, close } = await connectWiki({ wikis: [{ id: 'w', path: dir }] });
    expect(readFileSync(join(dir, 'b.md'), 'utf8')).toBe('B new\n');
    const res = await call('list_wikis', {});
    expect(res.data.wikis[0].last_recovery).toMatchObject({
      batch_id: 'b1',
      temp_files_removed: 1,
    });
    await close();
  });
});
