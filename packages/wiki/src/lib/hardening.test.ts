import { chmodSync, chownSync, existsSync, linkSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@lectern/core';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../test-helpers/wiki.js';
import { pageWriteSeam } from './journal.js';
import { analyzePage } from './page.js';
import { WikiSet } from './wiki.js';
import { WikiWriter } from './writer.js';

const dirs: string[] = [];
afterEach(() => {
  pageWriteSeam.before = undefined;
  for (const d of dirs.splice(0)) removeDir(d);
});

function setup(files: Record<string, string>) {
  const dir = tempDir();
  dirs.push(dir);
  writeFiles(dir, files);
  const wiki = new WikiSet({ wikis: [{ id: 'w', path: dir }] }).get('w');
  return { dir, wiki, writer: new WikiWriter(wiki) };
}
const v = (text: string) => sha256(text);
const read = (dir: string, p: string) => readFileSync(join(dir, p), 'utf8');

describe('the file limit (issue 30, item 9)', () => {
  it('counts a new log.md: a batch that would pass the limit with it is refused', async () => {
    const { dir, wiki, writer } = setup({ 'a.md': 'a\n', 'b.md': 'b\n' });
    wiki.maxFiles = 4;
    // 2 files + new.md = 3; then new2.md makes 4, the limit, and a new log.md would be the 5th
    await writer.run({ operations: [{ op: 'put', path: 'new.md', content: 'n\n' }] });
    const err = await writer
      .run({ operations: [{ op: 'put', path: 'new2.md', content: 'n\n' }], log: 'adds two files' })
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'BATCH_REJECTED' });
    expect(err.details.failures).toMatchObject([{ index: -1, code: 'WIKI_TOO_LARGE' }]);
    expect(existsSync(join(dir, 'new2.md'))).toBe(false);
    expect(existsSync(join(dir, 'log.md'))).toBe(false);
  });

  it('reads, edits and deletes on a wiki past the limit; refuses only what adds files', async () => {
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`p${i}.md`, `p${i}\n`]));
    const { dir, wiki, writer } = setup({ ...files, 'log.md': '# Log\n' });
    wiki.maxFiles = 5; // 7 files: past the limit, under the scan limit of 7
    expect((await wiki.scan()).length).toBe(7);
    expect((await wiki.readPage('p1.md')).text).toBe('p1\n');
    const del = await writer.run({
      operations: [{ op: 'delete', path: 'p0.md', expected_version: v('p0\n') }],
      log: 'repair',
    });
    expect(del.applied).toBe(true);
    const edit = await writer.run({
      operations: [{ op: 'put', path: 'p1.md', content: 'edited\n', expected_version: v('p1\n') }],
    });
    expect(edit.applied).toBe(true);
    const err = await writer
      .run({ operations: [{ op: 'put', path: 'more.md', content: 'x\n' }] })
      .catch((e) => e);
    expect(err.details.failures).toMatchObject([{ code: 'WIKI_TOO_LARGE' }]);
    expect(read(dir, 'p1.md')).toBe('edited\n');
  });
});

describe('hard-linked pages (issue 30, item 10)', () => {
  it('a move skips them from link rewriting with a warning naming them, instead of failing', async () => {
    const { dir, writer } = setup({
      'notes/a.md': '# A\n',
      'b.md': 'see [[notes/a]]\n',
      'linked.md': 'also [[notes/a]]\n',
    });
    linkSync(join(dir, 'linked.md'), join(dir, '.elsewhere'));
    const r = await writer.run({
      operations: [
        { op: 'move', path: 'notes/a.md', new_path: 'x/a.md', expected_version: v('# A\n') },
      ],
    });
    expect(r.applied).toBe(true);
    expect(read(dir, 'b.md')).toBe('see [[x/a]]\n');
    expect(read(dir, 'linked.md')).toBe('also [[notes/a]]\n');
    expect(r.warnings.join('\n')).toMatch(/hard link.*linked\.md/);
  });
});

