import {
  linkSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { isToolError } from '@lectern/core';
import { beforeEach, describe, expect, test } from 'vitest';
import { createMemory } from '../store.js';
import { storeFixture } from './fixture.js';
import { tempDir } from './fs.js';
import type { BackendUnderTest } from './target.js';

/** The store's behaviour through its API: indexing, search, fragments, status. */
export function storeTests(target: BackendUnderTest): void {
  const fx = storeFixture(target);
  const make = fx.make;
  const open = make;

  async function codeOf(p: Promise<unknown>): Promise<string> {
    try {
      await p;
    } catch (e) {
      if (isToolError(e)) return e.code;
      throw e;
    }
    throw new Error('expected a ToolError, got a result');
  }

  const paths = (r: { results: Array<{ path: string }> }) => r.results.map((c) => c.path).sort();

  const GARDEN = `# Garden journal

Planted tomatoes and basil along the south fence.

## Watering

Drip irrigation runs at dawn for twenty minutes.

## Pests

Aphids on the roses again; tried neem oil.
`;

  describe('createMemory', () => {
    test('builds the index on the first search and cites file, lines and heading path', async () => {
      fx.dir.write('garden.md', GARDEN);
      const store = open();
      expect((await store.listSources()).built).toBe(false);
      const r = await store.search({ query: 'neem' });
      expect(r.results).toHaveLength(1);
      expect(r.warnings.join(' ')).toMatch(/never been built/);
      const c = r.results[0]!;
      expect(c).toMatchObject({
        path: 'notes/garden.md',
        source: 'notes',
        start_line: 9,
        end_line: 11,
        heading_path: 'Garden journal > Pests',
        stale: false,
      });
      expect(c.snippet).toContain('«neem»');
      expect(c.version).toMatch(/^[0-9a-f]{64}$/);
      expect((await store.listSources()).built).toBe(true);
      // The .lectern folder itself is never indexed.
      expect((await store.listSources()).sources[0]!.files).toBe(1);
    });

    test('refuses bad options with clear codes', () => {
      expect(() => createMemory({ sources: [] })).toThrow(/at least one source/);
      expect(() => createMemory({ sources: [{ id: 'a/b', path: fx.dir.path }] })).toThrow(
        /invalid/,
      );
      expect(() =>
        createMemory({
          sources: [
            { id: 'a', path: fx.dir.path },
            { id: 'a', path: fx.dir.path },
          ],
        }),
      ).toThrow(/twice/);
      expect(() =>
        createMemory({ sources: [{ id: 'a', path: join(fx.dir.path, 'nope') }] }),
      ).toThrow(/does not exist/);
      expect(() =>
        createMemory({ sources: [{ id: 'a', path: fx.dir.path }], maxFileBytes: 0 }),
      ).toThrow(/maxFileBytes/);
    });

    test('calls after close fail with STORE_CLOSED', async () => {
      const store = open();
      store.close();
      expect(await codeOf(store.search({ query: 'x' }))).toBe('STORE_CLOSED');
    });
  });

  describe('incremental reindex', () => {
    test('edit, rename and delete touch only what changed', async () => {
      fx.dir.write('a.md', '# Alpha\n\nThe quick brown fox.\n');
      fx.dir.write('b.md', '# Beta\n\nLazy dogs sleep all day.\n');
      fx.dir.write('sub/c.txt', 'Plain text about lanterns.\n');
      const store = open();
      const first = await store.reindex();
      expect(first).toMatchObject({ added: 3, updated: 0, removed: 0, unchanged: 0, files: 3 });
      expect(first.errors).toEqual([]);

      const again = await store.reindex();
      expect(again).toMatchObject({ added: 0, updated: 0, removed: 0, renamed: 0, unchanged: 3 });

      // Edit.
      fx.dir.write('a.md', '# Alpha\n\nThe quick brown fox jumps over a zebra.\n');
      expect(await store.reindex()).toMatchObject({ updated: 1, unchanged: 2, added: 0 });
      expect(paths(await store.search({ query: 'zebra' }))).toEqual(['notes/a.md']);
      expect((await store.search({ query: 'lazy dogs' })).results).toHaveLength(1);

      // Rename (same content, new path): chunks follow the file.
      renameSync(join(fx.dir.path, 'b.md'), join(fx.dir.path, 'sub', 'b-renamed.md'));
      const renamed = await store.reindex();
      expect(renamed).toMatchObject({ renamed: 1, added: 0, removed: 0, files: 3 });
      expect(paths(await store.search({ query: 'lazy' }))).toEqual(['notes/sub/b-renamed.md']);
      expect(await codeOf(store.readFragment({ path: 'notes/b.md' }))).toBe('NOT_INDEXED');
      expect((await store.readFragment({ path: 'notes/sub/b-renamed.md' })).content).toContain(
        'Lazy dogs',
      );

      // Delete.
      rmSync(join(fx.dir.path, 'sub', 'c.txt'));
      const deleted = await store.reindex();
      expect(deleted).toMatchObject({ removed: 1, files: 2 });
      expect((await store.search({ query: 'lanterns' })).results).toEqual([]);
    });

    test('a same-size edit within the same second is caught (racy mtime re-hash)', async () => {
      const file = fx.dir.write('n.md', 'alpha bravo\n');
      // A whole-second mtime close to now, restored after the edit: size and mtime both match.
      const t = new Date(Math.floor(Date.now() / 1000) * 1000);
      utimesSync(file, t, t);
      const store = open();
      await store.reindex();
      const before = (await store.search({ query: 'alpha' })).results[0]!.version;
      writeFileSync(file, 'delta bravo\n'); // same size
      utimesSync(file, t, t);
      const r = await store.reindex();
      expect(r.updated).toBe(1);
      expect((await store.search({ query: 'alpha' })).results).toEqual([]);
      expect((await store.search({ query: 'delta' })).results[0]!.version).not.toBe(before);
    });

    test('a touched file with identical content is confirmed by sha256 and not re-chunked', async () => {
      const file = fx.dir.write('n.md', 'gamma\n');
      const old = new Date(Date.now() - 60_000);
      utimesSync(file, old, old);
      const store = open();
      await store.reindex();
      const now = new Date(Date.now() - 30_000);
      utimesSync(file, now, now);
      expect((await store.listSources()).sources[0]!.pending.changed).toBe(1);
      const r = await store.reindex();
      expect(r).toMatchObject({ updated: 0, unchanged: 1 });
      expect((await store.listSources()).sources[0]!.pending.changed).toBe(0);
    });

    test('full reindex rebuilds everything and reports updated files', async () => {
      fx.dir.write('a.md', 'one\n');
      fx.dir.write('b.md', 'two\n');
      const store = open();
      await store.reindex();
      rmSync(join(fx.dir.path, 'b.md'));
      const r = await store.reindex({ full: true });
      expect(r).toMatchObject({
        full: true,
        updated: 1,
        removed: 1,
        added: 0,
        files: 1,
        chunks: 1,
      });
    });

    test('a file that becomes invalid UTF-8 is dropped and reported, not fatal', async () => {
      fx.dir.write('good.md', '# Good\n\nfine words\n');
      const bad = fx.dir.write('bad.md', '# Bad\n\nonce valid text\n');
      const store = open();
      await store.reindex();
      expect((await store.search({ query: 'valid' })).results).toHaveLength(1);

      writeFileSync(bad, Buffer.from([0x23, 0x20, 0x42, 0x0a, 0xc3, 0x28, 0x0a]));
      const r = await store.reindex();
      expect(r.removed).toBe(1);
      expect(r.errors).toEqual([
        {
          path: 'notes/bad.md',
          code: 'INVALID_UTF8',
          message: expect.stringMatching(/byte offset 4/),
        },
      ]);
      expect((await store.search({ query: 'valid' })).results).toEqual([]);
      expect((await store.search({ query: 'fine' })).results).toHaveLength(1);
      const listed = (await store.listSources()).sources[0]!;
      expect(listed).toMatchObject({ files: 1, problems: 1, pending: { new: 0, changed: 0 } });
      // Still reported (without re-reading) until fixed; reading it explains why.
      expect((await store.reindex()).errors.map((e) => e.code)).toEqual(['INVALID_UTF8']);
      const err = await store.readFragment({ path: 'notes/bad.md' }).catch((e) => e);
      expect(err.code).toBe('NOT_INDEXED');
      expect(err.message).toMatch(/INVALID_UTF8/);

      // Fixed: indexed again, the problem disappears.
      writeFileSync(bad, '# Bad\n\nrepaired text\n');
      const fixed = await store.reindex();
      expect(fixed).toMatchObject({ added: 1, errors: [] });
      expect((await store.listSources()).sources[0]!.problems).toBe(0);
    });

    test('binary files and files over maxFileBytes are reported, never read into the index', async () => {
      fx.dir.write('bin.txt', Buffer.from('abc\u0000def'));
      fx.dir.write('big.md', 'word '.repeat(400));
      fx.dir.write('ok.md', 'ok\n');
      const store = open({ maxFileBytes: 1000 });
      const r = await store.reindex();
      expect(r.errors.map((e) => [e.path, e.code])).toEqual([
        ['notes/big.md', 'FILE_TOO_LARGE'],
        ['notes/bin.txt', 'BINARY_CONTENT'],
      ]);
      expect(r.files).toBe(1);
    });

    test('an empty source indexes nothing and says so', async () => {
      const store = open();
      const r = await store.reindex();
      expect(r).toMatchObject({ added: 0, files: 0, chunks: 0, errors: [] });
      expect(r.warnings.join(' ')).toMatch(/no files matching/);
      expect((await store.search({ query: 'anything' })).results).toEqual([]);
      const listed = await store.listSources();
      expect(listed.built).toBe(true);
      expect(listed.sources[0]).toMatchObject({ files: 0, chunks: 0, bytes: 0 });
    });

    test('hidden folders, non-matching files and symbolic links are skipped', async () => {
      fx.dir.write('visible.md', 'kiwi\n');
      fx.dir.write('.hidden/secret.md', 'kiwi\n');
      fx.dir.write('.dotfile.md', 'kiwi\n');
      fx.dir.write('image.png', 'kiwi\n');
      fx.dir.write('node_modules/pkg/readme.md', 'kiwi\n');
      const outside = tempDir();
      try {
        outside.write('outside.md', 'kiwi\n');
        symlinkSync(join(outside.path, 'outside.md'), join(fx.dir.path, 'link.md'));
        symlinkSync(outside.path, join(fx.dir.path, 'linked-folder'));
        const store = open();
        expect(paths(await store.search({ query: 'kiwi' }))).toEqual(['notes/visible.md']);
      } finally {
        outside.cleanup();
      }
    });

    test('include and exclude globs are honoured', async () => {
      fx.dir.write('keep/a.md', 'papaya\n');
      fx.dir.write('drafts/b.md', 'papaya\n');
      fx.dir.write('keep/c.org', 'papaya\n');
      const store = make({
        sources: [
          { id: 'n', path: fx.dir.path, include: ['**/*.md', '**/*.org'], exclude: ['drafts/**'] },
        ],
      });
      expect(paths(await store.search({ query: 'papaya' }))).toEqual([
        'n/keep/a.md',
        'n/keep/c.org',
      ]);
    });

    test('a cancelled reindex leaves the index as it was', async () => {
      for (let i = 0; i < 30; i++) fx.dir.write(`n${i}.md`, `note number ${i} mango\n`);
      const store = open();
      const controller = new AbortController();
      const code = await codeOf(
        store.reindex({
          signal: controller.signal,
          onProgress: (done) => {
            if (done >= 5) controller.abort();
          },
        }),
      );
      expect(code).toBe('CANCELLED');
      const listed = await store.listSources();
      expect(listed.built).toBe(false);
      expect(listed.sources[0]!.files).toBe(0);
      expect((await store.reindex()).added).toBe(30);
    });

    test('several sources: paths carry the source id, filters narrow the search', async () => {
      const work = tempDir();
      try {
        fx.dir.write('plan.md', '# Plan\n\nquarterly roadmap\n');
        work.write('plan.md', '# Plan\n\nroadmap for the team\n');
        const store = make({
          sources: [
            { id: 'personal', path: fx.dir.path },
            { id: 'work', path: work.path },
          ],
        });
        expect(paths(await store.search({ query: 'roadmap' }))).toEqual([
          'personal/plan.md',
          'work/plan.md',
        ]);
        expect(paths(await store.search({ query: 'roadmap', source: 'work' }))).toEqual([
          'work/plan.md',
        ]);
        const err = await store.search({ query: 'roadmap', source: 'wrok' }).catch((e) => e);
        expect(err.code).toBe('UNKNOWN_SOURCE');
        expect(err.suggestions).toContain('work');
        const listed = await store.listSources();
        expect(listed.sources.map((s) => [s.id, s.files])).toEqual([
          ['personal', 1],
          ['work', 1],
        ]);
      } finally {
        work.cleanup();
      }
    });

    test('a source removed from the configuration is dropped at the next reindex', async () => {
      const other = tempDir();
      try {
        fx.dir.write('a.md', 'apricot\n');
        other.write('b.md', 'apricot\n');
        const both = make({
          sources: [
            { id: 'a', path: fx.dir.path },
            { id: 'b', path: other.path },
          ],
          db: 'shared',
        });
        await both.reindex();
        await both.close();
        const one = make({ sources: [{ id: 'a', path: fx.dir.path }], db: 'shared' });
        const r = await one.reindex();
        expect(r.removed).toBe(1);
        expect(paths(await one.search({ query: 'apricot' }))).toEqual(['a/a.md']);
      } finally {
        other.cleanup();
      }
    });
  });

  describe('search', () => {
    test('a question of any length is answered: notes holding most of its words first, notes holding some still listed', async () => {
      fx.dir.write(
        'most.md',
        '# Glacier survey\n\nThe glacier survey measured moraine depth and crevasse width.\n',
      );
      fx.dir.write('some.md', '# Field log\n\nA crevasse was seen near the camp.\n');
      fx.dir.write('none.md', '# Recipes\n\nBake the bread slowly.\n');
      const store = open();
      const question = `${'could you please tell me everything that is known about '.repeat(4)}the glacier survey results for moraine depth and crevasse width`;
      expect(question.split(' ').length).toBeGreaterThan(40);
      const r = await store.search({ query: question });
      expect(paths(r)).toEqual(['notes/most.md', 'notes/some.md']);
      // Some of its words (tell, known, results) are in no note.
      expect(r.match).toBe('any');
      expect(r.results[0]!.score).toBeGreaterThan(r.results[1]!.score);
      // Stop words are not what it searched for.
      expect(r.fts_query).not.toMatch(/"the"|"about"|"could"/);
      // Every result holds a word of the question; a note holding none is not listed.
      const only = await store.search({ query: 'crevasse bread' });
      expect(only.match).toBe('any');
      expect(paths(only).sort()).toEqual(['notes/most.md', 'notes/none.md', 'notes/some.md']);
    });

    beforeEach(() => {
      fx.dir.write(
        'recetas.md',
        '# Recetas\n\n## Café de olla\n\nEl café se prepara con canela y piloncillo.\n\n## Crème brûlée\n\nPostre francés con azúcar quemada.\n',
      );
      fx.dir.write(
        'ops.md',
        '# Operations\n\n## Deployment\n\nDeployments go out on Tuesdays. Roll back with the e-mail runbook.\n\n## Incidents\n\nPage the on-call engineer; write a post-mortem within 48 hours.\n',
      );
    });

    test('accents and case are ignored both ways', async () => {
      const store = open();
      expect(paths(await store.search({ query: 'cafe' }))).toEqual(['notes/recetas.md']);
      expect(paths(await store.search({ query: 'CAFÉ' }))).toEqual(['notes/recetas.md']);
      expect(paths(await store.search({ query: 'creme brulee' }))).toEqual(['notes/recetas.md']);
      expect(paths(await store.search({ query: 'francés' }))).toEqual(['notes/recetas.md']);
      // Decomposed accents (e + U+0301) match too.
      expect(paths(await store.search({ query: 'cafe\u0301' }))).toEqual(['notes/recetas.md']);
    });

    test('every FTS operator character is literal and never a syntax error', async () => {
      const store = open();
      const nasty = [
        '"',
        '""',
        '"""',
        '*',
        '-',
        '+',
        '(',
        ')',
        ':',
        '^',
        '{}',
        'AND',
        'OR',
        'NOT',
        'NEAR',
        'AND(',
        'NEAR(deployment, 5)',
        'body:deployment',
        '{heading_path}: tuesdays',
        '-deployment',
        '^tuesdays',
        'deployment NOT tuesdays',
        'deployment AND',
        'OR deployment',
        'deployment*',
        '*deployment',
        '"unclosed phrase',
        'a"b"c',
        'post-mortem',
        'e-mail:',
        '(((deployment',
        '\\ / ; , . ? ! @ # $ % & = < > | ~ `',
      ];
      for (const q of nasty) {
        let result: unknown;
        try {
          result = await store.search({ query: q });
        } catch (e) {
          // Only a deliberate "no words" refusal is acceptable, never an SQLite error.
          expect(isToolError(e), `${q}: ${(e as Error).message}`).toBe(true);
          expect((e as { code: string }).code, q).toBe('EMPTY_QUERY');
          continue;
        }
        expect(result, q).toHaveProperty('results');
      }
      expect(paths(await store.search({ query: 'deployment AND(' }))).toEqual(['notes/ops.md']);
      expect(paths(await store.search({ query: '-deployment' }))).toEqual(['notes/ops.md']);
      expect(paths(await store.search({ query: 'post-mortem' }))).toEqual(['notes/ops.md']);
    });

    test('phrases and prefixes are honoured', async () => {
      const store = open();
      expect(paths(await store.search({ query: '"roll back"' }))).toEqual(['notes/ops.md']);
      expect((await store.search({ query: '"back roll"' })).results).toEqual([]);
      expect(paths(await store.search({ query: 'deploy*' }))).toEqual(['notes/ops.md']);
      // Word forms by default: `deploy` finds "Deployments" too.
      expect(paths(await store.search({ query: 'deploy' }))).toEqual(['notes/ops.md']);
      expect((await store.search({ query: 'deplor*' })).results).toEqual([]);
      expect(paths(await store.search({ query: 'pilon*' }))).toEqual(['notes/recetas.md']);
      expect((await store.search({ query: 'deploy*' })).fts_query).toBe(target.expressions.prefix);
    });

    test('match says whether the first result holds every word searched for', async () => {
      const store = open();
      const all = await store.search({ query: 'canela piloncillo' });
      expect(all.match).toBe('all');
      expect(all.results).toHaveLength(1);
      const any = await store.search({ query: 'canela tuesdays' });
      expect(any.match).toBe('any');
      expect(paths(any).sort()).toEqual(['notes/ops.md', 'notes/recetas.md']);
    });

    test('words found in most chunks are left out when rarer words are left', async () => {
      for (let i = 0; i < 10; i++)
        fx.dir.write(`w/${i}.md`, `# Week ${i}\n\nweekly status report ${i}\n`);
      fx.dir.write('w/x.md', '# Extra\n\nquince harvest\n');
      const store = open();
      // "weekly" is in 10 of 15 chunks: the search runs on quince alone.
      const r = await store.search({ query: 'weekly quince' });
      expect(r.fts_query).toMatch(/quinc/);
      expect(r.fts_query).not.toMatch(/weekly/);
      expect(paths(r)).toEqual(['notes/w/x.md']);
      // A common word next to a word that occurs nowhere is kept, so results still come back.
      const typo = await store.search({ query: 'weekly qunice' });
      expect(typo.fts_query).toMatch(/weekly.* OR .*qunice/);
      expect(typo.match).toBe('any');
      expect(typo.results.length).toBe(10);
    });

    test('headings weigh more than body text', async () => {
      fx.dir.write('x.md', '# Unrelated\n\nWe talked about incidents briefly.\n');
      const store = open();
      const r = await store.search({ query: 'incidents' });
      expect(r.results[0]).toMatchObject({
        path: 'notes/ops.md',
        heading_path: 'Operations > Incidents',
      });
      expect(r.results[0]!.score).toBeGreaterThan(r.results[1]!.score);
    });

    test('raw mode passes FTS syntax and turns syntax errors into INVALID_QUERY', async () => {
      const store = open();
      const r = await store.search({ query: target.raw.either, raw: true });
      expect(r.match).toBe('raw');
      expect(r.results).toHaveLength(2);
      expect(paths(await store.search({ query: target.raw.headingOnly, raw: true }))).toEqual([
        'notes/ops.md',
      ]);
      for (const bad of target.raw.invalid) {
        const err = await store.search({ query: bad, raw: true }).catch((e) => e);
        expect(err.code, bad).toBe('INVALID_QUERY');
        expect(err.message).toMatch(/without `raw`/);
      }
    });

    test('limit, offset and next_offset page through results', async () => {
      for (let i = 0; i < 7; i++)
        fx.dir.write(`p/${i}.md`, `# Page ${i}\n\nshared pomegranate ${i}\n`);
      const store = open();
      const first = await store.search({ query: 'pomegranate', limit: 3 });
      expect(first.results).toHaveLength(3);
      expect(first.next_offset).toBe(3);
      const second = await store.search({ query: 'pomegranate', limit: 3, offset: 3 });
      const third = await store.search({ query: 'pomegranate', limit: 3, offset: 6 });
      expect(third.results).toHaveLength(1);
      expect(third.next_offset).toBeNull();
      const all = [...first.results, ...second.results, ...third.results].map((c) => c.path);
      expect(new Set(all).size).toBe(7);
      expect(await codeOf(store.search({ query: 'x', limit: 51 }))).toBe('INVALID_LIMIT');
      expect(await codeOf(store.search({ query: 'x', limit: 0 }))).toBe('INVALID_LIMIT');
      expect(await codeOf(store.search({ query: 'x', offset: -1 }))).toBe('INVALID_OFFSET');
    });

    test('path_glob filters by path inside the source or with the source id', async () => {
      fx.dir.write('journal/2024-01.md', 'deployment diary\n');
      const store = open();
      expect(paths(await store.search({ query: 'deployment', pathGlob: 'journal/**' }))).toEqual([
        'notes/journal/2024-01.md',
      ]);
      expect(paths(await store.search({ query: 'deployment', pathGlob: 'notes/ops.md' }))).toEqual([
        'notes/ops.md',
      ]);
      expect((await store.search({ query: 'deployment', pathGlob: 'nothing/**' })).results).toEqual(
        [],
      );
    });

    test('queries without words and over 1000 characters are refused before any work; many words are not', async () => {
      const store = open();
      expect(await codeOf(store.search({ query: '   ' }))).toBe('EMPTY_QUERY');
      expect(await codeOf(store.search({ query: '*** --- ()' }))).toBe('EMPTY_QUERY');
      expect(await codeOf(store.search({ query: 'x'.repeat(1001) }))).toBe('QUERY_TOO_LONG');
      // Nothing was indexed by these refusals.
      expect((await store.listSources()).built).toBe(false);
      const many = await store.search({ query: 'w '.repeat(400) });
      expect(many.results).toEqual([]);
    });

    test('citations of a file edited since indexing are marked stale', async () => {
      const store = open();
      await store.reindex();
      writeFileSync(
        join(fx.dir.path, 'ops.md'),
        `${readFileSync(join(fx.dir.path, 'ops.md'), 'utf8')}\nmore\n`,
      );
      const r = await store.search({ query: 'deployment' });
      expect(r.results[0]!.stale).toBe(true);
      expect((await store.search({ query: 'canela' })).results[0]!.stale).toBe(false);
    });
  });

  describe('readFragment', () => {
    const lines = Array.from({ length: 450 }, (_, i) => `line ${i + 1}`);
    beforeEach(() => {
      fx.dir.write('long.md', `${lines.join('\n')}\n`);
      fx.dir.write('empty.md', '');
    });

    test('defaults to the first 200 lines, numbered', async () => {
      const store = open();
      const f = await store.readFragment({ path: 'notes/long.md' });
      expect(f).toMatchObject({
        path: 'notes/long.md',
        start_line: 1,
        end_line: 200,
        total_lines: 450,
        has_more: true,
        next_start_line: 201,
        stale: false,
      });
      const out = f.content.split('\n');
      expect(out).toHaveLength(200);
      expect(out[0]).toBe('  1\tline 1');
      expect(out[199]).toBe('200\tline 200');
      expect(f.version).toBe(f.indexed_version);
    });

    test('reads a citation range exactly, and the end of the file', async () => {
      const store = open();
      const f = await store.readFragment({ path: 'notes/long.md', startLine: 10, endLine: 12 });
      expect(f.content).toBe('10\tline 10\n11\tline 11\n12\tline 12');
      expect(f).toMatchObject({
        start_line: 10,
        end_line: 12,
        has_more: true,
        next_start_line: 13,
      });
      const tail = await store.readFragment({ path: 'notes/long.md', startLine: 401 });
      expect(tail).toMatchObject({
        start_line: 401,
        end_line: 450,
        has_more: false,
        next_start_line: null,
      });
      const past = await store.readFragment({
        path: 'notes/long.md',
        startLine: 440,
        endLine: 600,
      });
      expect(past.end_line).toBe(450);
      const onlyEnd = await store.readFragment({ path: 'notes/long.md', endLine: 300 });
      expect(onlyEnd).toMatchObject({ start_line: 101, end_line: 300 });
    });

    test('the 200-line limit and bad ranges are refused before reading', async () => {
      const store = open();
      const err = await store
        .readFragment({ path: 'notes/long.md', startLine: 1, endLine: 201 })
        .catch((e) => e);
      expect(err.code).toBe('RANGE_TOO_LARGE');
      expect(err.details).toMatchObject({ max_lines: 200, suggested_end_line: 200 });
      expect(
        await codeOf(store.readFragment({ path: 'notes/long.md', startLine: 5, endLine: 4 })),
      ).toBe('INVALID_RANGE');
      expect(await codeOf(store.readFragment({ path: 'notes/long.md', startLine: 0 }))).toBe(
        'INVALID_RANGE',
      );
      expect(await codeOf(store.readFragment({ path: 'notes/long.md', startLine: 451 }))).toBe(
        'LINE_OUT_OF_RANGE',
      );
    });

    test('a window stops before exceeding the 64 KiB budget; a single longer line is cut and read on', async () => {
      fx.dir.write('wide.md', `short\n${'x'.repeat(40 * 1024)}\n${'y'.repeat(40 * 1024)}\nend\n`);
      const store = open();
      const f = await store.readFragment({ path: 'notes/wide.md' });
      expect(f).toMatchObject({ start_line: 1, end_line: 2, has_more: true, next_start_line: 3 });
      expect(f.next_start_char).toBeNull();
      fx.dir.write('huge-line.md', `${'z'.repeat(300 * 1024)}\n`);
      await store.reindex();
      const cut = await store.readFragment({ path: 'notes/huge-line.md' });
      expect(cut).toMatchObject({ start_line: 1, end_line: 1, has_more: true, next_start_line: 1 });
      expect(cut.next_start_char).toBeGreaterThan(30_000);
      expect(cut.content).toMatch(
        / … \[line 1 cut: characters 0 to \d+ of 307200; continue at next_start_char\]$/,
      );
      const on = await store.readFragment({
        path: 'notes/huge-line.md',
        startLine: 1,
        startChar: cut.next_start_char!,
      });
      expect(on.content).toContain(`characters ${cut.next_start_char} to`);
    });

    test('an empty file reads as zero lines', async () => {
      const store = open();
      const f = await store.readFragment({ path: 'notes/empty.md' });
      expect(f).toMatchObject({
        start_line: 1,
        end_line: 0,
        total_lines: 0,
        content: '',
        has_more: false,
      });
    });

    test('only indexed files, inside the source, can be read', async () => {
      fx.dir.write('photo.png', 'not indexed');
      const store = open();
      const miss = await store.readFragment({ path: 'notes/lnog.md' }).catch((e) => e);
      expect(miss.code).toBe('NOT_INDEXED');
      expect(miss.suggestions[0]).toBe('notes/long.md');
      expect(await codeOf(store.readFragment({ path: 'notes/photo.png' }))).toBe('NOT_INDEXED');
      expect(await codeOf(store.readFragment({ path: 'notes/../../etc/passwd' }))).toBe(
        'PATH_ESCAPES_ROOT',
      );
      expect(await codeOf(store.readFragment({ path: 'elsewhere/long.md' }))).toBe(
        'UNKNOWN_SOURCE',
      );
      expect(await codeOf(store.readFragment({ path: 'notes' }))).toBe('INVALID_PATH');
      expect(await codeOf(store.readFragment({ path: 'long.md' }))).toBe('UNKNOWN_SOURCE');
    });

    test('an indexed file replaced by a symbolic link is refused by the root guard', async () => {
      const store = open();
      await store.reindex();
      const outside = tempDir();
      try {
        outside.write('x.md', 'secret\n');
        rmSync(join(fx.dir.path, 'long.md'));
        symlinkSync(join(outside.path, 'x.md'), join(fx.dir.path, 'long.md'));
        expect(await codeOf(store.readFragment({ path: 'notes/long.md' }))).toBe('PATH_SYMLINK');
      } finally {
        outside.cleanup();
      }
    });

    test('changed files read as stale with the current text; deleted ones fail clearly', async () => {
      const store = open();
      await store.reindex();
      writeFileSync(join(fx.dir.path, 'long.md'), 'new first line\n');
      const f = await store.readFragment({ path: 'notes/long.md' });
      expect(f).toMatchObject({ stale: true, total_lines: 1, content: '1\tnew first line' });
      expect(f.version).not.toBe(f.indexed_version);
      rmSync(join(fx.dir.path, 'long.md'));
      expect(await codeOf(store.readFragment({ path: 'notes/long.md' }))).toBe('FILE_DELETED');
    });
  });

  describe('listSources', () => {
    test('counts new, changed and deleted files since the last reindex', async () => {
      fx.dir.write('a.md', '# A\n\nalpha\n');
      fx.dir.write('b.md', '# B\n\nbeta\n');
      const store = open();
      const before = (await store.listSources()).sources[0]!;
      expect(before).toMatchObject({
        files: 0,
        indexed_at: null,
        pending: { new: 2, changed: 0, deleted: 0 },
      });
      await store.reindex();
      const after = (await store.listSources()).sources[0]!;
      expect(after).toMatchObject({
        files: 2,
        chunks: 2,
        pending: { new: 0, changed: 0, deleted: 0 },
      });
      expect(after.bytes).toBe(
        readFileSync(join(fx.dir.path, 'a.md')).length +
          readFileSync(join(fx.dir.path, 'b.md')).length,
      );
      expect(Date.parse(after.indexed_at!)).not.toBeNaN();
      fx.dir.write('c.md', 'gamma\n');
      fx.dir.write('a.md', '# A\n\nalpha changed\n');
      rmSync(join(fx.dir.path, 'b.md'));
      expect((await store.listSources()).sources[0]!.pending).toEqual({
        new: 1,
        changed: 1,
        deleted: 1,
      });
    });
  });

  describe('hard links', () => {
    test('a hard-linked note is not indexed unless the source allows hard links', async () => {
      const outside = tempDir();
      try {
        const secret = outside.write('secret.md', 'classified apricot\n');
        linkSync(secret, join(fx.dir.path, 'linked.md'));
        fx.dir.write('plain.md', 'apricot\n');
        const store = open();
        const r = await store.reindex();
        expect(r.errors.map((e) => [e.path, e.code])).toEqual([
          ['notes/linked.md', 'PATH_HARD_LINK'],
        ]);
        expect(paths(await store.search({ query: 'apricot' }))).toEqual(['notes/plain.md']);
        const trusting = make({
          sources: [{ id: 'notes', path: fx.dir.path, allowHardLinks: true }],
          db: 'trusting',
        });
        await trusting.reindex();
        expect(paths(await trusting.search({ query: 'apricot' }))).toEqual([
          'notes/linked.md',
          'notes/plain.md',
        ]);
      } finally {
        outside.cleanup();
      }
    });
  });
}
