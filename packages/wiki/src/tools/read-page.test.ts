import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@lectern/core';
import { findWikiLinks } from '@lectern/markdown';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanMarkdown } from '../lib/markdown.js';
import { connectWiki, exampleCopy, removeDir, tempDir, writeFiles } from '../test-helpers/wiki.js';

let dir: string;
let wiki: Awaited<ReturnType<typeof connectWiki>>;
beforeEach(async () => {
  dir = exampleCopy();
  writeFiles(dir, {
    'crlf.md': '# CRLF\r\n\r\nline [[colony]] three\r\nfour',
    'bom.md': new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('# Bom\n')]),
    'empty.md': '',
    'bad.md': new Uint8Array([0x61, 0xff, 0x62]),
    'big.md': 'x'.repeat(3000),
    '.obsidian/app.md': 'hidden',
    'notes.txt': 'not a page',
  });
  wiki = await connectWiki({ wikis: [{ id: 'bees', path: dir }], maxPageBytes: 2048 });
});
afterEach(async () => {
  await wiki.close();
  removeDir(dir);
});

const read = (args: Record<string, unknown>) => wiki.call('read_page', { wiki: 'bees', ...args });

describe('read_page', () => {
  it('renders links for people and leaves no wikilink outside code', async () => {
    const { data, isError } = await read({ path: 'wiki/hive-inspection.md' });
    expect(isError).toBe(false);
    expect(data.content).toContain('(see queen-bee > Supersedure and swarming)');
    expect(data.content).toContain(
      '3. Brood pattern compact, cappings flat and dry, no sunken or perforated caps.\n',
    );
    // The fenced example keeps its literal text.
    expect(data.content).toContain('no [[queen cells]], mites');
    expect(findWikiLinks(data.content, scanMarkdown(data.content).code)).toEqual([]);
    const embed = await read({ path: 'wiki/harvest/honey-harvest.md' });
    expect(embed.data.content).toContain('[embed: hive-inspection > Checklist]');
    expect(embed.data.content).toContain('see\nvarroa-mite > Treatment');
  });

  it('returns the stored text unchanged in raw mode, with the version of the bytes', async () => {
    const path = 'wiki/colony.md';
    const bytes = readFileSync(join(dir, path));
    const { data } = await read({ path, raw: true });
    expect(data.content).toBe(bytes.toString('utf8'));
    expect(data.version).toBe(sha256(bytes));
    expect(data).toMatchObject({
      raw: true,
      bom: false,
      size: bytes.length,
      has_more: false,
      next_offset: null,
    });
    const rendered = await read({ path });
    expect(rendered.data.version).toBe(data.version);
    expect(rendered.data.total_lines).toBe(data.total_lines);
  });

  it('pages by lines, keeping CRLF endings, and the windows reassemble the page', async () => {
    const first = await read({ path: 'crlf.md', raw: true, limit: 2 });
    expect(first.data).toMatchObject({
      content: '# CRLF\r\n\r\n',
      total_lines: 4,
      start_line: 1,
      end_line: 2,
      has_more: true,
      next_offset: 3,
    });
    const rest = await read({ path: 'crlf.md', raw: true, offset: first.data.next_offset });
    expect(rest.data).toMatchObject({
      start_line: 3,
      end_line: 4,
      has_more: false,
      next_offset: null,
    });
    expect(first.data.content + rest.data.content).toBe(readFileSync(join(dir, 'crlf.md'), 'utf8'));
    const rendered = await read({ path: 'crlf.md', offset: 3, limit: 1 });
    expect(rendered.data.content).toBe('line colony three\r\n');
  });

  it('round-trips a page with a byte order mark: read raw, written back with write_batch, same bytes', async () => {
    const before = readFileSync(join(dir, 'crlf.md'));
    writeFiles(dir, { 'bom2.md': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), before]) });
    const original = readFileSync(join(dir, 'bom2.md'));
    const r = await read({ path: 'bom2.md', raw: true });
    const put = await wiki.call('write_batch', {
      wiki: 'bees',
      operations: [
        { op: 'put', path: 'bom2.md', content: r.data.content, expected_version: r.data.version },
      ],
    });
    expect(put.isError, JSON.stringify(put.data)).toBe(false);
    expect(readFileSync(join(dir, 'bom2.md'))).toEqual(original);
    // A replace that quotes the start of the first line, mark included, keeps the mark.
    const again = await read({ path: 'bom2.md', raw: true });
    const edit = await wiki.call('write_batch', {
      wiki: 'bees',
      operations: [
        {
          op: 'replace',
          path: 'bom2.md',
          old_text: '\ufeff# CRLF',
          new_text: '\ufeff# Lines',
          expected_version: again.data.version,
        },
      ],
    });
    expect(edit.isError, JSON.stringify(edit.data)).toBe(false);
    expect(readFileSync(join(dir, 'bom2.md'))).toEqual(
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('# Lines\r\n'),
        before.subarray(8),
      ]),
    );
    // Text written without the mark removes it: what was written is what is stored.
    const last = await read({ path: 'bom2.md', raw: true });
    await wiki.call('write_batch', {
      wiki: 'bees',
      operations: [
        {
          op: 'put',
          path: 'bom2.md',
          content: (last.data.content as string).slice(1),
          expected_version: last.data.version,
        },
      ],
    });
    expect(readFileSync(join(dir, 'bom2.md'))[0]).toBe(0x23);
  });

  it('returns a byte order mark verbatim when raw, not when rendered, and handles an empty page', async () => {
    const bom = await read({ path: 'bom.md', raw: true });
    expect(bom.data).toMatchObject({ content: '\ufeff# Bom\n', bom: true, size: 9 });
    expect(Buffer.from(bom.data.content as string)).toEqual(readFileSync(join(dir, 'bom.md')));
    expect(bom.data.version).toBe(sha256(readFileSync(join(dir, 'bom.md'))));
    const rendered = await read({ path: 'bom.md' });
    expect(rendered.data).toMatchObject({ content: '# Bom\n', bom: true });
    const empty = await read({ path: 'empty.md' });
    expect(empty.data).toMatchObject({
      content: '',
      total_lines: 0,
      start_line: 1,
      end_line: 0,
      has_more: false,
    });
  });

  it('refuses a missing page with the closest paths, a link-style name first', async () => {
    const res = await read({ path: 'queen-bee' });
    expect(res.isError).toBe(true);
    expect(res.data.code).toBe('PATH_NOT_PAGE');
    expect(res.data.suggestions[0]).toBe('wiki/queen-bee.md');
    const miss = await read({ path: 'wiki/queen.md' });
    expect(miss.data.code).toBe('PAGE_NOT_FOUND');
    expect(miss.data.suggestions[0]).toBe('wiki/queen-bee.md');
    expect(miss.data.error).toMatch(/does not exist in wiki bees/);
    const byName = await read({ path: 'Queen-Bee.md' });
    expect(byName.data.suggestions[0]).toBe('wiki/queen-bee.md');
  });

  it.each([
    ['../outside.md', 'PATH_ESCAPES_ROOT'],
    ['/etc/passwd.md', 'PATH_ABSOLUTE_OUTSIDE_ROOT'],
    ['.obsidian/app.md', 'PATH_HIDDEN'],
    ['notes.txt', 'PATH_NOT_PAGE'],
    ['bad.md', 'INVALID_UTF8'],
    ['big.md', 'FILE_TOO_LARGE'],
    ['wiki', 'PATH_NOT_PAGE'],
    ['.', 'PATH_IS_DIRECTORY'],
  ])('refuses %s with %s', async (path, code) => {
    const res = await read({ path });
    expect(res.isError).toBe(true);
    expect(res.data.code).toBe(code);
    expect(res.data.error.length).toBeGreaterThan(20);
  });

  it('refuses a page reached through a symbolic link', async () => {
    const outside = tempDir();
    writeFiles(outside, { 'secret.md': 'secret' });
    symlinkSync(join(outside, 'secret.md'), join(dir, 'link.md'));
    symlinkSync(outside, join(dir, 'linked-folder'));
    expect((await read({ path: 'link.md' })).data.code).toBe('PATH_SYMLINK');
    expect((await read({ path: 'linked-folder/secret.md' })).data.code).toBe('PATH_SYMLINK');
    removeDir(outside);
  });

  it('refuses a line past the end and an unknown wiki with suggestions', async () => {
    const past = await read({ path: 'crlf.md', offset: 9 });
    expect(past.data).toMatchObject({ code: 'LINE_OUT_OF_RANGE' });
    expect(past.data.error).toMatch(/has 4 lines/);
    const unknown = await wiki.call('read_page', { wiki: 'bee', path: 'index.md' });
    expect(unknown.data).toMatchObject({ code: 'UNKNOWN_WIKI', suggestions: ['bees'] });
  });

  it('rejects malformed input at the schema', async () => {
    const res = await read({ path: 'index.md', offset: 0 });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res)).toMatch(/offset/);
  });
});
