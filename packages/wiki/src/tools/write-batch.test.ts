import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WikiOptions } from '../lib/wiki.js';
import { connectWiki, exampleCopy, removeDir, tempDir, writeFiles } from '../test-helpers/wiki.js';
import { WRITE_BATCH_MAX_TEXT_CHARS } from './write-batch.js';

let dir: string;
let wiki: Awaited<ReturnType<typeof connectWiki>>;
const open = async (extra: Partial<WikiOptions> = {}) => {
  await wiki?.close();
  wiki = await connectWiki({ wikis: [{ id: 'bees', path: dir }], ...extra });
};
beforeEach(async () => {
  dir = exampleCopy();
  await open();
});
afterEach(async () => {
  await wiki.close();
  removeDir(dir);
});

const file = (p: string) => readFileSync(join(dir, p), 'utf8');
const version = (p: string) => sha256(readFileSync(join(dir, p)));
const batch = (args: Record<string, unknown>) =>
  wiki.call('write_batch', { wiki: 'bees', ...args });
/** Every file's bytes, to prove that nothing changed. */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else out[r] = readFileSync(join(d, e.name)).toString('base64');
    }
  };
  walk(dir, '');
  return out;
}

describe('write_batch: operations', () => {
  it('creates, overwrites, appends, replaces and deletes, returning the new versions', async () => {
    const res = await batch({
      operations: [
        { op: 'put', path: 'wiki/new/drone.md', content: '# Drone\n\nMale bee. See [[colony]].\n' },
        {
          op: 'put',
          path: 'wiki/swarming.md',
          content: '# Swarming\n',
          expected_version: version('wiki/swarming.md'),
        },
        {
          op: 'append',
          path: 'index.md',
          content: '- [[drone]]: the male bee.\n',
          expected_version: version('index.md'),
        },
        {
          op: 'replace',
          path: 'wiki/colony.md',
          old_text: 'tens of\nthousands',
          new_text: 'many\nthousands',
          expected_version: version('wiki/colony.md'),
        },
        {
          op: 'delete',
          path: 'wiki/forage-calendar.md',
          expected_version: version('wiki/forage-calendar.md'),
        },
      ],
    });
    expect(res.isError).toBe(false);
    expect(res.data.applied).toBe(true);
    expect(file('wiki/new/drone.md')).toBe('# Drone\n\nMale bee. See [[colony]].\n');
    expect(file('wiki/swarming.md')).toBe('# Swarming\n');
    expect(file('index.md').endsWith('storage.\n- [[drone]]: the male bee.\n')).toBe(true);
    expect(file('wiki/colony.md')).toContain('a single [[queen-bee|queen]], many\nthousands');
    expect(existsSync(join(dir, 'wiki/forage-calendar.md'))).toBe(false);
    const versions = Object.fromEntries(
      res.data.operations.map((o: { path: string; version: string }) => [o.path, o.version]),
    );
    expect(versions['wiki/new/drone.md']).toBe(version('wiki/new/drone.md'));
    expect(versions['wiki/colony.md']).toBe(version('wiki/colony.md'));
    expect(versions['wiki/forage-calendar.md']).toBeNull();
    expect(res.data.operations[3].replacements).toBe(1);
    const read = await wiki.call('read_page', { wiki: 'bees', path: 'wiki/colony.md', raw: true });
    expect(read.data.version).toBe(versions['wiki/colony.md']);
  });

  it('inserts a line break before appended text, in the page line-ending style, and keeps a BOM', async () => {
    writeFiles(dir, { 'crlf.md': '\ufeffa\r\nb' });
    const res = await batch({
      operations: [
        { op: 'append', path: 'crlf.md', content: 'c\r\n', expected_version: version('crlf.md') },
        { op: 'append', path: 'fresh.md', content: 'first' },
      ],
    });
    expect(res.isError).toBe(false);
    expect(readFileSync(join(dir, 'crlf.md'))).toEqual(Buffer.from('\ufeffa\r\nb\r\nc\r\n'));
    expect(file('fresh.md')).toBe('first');
  });

  it('chains operations on one page; later ones may omit the version', async () => {
    const res = await batch({
      operations: [
        { op: 'put', path: 'draft.md', content: 'one two one\n' },
        {
          op: 'replace',
          path: 'draft.md',
          old_text: 'one',
          new_text: '1',
          expected_occurrences: 2,
        },
        { op: 'append', path: 'draft.md', content: 'three\n' },
        { op: 'move', path: 'draft.md', new_path: 'wiki/final.md' },
      ],
    });
    expect(res.isError).toBe(false);
    expect(file('wiki/final.md')).toBe('1 two 1\nthree\n');
    expect(existsSync(join(dir, 'draft.md'))).toBe(false);
    expect(
      res.data.changes.map((c: { path: string; action: string }) => [c.path, c.action]),
    ).toEqual([['wiki/final.md', 'create']]);
  });

  it('adds a dated log entry listing the changes, creating log.md when missing', async () => {
    const res = await batch({
      operations: [{ op: 'put', path: 'wiki/wax.md', content: '# Wax\n' }],
      log: 'Add the wax page\nFrom the spring workshop notes.',
    });
    expect(res.data.log_entry).toMatch(
      /^## \[\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\] Add the wax page\n\nFrom the spring workshop notes\.\n\nChanged: put wiki\/wax\.md\.\n$/,
    );
    expect(
      file('log.md').endsWith(
        `put wiki/harvest/honey-harvest.md; put index.md.\n\n${res.data.log_entry}`,
      ),
    ).toBe(true);
    expect(res.data.changes.find((c: { path: string }) => c.path === 'log.md').cause).toBe('log');
    const bare = tempDir();
    writeFiles(bare, { 'a.md': '# A\n' });
    const other = await connectWiki({ wikis: [{ id: 'b', path: bare }] });
    await other.call('write_batch', {
      wiki: 'b',
      operations: [{ op: 'delete', path: 'a.md', expected_version: sha256('# A\n') }],
      log: 'Remove A',
    });
    expect(readFileSync(join(bare, 'log.md'), 'utf8')).toMatch(
      /^# Log\n\n## \[.+\] Remove A\n\nChanged: delete a\.md\.\n$/,
    );
    await other.close();
    removeDir(bare);
  });
});

