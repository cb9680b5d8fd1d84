import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@lectern/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type SmallDisk, smallDisk } from '../test-helpers/small-disk.js';
import { connectWiki, writeFiles } from '../test-helpers/wiki.js';
import { JOURNAL_FORMAT, type Journal, writeJournal } from './journal.js';
import { WikiSet } from './wiki.js';
import { WikiWriter } from './writer.js';

// Disk full during write_batch (issue 30, item 1): on a real tmpfs when this process can mount
// one (root), else with ENOSPC injected at every page write while the "disk" is full.
const disks: SmallDisk[] = [];
afterEach(() => {
  for (const d of disks.splice(0)) d.close();
});

const MB = 1024 * 1024;
const big = (c: string) => `${c.repeat(MB - 1)}\n`;

function setup(files: Record<string, string>, size = 16 * MB) {
  const disk = smallDisk(size);
  disks.push(disk);
  const dir = join(disk.dir, 'wiki');
  mkdirSync(dir);
  writeFiles(dir, files);
  const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }], maxPageBytes: 2 * MB }).get('w');
  return { disk, dir, wiki, writer: new WikiWriter(wiki) };
}

const journalPath = (dir: string) => join(dir, '.lectern/journal.json');
const read = (dir: string, p: string) =>
  existsSync(join(dir, p)) ? readFileSync(join(dir, p), 'utf8') : null;