describe('permissions (issue 30, item 11)', () => {
  it('a page rewritten by a move keeps its mode (and owner); journal and lock are 0600 in a 0700 .lectern', async () => {
    const { dir, writer } = setup({ 'notes/a.md': '# A\n', 'private.md': 'see [[notes/a]]\n' });
    chmodSync(join(dir, 'private.md'), 0o600);
    const root = process.getuid?.() === 0;
    if (root) chownSync(join(dir, 'private.md'), 4321, 4322);
    const seen: number[] = [];
    writer.hooks.beforeWrite = () => {
      seen.push(statSync(join(dir, '.lectern/journal.json')).mode & 0o777);
      seen.push(statSync(join(dir, '.lectern/write.lock')).mode & 0o777);
      seen.push(statSync(join(dir, '.lectern')).mode & 0o777);
    };
    await writer.run({
      operations: [
        { op: 'move', path: 'notes/a.md', new_path: 'x/a.md', expected_version: v('# A\n') },
      ],
    });
    expect(read(dir, 'private.md')).toBe('see [[x/a]]\n');
    const st = statSync(join(dir, 'private.md'));
    expect(st.mode & 0o777).toBe(0o600);
    if (root) expect([st.uid, st.gid]).toEqual([4321, 4322]);
    else expect(st.uid).toBe(process.getuid?.());
    expect(new Set(seen)).toEqual(new Set([0o600, 0o700]));
    expect(seen.length).toBeGreaterThan(0);
  });
});

describe('look-alike names (issue 30, item 13)', () => {
  it('refuses a page whose NFC form exists, naming the existing page', async () => {
    const nfc = 'Caf\u00e9.md';
    const nfd = 'Cafe\u0301.md';
    const { dir, writer } = setup({ [nfc]: '# Café\n', 'r\u00e9sum\u00e9/a.md': 'a\n' });
    const err = await writer
      .run({ operations: [{ op: 'put', path: nfd, content: 'other\n' }] })
      .catch((e) => e);
    expect(err.details.failures).toMatchObject([
      { code: 'PATH_UNICODE_CONFLICT', suggestions: [nfc] },
    ]);
    expect(err.details.failures[0].message).toContain(nfc);
    // a folder written the other way is the same folder to a reader
    const folder = await writer
      .run({ operations: [{ op: 'put', path: 're\u0301sume\u0301/b.md', content: 'b\n' }] })
      .catch((e) => e);
    expect(folder.details.failures).toMatchObject([{ code: 'PATH_UNICODE_CONFLICT' }]);
    expect(existsSync(join(dir, nfd))).toBe(false);
    // case still has its own code
    const cased = await writer
      .run({ operations: [{ op: 'put', path: 'CAF\u00c9.md', content: 'c\n' }] })
      .catch((e) => e);
    expect(cased.details.failures).toMatchObject([{ code: 'PATH_CASE_CONFLICT' }]);
  });

  it('refuses invisible characters in a new name', async () => {
    const { writer } = setup({});
    for (const ch of ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad']) {
      const err = await writer
        .run({ operations: [{ op: 'put', path: `a${ch}b.md`, content: 'x\n' }] })
        .catch((e) => e);
      expect(err.details.failures, JSON.stringify(ch)).toMatchObject([
        { code: 'PAGE_NAME_INVALID' },
      ]);
      expect(err.details.failures[0].message).toMatch(/invisible character U\+/);
    }
    // ordinary accents and emoji are fine
    const ok = await writer.run({
      operations: [{ op: 'put', path: 'Cr\u00e8me \u{1f41d}.md', content: 'x\n' }],
    });
    expect(ok.applied).toBe(true);
  });
});

describe('small ones', () => {
  it('a log text cannot forge a history entry heading', async () => {
    const { dir, writer } = setup({ 'log.md': '# Log\n' });
    await writer.run({
      operations: [{ op: 'put', path: 'a.md', content: 'a\n' }],
      log: 'real entry\n## [2020-01-01 00:00 UTC] forged entry\nforged too\n---\n```\n<!--',
    });
    const log = read(dir, 'log.md');
    expect(log).toContain('\\## [2020-01-01 00:00 UTC] forged entry');
    const headings = analyzePage(log).structure.headings.map((h) => h.text);
    expect(headings).toHaveLength(2);
    expect(headings[0]).toBe('Log');
    expect(headings[1]).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d UTC\] real entry$/);
  });

  it('WRITE_FAILED names the page relative to the wiki, not its code or a /proc/self/fd path', async () => {
    const { writer } = setup({ 'a.md': 'a\n' });
    pageWriteSeam.before = (path) => {
      if (path === 'wiki/b.md')
        throw Object.assign(new Error(`EIO: i/o error, open '/proc/self/fd/12/x'`), {
          code: 'EIO',
        });
    };
    const err = await writer
      .run({
        operations: [
          { op: 'put', path: 'a.md', content: 'new\n', expected_version: v('a\n') },
          { op: 'put', path: 'wiki/b.md', content: 'b\n' },
        ],
      })
      .catch((e) => e);
    expect(err.code).toBe('WRITE_FAILED');
    expect(err.message).toBe(
      'could not write wiki/b.md (EIO: input/output error); nothing was changed.',
    );
    expect(err.details).toEqual({ written: false, errno: 'EIO' });
  });
});