describe('write_batch: move', () => {
  it('renames a page and rewrites every link to it, keeping aliases, headings, blocks and embeds', async () => {
    writeFiles(dir, {
      'wiki/notes/refs.md': [
        'Plain [[queen-bee]], aliased [[queen-bee|her majesty]], section [[queen-bee#Supersedure]],',
        'table [[queen-bee\\|Q]], embed ![[queen-bee#Finding and marking]], full [[wiki/queen-bee.md]],',
        'relative [[../queen-bee]], markdown [the queen](../queen-bee.md#supersedure), code `[[queen-bee]]`.',
        '',
      ].join('\n'),
    });
    const res = await batch({
      operations: [
        {
          op: 'move',
          path: 'wiki/queen-bee.md',
          new_path: 'wiki/biology/queen.md',
          expected_version: version('wiki/queen-bee.md'),
        },
      ],
    });
    expect(res.isError).toBe(false);
    expect(file('wiki/notes/refs.md')).toBe(
      [
        'Plain [[queen]], aliased [[queen|her majesty]], section [[queen#Supersedure]],',
        'table [[queen\\|Q]], embed ![[queen#Finding and marking]], full [[wiki/biology/queen.md]],',
        'relative [[../biology/queen]], markdown [the queen](../biology/queen.md#supersedure), code `[[queen-bee]]`.',
        '',
      ].join('\n'),
    );
    expect(file('wiki/colony.md')).toContain('a single [[queen|queen]], tens of');
    expect(file('index.md')).toContain('- [[queen]]: the colony');
    expect(existsSync(join(dir, 'wiki/queen-bee.md'))).toBe(false);
    expect(res.data.operations[0]).toMatchObject({
      new_path: 'wiki/biology/queen.md',
      links_updated: 13,
    });
    expect(res.data.broken_links).toEqual([]);
    const causes = Object.fromEntries(
      res.data.changes.map((c: { path: string; cause: string }) => [c.path, c.cause]),
    );
    expect(causes).toMatchObject({
      'wiki/colony.md': 'link_update',
      'wiki/biology/queen.md': 'operation',
    });
  });

  it('keeps the moved page own relative links pointing where they did', async () => {
    writeFiles(dir, {
      'wiki/a/page.md': 'see [[./sibling]] and [[../colony]]\n',
      'wiki/a/sibling.md': 'x\n',
    });
    const res = await batch({
      operations: [
        {
          op: 'move',
          path: 'wiki/a/page.md',
          new_path: 'wiki/b/c/page.md',
          expected_version: version('wiki/a/page.md'),
        },
      ],
    });
    expect(res.isError).toBe(false);
    expect(file('wiki/b/c/page.md')).toBe('see [[../../a/sibling]] and [[../../colony]]\n');
  });

  it('respells links a new name would make ambiguous', async () => {
    writeFiles(dir, { 'other/colony.md': '# Another colony page\n', 'other/x.md': 'x\n' });
    // [[colony]] from wiki/ pages resolves to wiki/colony.md; moving other/x.md to the root as
    // colony.md would capture it (a root path wins), so those links gain their folder.
    const res = await batch({
      operations: [
        {
          op: 'move',
          path: 'other/x.md',
          new_path: 'colony.md',
          expected_version: version('other/x.md'),
        },
      ],
    });
    expect(res.isError).toBe(false);
    expect(file('wiki/queen-bee.md')).toContain('the only fertile female in the [[wiki/colony]]');
  });

  it('refuses to move onto an existing page or a case variant of one', async () => {
    const before = snapshot();
    const res = await batch({
      operations: [
        {
          op: 'move',
          path: 'wiki/swarming.md',
          new_path: 'wiki/colony.md',
          expected_version: version('wiki/swarming.md'),
        },
        { op: 'put', path: 'wiki/Colony.md', content: 'x' },
      ],
    });
    expect(res.data.code).toBe('BATCH_REJECTED');
    expect(res.data.details.failures.map((f: { code: string }) => f.code)).toEqual([
      'PAGE_EXISTS',
      'PATH_CASE_CONFLICT',
    ]);
    expect(snapshot()).toEqual(before);
  });
});