describe('a disk that fills up during write_batch', () => {
  it('put a, put b (1 MB), put c: a failed rollback never answers "nothing was changed", and the journal stays until the batch is finished', async () => {
    const { disk, dir, writer } = setup({ 'a.md': 'old a\n' });
    const operations = [
      { op: 'put' as const, path: 'a.md', content: 'new a\n', expected_version: sha256('old a\n') },
      { op: 'put' as const, path: 'b.md', content: big('b') },
      { op: 'put' as const, path: 'c.md', content: big('c') },
    ];
    // a.md is written, then the disk fills: b.md fails, and so does putting a.md back
    const err = await writer
      .run({ operations }, undefined, (_p, index) => {
        if (index === 0) disk.fill();
      })
      .catch((e) => e);
    expect(err).toMatchObject({
      code: 'WRITE_FAILED',
      details: { written: true, recovery_pending: true },
    });
    expect(err.message).not.toMatch(/nothing was changed/);
    expect(err.message).toMatch(/half-applied/);
    expect(err.message).toMatch(/a\.md: ENOSPC/);
    expect(err.message).not.toMatch(/WRITE_FAILED|\/proc\/self/);
    expect(existsSync(journalPath(dir))).toBe(true);

    // still full: a read's recovery fails again and keeps the journal; a new batch is refused
    await writer.ensureRecovered();
    expect(existsSync(journalPath(dir))).toBe(true);
    expect(writer.lastRecovery?.pending.map((p) => p.errno)).toContain('ENOSPC');
    await expect(
      writer.run({ operations: [{ op: 'put', path: 'd.md', content: 'd\n' }] }),
    ).rejects.toMatchObject({ code: 'RECOVERY_PENDING', details: { written: false } });
    expect(read(dir, 'd.md')).toBeNull();

    // space again: the next call finishes the batch, all of it
    disk.free();
    await writer.ensureRecovered();
    expect(existsSync(journalPath(dir))).toBe(false);
    expect(writer.lastRecovery?.pending).toEqual([]);
    expect(read(dir, 'a.md')).toBe('new a\n');
    expect(read(dir, 'b.md')).toBe(big('b'));
    expect(read(dir, 'c.md')).toBe(big('c'));
  }, 60_000);

  it('move a -> zz/a + put b (1 MB): the moved page is never lost, whichever write fails', async () => {
    const { disk, dir, writer } = setup({ 'a.md': '# A\nprecious\n' });
    const operations = [
      {
        op: 'move' as const,
        path: 'a.md',
        new_path: 'zz/a.md',
        expected_version: sha256('# A\nprecious\n'),
      },
      { op: 'put' as const, path: 'b.md', content: big('b') },
    ];
    // b.md is written first, then the disk fills before zz/a.md: the old a.md is still there
    // (removals come last), and undoing b.md frees the space, so nothing was changed indeed.
    const err = await writer
      .run({ operations }, undefined, (_p, index) => {
        if (index === 0) disk.fill();
      })
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'WRITE_FAILED', details: { written: false } });
    expect(err.message).toMatch(
      /could not write zz\/a\.md \(ENOSPC: no space left on the disk\); nothing was changed\./,
    );
    expect(read(dir, 'a.md')).toBe('# A\nprecious\n');
    expect(read(dir, 'b.md')).toBeNull();
    expect(read(dir, 'zz/a.md')).toBeNull();
    expect(existsSync(journalPath(dir))).toBe(false);
    disk.free();
  }, 60_000);

  it('recovery of a move whose old page is already gone keeps the journal while the disk is full, and undoes the batch when it can put the page back but not finish', async () => {
    // The state the issue found: the journal of move a -> zz/a + put b, with a.md already
    // removed, and no room to write. Recovery must neither drop the journal nor lose a.md.
    const { disk, dir, writer } = setup({});
    const a = Buffer.from('# A\nprecious\n');
    const b = Buffer.from(big('b'));
    const journal: Journal = {
      format: JOURNAL_FORMAT,
      batch_id: 'feedc0de',
      created_at: new Date().toISOString(),
      pid: 1,
      entries: [
        {
          path: 'a.md',
          before: a.toString('base64'),
          after: null,
          before_version: sha256(a),
          after_version: null,
        },
        {
          path: 'b.md',
          before: null,
          after: b.toString('base64'),
          before_version: null,
          after_version: sha256(b),
        },
        {
          path: 'zz/a.md',
          before: null,
          after: a.toString('base64'),
          before_version: null,
          after_version: sha256(a),
        },
      ],
    };
    mkdirSync(join(dir, '.lectern'));
    await writeJournal(join(dir, '.lectern'), journal);
    disk.fill();
    // No room even for the lock (real tmpfs) or for any page (seam): nothing can be done yet,
    // and the journal, the only copy of a.md's bytes, stays.
    const first = writer.recoverAtStart();
    expect(first === null || first.pending.length > 0).toBe(true);
    expect(existsSync(journalPath(dir))).toBe(true);
    await writer.ensureRecovered();
    expect(existsSync(journalPath(dir))).toBe(true);
    expect(read(dir, 'a.md')).toBeNull();
    // the failed lock attempts left nothing behind
    expect(readdirSync(join(dir, '.lectern'))).toEqual(['journal.json']);
    // Room for small files but not for b.md: the batch cannot be finished, so it is undone.
    disk.release(64 * 1024);
    await writer.ensureRecovered();
    expect(writer.lastRecovery).toMatchObject({ batch_id: 'feedc0de', undone: true, pending: [] });
    expect(existsSync(journalPath(dir))).toBe(false);
    expect(read(dir, 'a.md')).toBe('# A\nprecious\n');
    expect(read(dir, 'zz/a.md')).toBeNull();
    expect(read(dir, 'b.md')).toBeNull();
    disk.free();
  }, 60_000);

  it('finishes a move whose old page is already gone once there is room again', async () => {
    const { disk, dir, writer } = setup({});
    const a = Buffer.from('# A\nprecious\n');
    const journal: Journal = {
      format: JOURNAL_FORMAT,
      batch_id: 'feedc0de',
      created_at: new Date().toISOString(),
      pid: 1,
      entries: [
        {
          path: 'a.md',
          before: a.toString('base64'),
          after: null,
          before_version: sha256(a),
          after_version: null,
        },
        {
          path: 'zz/a.md',
          before: null,
          after: a.toString('base64'),
          before_version: null,
          after_version: sha256(a),
        },
      ],
    };
    mkdirSync(join(dir, '.lectern'));
    await writeJournal(join(dir, '.lectern'), journal);
    disk.fill();
    await writer.ensureRecovered();
    expect(existsSync(journalPath(dir))).toBe(true);
    disk.free();
    await writer.ensureRecovered();
    expect(writer.lastRecovery).toMatchObject({ batch_id: 'feedc0de', pending: [] });
    expect(writer.lastRecovery?.undone).toBeUndefined();
    expect(existsSync(journalPath(dir))).toBe(false);
    expect(read(dir, 'zz/a.md')).toBe('# A\nprecious\n');
    expect(read(dir, 'a.md')).toBeNull();
  }, 60_000);

  it('refuses up front, with DISK_FULL and nothing written, a batch larger than the free space', async () => {
    const { disk, dir, writer } = setup({ 'a.md': 'old a\n' }, 2 * MB);
    if (!disk.real) writer.hooks.freeBytes = () => 2 * MB - 8192;
    const operations = [
      { op: 'put' as const, path: 'a.md', content: big('a'), expected_version: sha256('old a\n') },
      { op: 'put' as const, path: 'b.md', content: big('b') },
      { op: 'put' as const, path: 'c.md', content: big('c') },
    ];
    const err = await writer.run({ operations }).catch((e) => e);
    expect(err).toMatchObject({ code: 'DISK_FULL', details: { written: false } });
    expect(err.details.needed_bytes).toBeGreaterThan(err.details.free_bytes);
    expect(read(dir, 'a.md')).toBe('old a\n');
    expect(read(dir, 'b.md')).toBeNull();
    expect(existsSync(journalPath(dir))).toBe(false);
    // a batch that fits still goes through
    const ok = await writer.run({
      operations: [
        { op: 'put', path: 'a.md', content: 'fits\n', expected_version: sha256('old a\n') },
      ],
    });
    expect(ok.applied).toBe(true);
    expect(statSync(join(dir, 'a.md')).size).toBe(5);
  }, 60_000);

  it('list_wikis says which pages wait while the disk is full, and that they are done once it is not', async () => {
    const { disk, dir } = setup({});
    const a = Buffer.from('# A\nprecious\n');
    const journal: Journal = {
      format: JOURNAL_FORMAT,
      batch_id: 'feedc0de',
      created_at: new Date().toISOString(),
      pid: 1,
      entries: [
        {
          path: 'a.md',
          before: a.toString('base64'),
          after: null,
          before_version: sha256(a),
          after_version: null,
        },
        {
          path: 'zz/a.md',
          before: null,
          after: a.toString('base64'),
          before_version: null,
          after_version: sha256(a),
        },
      ],
    };
    mkdirSync(join(dir, '.lectern'));
    await writeJournal(join(dir, '.lectern'), journal);
    disk.fill();
    const { call, close } = await connectWiki({ wikis: [{ id: 'w', path: dir }] });
    try {
      const full = await call('list_wikis', {});
      expect(full.isError).toBe(false);
      expect(full.data.wikis[0].last_recovery.pending[0].errno).toBe('ENOSPC');
      expect(existsSync(journalPath(dir))).toBe(true);
      disk.free();
      const done = await call('list_wikis', {});
      expect(done.data.wikis[0].last_recovery).toMatchObject({ batch_id: 'feedc0de', pending: [] });
      expect(read(dir, 'zz/a.md')).toBe('# A\nprecious\n');
    } finally {
      await close();
    }
  }, 60_000);
});