describe('write_batch: all or nothing', () => {
  it('writes nothing when one operation is stale, and lists each failure with the current version', async () => {
    const before = snapshot();
    const stale = sha256('an older text');
    const res = await batch({
      operations: [
        { op: 'put', path: 'wiki/ok.md', content: 'fine' },
        {
          op: 'replace',
          path: 'wiki/colony.md',
          old_text: 'queen',
          new_text: 'Queen',
          expected_version: stale,
        },
        { op: 'put', path: 'index.md', content: 'no version' },
        { op: 'delete', path: 'wiki/nope.md', expected_version: stale },
        { op: 'put', path: 'wiki/brand-new.md', content: 'x', expected_version: stale },
      ],
      log: 'never written',
    });
    expect(res.isError).toBe(true);
    expect(res.data.code).toBe('BATCH_REJECTED');
    expect(res.data.error).toMatch(/nothing was written\. 4 of 5 operation\(s\) failed/);
    expect(res.data.details.written).toBe(false);
    expect(res.data.details.failures).toEqual([
      expect.objectContaining({
        index: 1,
        code: 'VERSION_MISMATCH',
        current_version: version('wiki/colony.md'),
      }),
      expect.objectContaining({
        index: 2,
        code: 'VERSION_REQUIRED',
        current_version: version('index.md'),
      }),
      expect.objectContaining({ index: 3, code: 'PAGE_NOT_FOUND', current_version: null }),
      expect.objectContaining({ index: 4, code: 'PAGE_NOT_FOUND', current_version: null }),
    ]);
    expect(snapshot()).toEqual(before);
  });

  it('counts replace occurrences exactly', async () => {
    const v = version('wiki/colony.md');
    const none = await batch({
      operations: [
        {
          op: 'replace',
          path: 'wiki/colony.md',
          old_text: 'zeppelin',
          new_text: 'x',
          expected_version: v,
        },
      ],
    });
    expect(none.data.details.failures[0]).toMatchObject({ code: 'OCCURRENCE_MISMATCH' });
    expect(none.data.details.failures[0].message).toMatch(/not found/);
    const many = await batch({
      operations: [
        {
          op: 'replace',
          path: 'wiki/colony.md',
          old_text: 'colony',
          new_text: 'x',
          expected_version: v,
        },
      ],
    });
    expect(many.data.details.failures[0].message).toMatch(/occurs \d+ times .*lines \d+/);
  });

  it('previews with dry_run: diffs and the same versions a real run produces, nothing written', async () => {
    const before = snapshot();
    const ops = [
      {
        op: 'replace',
        path: 'wiki/swarming.md',
        old_text: 'at dusk.',
        new_text: 'at dusk, into a clean hive.',
        expected_version: version('wiki/swarming.md'),
      },
    ];
    const dry = await batch({ operations: ops, dry_run: true });
    expect(dry.data).toMatchObject({ dry_run: true, applied: false });
    expect(dry.data.changes[0].diff).toBe(
      '--- a/wiki/swarming.md\n+++ b/wiki/swarming.md\n@@ -23,4 +23,4 @@\n ## Catching a swarm\n \n A clustered swarm is usually gentle, because the bees have filled up on honey before leaving.\n-Shake the cluster into a box, wait until the bees fan at the entrance, and move them at dusk.\n+Shake the cluster into a box, wait until the bees fan at the entrance, and move them at dusk, into a clean hive.\n',
    );
    expect(snapshot()).toEqual(before);
    const real = await batch({ operations: ops });
    expect(real.data.changes[0].diff).toBeUndefined();
    expect(real.data.changes[0].version).toBe(dry.data.changes[0].version);
    expect(version('wiki/swarming.md')).toBe(dry.data.changes[0].version);
  });

  it('reports links left pointing at missing pages, headings and blocks', async () => {
    const res = await batch({
      operations: [
        {
          op: 'delete',
          path: 'wiki/varroa-mite.md',
          expected_version: version('wiki/varroa-mite.md'),
        },
        {
          op: 'put',
          path: 'wiki/new.md',
          content:
            '# New\n\n[[colony#No such heading]] [[colony#^nope]] [[colony#Castes]] [[ghost]]\n',
        },
      ],
    });
    expect(res.isError).toBe(false);
    expect(res.data.broken_links).toEqual(
      expect.arrayContaining([
        {
          path: 'wiki/new.md',
          line: 3,
          link: '[[colony#No such heading]]',
          reason: 'missing_heading',
        },
        { path: 'wiki/new.md', line: 3, link: '[[colony#^nope]]', reason: 'missing_block' },
        { path: 'wiki/new.md', line: 3, link: '[[ghost]]', reason: 'missing_page' },
        { path: 'index.md', line: 14, link: '[[varroa-mite]]', reason: 'missing_page' },
        {
          path: 'wiki/hive-inspection.md',
          line: 20,
          link: '[[varroa-mite#Monitoring]]',
          reason: 'missing_page',
        },
        {
          path: 'wiki/harvest/honey-harvest.md',
          line: 29,
          link: '[[varroa-mite#Treatment]]',
          reason: 'missing_page',
        },
      ]),
    );
    expect(res.data.broken_links).toHaveLength(6);
  });
});

describe('write_batch: limits and refusals', () => {
  it.each([
    [{ op: 'put', path: 'notes.txt', content: 'x' }, 'PATH_NOT_PAGE'],
    [{ op: 'put', path: '.obsidian/x.md', content: 'x' }, 'PATH_HIDDEN'],
    [{ op: 'put', path: '.lectern/journal.md', content: 'x' }, 'PATH_RESERVED'],
    [{ op: 'put', path: '../escape.md', content: 'x' }, 'PATH_ESCAPES_ROOT'],
    [{ op: 'put', path: '/tmp/abs.md', content: 'x' }, 'PATH_ABSOLUTE_OUTSIDE_ROOT'],
    [{ op: 'put', path: 'lone.md', content: 'bad \ud800 text' }, 'INVALID_TEXT'],
    [{ op: 'put', path: 'nul.md', content: 'a\u0000b' }, 'INVALID_TEXT'],
    [{ op: 'put', path: 'wiki/index.md/x.md', content: 'x' }, 'PATH_NOT_DIRECTORY'],
    // nothing a reader would refuse can be written (issue 13, item 7)
    [{ op: 'put', path: `${'d/'.repeat(65)}deep.md`, content: 'x' }, 'WIKI_TOO_DEEP'],
    [{ op: 'put', path: `${'d/'.repeat(70)}deep.md`, content: 'x' }, 'WIKI_TOO_DEEP'],
    [{ op: 'put', path: 'wiki/two\nlines.md', content: 'x' }, 'PAGE_NAME_INVALID'],
    [{ op: 'put', path: 'wiki/tab\there.md', content: 'x' }, 'PAGE_NAME_INVALID'],
    [{ op: 'put', path: 'wiki/bell\u0007.md', content: 'x' }, 'PAGE_NAME_INVALID'],
    [{ op: 'put', path: 'wiki/invoice\u202Etxt.md', content: 'x' }, 'PAGE_NAME_INVALID'],
    [{ op: 'put', path: 'wiki/\u2066isolate\u2069.md', content: 'x' }, 'PAGE_NAME_INVALID'],
    [{ op: 'append', path: 'wiki/c1\u0085.md', content: 'x' }, 'PAGE_NAME_INVALID'],
    [{ op: 'put', path: `wiki/${'n'.repeat(300)}.md`, content: 'x' }, 'PATH_TOO_LONG'],
    [
      {
        op: 'move',
        path: 'wiki/index.md',
        new_path: `${'m/'.repeat(66)}x.md`,
        expected_version: sha256('a file'),
      },
      'WIKI_TOO_DEEP',
    ],
  ])('refuses %j with %s', async (operation, code) => {
    writeFiles(dir, { 'wiki/index.md': 'a file' });
    const before = snapshot();
    const res = await batch({ operations: [operation] });
    expect(res.data.code).toBe('BATCH_REJECTED');
    expect(res.data.details.failures[0].code).toBe(code);
    expect(snapshot()).toEqual(before);
  });

  it('refuses a batch whose texts together exceed the 8,000,000-character budget, writing nothing', async () => {
    const before = snapshot();
    const half = 'x'.repeat(WRITE_BATCH_MAX_TEXT_CHARS / 2);
    const res = await batch({
      operations: [
        { op: 'put', path: 'wiki/a.md', content: half },
        { op: 'put', path: 'wiki/b.md', content: `${half}y` },
      ],
    });
    expect(res.isError).toBe(true);
    expect(res.data.error).toContain('8000000');
    expect(res.data.error).toContain('operations');
    expect(snapshot()).toEqual(before);
    // a single field over the budget is refused by its own bound
    const one = await batch({
      operations: [{ op: 'put', path: 'wiki/a.md', content: `${half}${half}z` }],
    });
    expect(one.isError).toBe(true);
    expect(snapshot()).toEqual(before);
  });

  it('accepts a batch at the budget past the schema: replace texts count too', async () => {
    const res = await batch({
      dry_run: true,
      operations: [
        { op: 'put', path: 'wiki/a.md', content: 'a'.repeat(WRITE_BATCH_MAX_TEXT_CHARS - 2) },
        { op: 'replace', path: 'wiki/index.md', old_text: 'a', new_text: 'b' },
      ],
    });
    // The schema let it through: the handler judged each operation (the page limit is 1 MiB).
    expect(res.data.code).toBe('BATCH_REJECTED');
    expect(res.data.details.failures[0].code).toBe('PAGE_TOO_LARGE');
  }, 120_000);

  it('keeps every page it writes readable by list_pages, search_wiki, list_wikis and write_batch', async () => {
    // 64 folders is the deepest a reader walks: writable and readable
    const deepest = `${'d/'.repeat(64)}deepest.md`;
    const ok = await batch({ operations: [{ op: 'put', path: deepest, content: '# Deepest\n' }] });
    expect(ok.data.applied).toBe(true);
    const refused = await batch({
      operations: [{ op: 'put', path: `${'d/'.repeat(64)}d/deeper.md`, content: 'x' }],
    });
    expect(refused.data.details.failures[0].code).toBe('WIKI_TOO_DEEP');
    for (const [tool, args] of [
      ['list_pages', { limit: 1 }],
      ['search_wiki', { query: 'Deepest' }],
      ['list_wikis', {}],
    ] as const) {
      const res = await wiki.call(tool, {
        ...(tool === 'list_wikis' ? {} : { wiki: 'bees' }),
        ...args,
      });
      expect(res.isError, `${tool}: ${JSON.stringify(res.data)}`).toBeFalsy();
    }
    const again = await batch({ operations: [{ op: 'put', path: 'wiki/after.md', content: 'x' }] });
    expect(again.data.applied).toBe(true);
  });

  it('never writes through a symbolic link', async () => {
    const outside = tempDir();
    symlinkSync(outside, join(dir, 'wiki/linked'));
    writeFileSync(join(outside, 'target.md'), 'outside');
    symlinkSync(join(outside, 'target.md'), join(dir, 'wiki/page-link.md'));
    const res = await batch({
      operations: [
        { op: 'put', path: 'wiki/linked/new.md', content: 'x' },
        { op: 'put', path: 'wiki/page-link.md', content: 'x', expected_version: sha256('outside') },
      ],
    });
    expect(res.data.details.failures.map((f: { code: string }) => f.code)).toEqual([
      'PATH_SYMLINK',
      'PATH_SYMLINK',
    ]);
    expect(readdirSync(outside)).toEqual(['target.md']);
    expect(readFileSync(join(outside, 'target.md'), 'utf8')).toBe('outside');
    removeDir(outside);
  });

  it('enforces the page size cap on content and on the result, and allows configured extensions', async () => {
    writeFiles(dir, { 'small.md': 'x'.repeat(90) });
    await open({ maxPageBytes: 100, allowedExtensions: ['.md', '.txt'] });
    const res = await batch({
      operations: [
        { op: 'put', path: 'big.md', content: 'y'.repeat(101) },
        {
          op: 'append',
          path: 'small.md',
          content: 'z'.repeat(20),
          expected_version: version('small.md'),
        },
      ],
    });
    expect(res.data.details.failures.map((f: { code: string }) => f.code)).toEqual([
      'PAGE_TOO_LARGE',
      'PAGE_TOO_LARGE',
    ]);
    const txt = await batch({ operations: [{ op: 'put', path: 'notes.txt', content: 'plain' }] });
    expect(txt.isError).toBe(false);
    expect(file('notes.txt')).toBe('plain');
  });

  it('refuses to edit a page that is not text, and a move onto itself', async () => {
    writeFiles(dir, { 'bad.md': new Uint8Array([0x61, 0xff]) });
    const res = await batch({
      operations: [
        { op: 'append', path: 'bad.md', content: 'x', expected_version: version('bad.md') },
        {
          op: 'move',
          path: 'index.md',
          new_path: './index.md',
          expected_version: version('index.md'),
        },
      ],
    });
    expect(res.data.details.failures.map((f: { code: string }) => f.code)).toEqual([
      'PAGE_NOT_TEXT',
      'INVALID_OPERATION',
    ]);
    expect(res.data.details.failures[0].message).toMatch(/not valid UTF-8/);
    // A page that is not text can still be replaced whole.
    const put = await batch({
      operations: [
        { op: 'put', path: 'bad.md', content: 'fixed\n', expected_version: version('bad.md') },
      ],
    });
    expect(put.isError).toBe(false);
    expect(file('bad.md')).toBe('fixed\n');
  });

  it('rejects malformed batches at the schema', async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => ({
      op: 'put',
      path: `p${i}.md`,
      content: 'x',
    }));
    expect((await batch({ operations: tooMany })).isError).toBe(true);
    expect((await batch({ operations: [] })).isError).toBe(true);
    const badVersion = await batch({
      operations: [{ op: 'delete', path: 'index.md', expected_version: 'abc' }],
    });
    expect(badVersion.isError).toBe(true);
    expect(badVersion.data.error).toMatch(/expected_version|64 hexadecimal/);
    const badOp = await batch({ operations: [{ op: 'rename', path: 'index.md' }] });
    expect(badOp.isError).toBe(true);
  });

  it('refuses an unknown wiki with suggestions', async () => {
    const res = await wiki.call('write_batch', {
      wiki: 'beez',
      operations: [{ op: 'put', path: 'a.md', content: 'x' }],
    });
    expect(res.data).toMatchObject({ code: 'UNKNOWN_WIKI', suggestions: ['bees'] });
  });

  it('refuses a state folder replaced by a link, writing nothing', async () => {
    const outside = tempDir();
    mkdirSync(join(dir, 'tmp-unused'), { recursive: true });
    symlinkSync(outside, join(dir, '.lectern'));
    const res = await batch({ operations: [{ op: 'put', path: 'x.md', content: 'x' }] });
    expect(res.data.code).toBe('STATE_DIR_INVALID');
    expect(existsSync(join(dir, 'x.md'))).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
    removeDir(outside);
  });
});

// Issue 29: the native operations are one flat object (a third of the union's size in the tool
// list); each op is still checked for the fields it needs and refuses the ones it does not take.
describe('write_batch: flat operations are checked per op', () => {
  const refused = async (op: Record<string, unknown>, field: string, words: string) => {
    const before = snapshot();
    const res = await batch({ operations: [op] });
    expect(res.isError, JSON.stringify(res.data)).toBe(true);
    const text = JSON.stringify(res.data);
    expect(text).toContain(field);
    expect(text).toContain(words);
    expect(snapshot()).toEqual(before);
  };

  it('a missing field names the op and the field', async () => {
    await refused({ op: 'put', path: 'wiki/new.md' }, 'content', 'put needs content');
    await refused(
      { op: 'replace', path: 'index.md', old_text: 'x' },
      'new_text',
      'replace needs new_text',
    );
    await refused({ op: 'move', path: 'index.md' }, 'new_path', 'move needs new_path');
    await refused(
      { op: 'append', path: 'wiki/new.md', content: '' },
      'content',
      'append needs text',
    );
  });

  it('a field another op takes is refused, naming what this op takes', async () => {
    await refused(
      { op: 'delete', path: 'index.md', content: 'x' },
      'content',
      'content does not apply to delete',
    );
    await refused(
      { op: 'put', path: 'wiki/a.md', content: 'x', new_path: 'wiki/b.md' },
      'new_path',
      'new_path does not apply to put; put takes content',
    );
  });

  it('expected_occurrences defaults to 1 and is used by replace', async () => {
    writeFiles(dir, { 'wiki/twice.md': 'a b a\n' });
    const one = await batch({
      operations: [{ op: 'replace', path: 'wiki/twice.md', old_text: 'a', new_text: 'c' }],
    });
    expect(one.isError).toBe(true);
    const two = await batch({
      operations: [
        {
          op: 'replace',
          path: 'wiki/twice.md',
          old_text: 'a',
          new_text: 'c',
          expected_occurrences: 2,
          expected_version: version('wiki/twice.md'),
        },
      ],
    });
    expect(two.isError, JSON.stringify(two.data)).toBe(false);
    expect(file('wiki/twice.md')).toBe('c b c\n');
  });
});
