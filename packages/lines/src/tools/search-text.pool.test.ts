import { spawn } from 'node:child_process';
import { linkSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bySize, startExchangeLoop } from '@lectern/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeSearchWorkers } from '../index.js';
import { POOL_AFTER_FILES, type PoolMode, setSearchPoolMode } from '../lib/ordered-scan.js';
import { searchPool } from '../lib/search-pool.js';
import { lineTools } from '../package.js';
import { type Loose, serve, type TempDir, tempDir } from '../test-helpers/fixtures.js';

/*
 * search_text hands files to worker threads in large searches. Whatever runs where, every
 * page must be exactly what the main thread alone gives: same matches in the same order, same
 * counters, same cursors, same limits. These tests run each search three ways — never on the
 * pool (`off`), every file on the pool (`always`), and the production rule (`auto`: a search
 * moves to the pool once it proves large) — on real files, and compare whole pages.
 */

let t: TempDir;
let servers: Array<Awaited<ReturnType<typeof serve>>> = [];
let plain: Awaited<ReturnType<typeof serve>>;
let tight: Awaited<ReturnType<typeof serve>>;

const FILES = POOL_AFTER_FILES * 3;

beforeAll(async () => {
  t = tempDir();
  t.write('.gitignore', 'ignored/\n');
  t.write('ignored/secret.txt', 'needle\n');
  // Enough plain files that `auto` starts on this thread and moves to the pool midway.
  for (let i = 0; i < FILES; i++) {
    const folder = `f${String(i % 7).padStart(2, '0')}`;
    const body =
      i % 5 === 0
        ? `intro ${i}\n${'needle line\n'.repeat(1 + (i % 4))}Needle upper ${i}\n`
        : i % 5 === 1
          ? `nothing here ${i}\n`.repeat(40)
          : `first ${i}\r\nthe needle in crlf\r\nlast\r\n`;
    t.write(`${folder}/file-${String(i).padStart(3, '0')}.txt`, body);
  }
  t.write('many/lots.txt', 'needle\n'.repeat(60));
  t.write('bom/bom.md', '\uFEFFneedle on line one\n\n\u{1F600}needle after emoji\n');
  // Binary: with the needle (skipped as binary) and without it (a prefilter miss: searched).
  t.write('bin/with.bin', Buffer.from('needle\u0000binary'));
  t.write('bin/without.bin', Buffer.from('nothing\u0000binary'));
  t.write('bin/latin1.txt', Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xe9, 0x0a]));
  // Huge lines: a match in the middle of 300,000 characters, and one as context.
  t.write('huge/one-line.txt', `${'x'.repeat(150_000)}needle${'y'.repeat(150_000)}\n`);
  t.write('huge/context.txt', `${'z'.repeat(100_000)}\nneedle\n${'w'.repeat(100_000)}\n`);
  // Over the lowered file size limit of the tight tools.
  t.write('big/large.txt', `${'filler line\n'.repeat(12_000)}needle at the end\n`);
  // Case folding onto ASCII (KELVIN SIGN) and a non-ASCII query.
  t.write('fold/kelvin.txt', 'five \u212Aelvin\nnaïve needle café\n');
  // Refused by the guard: a hard link (both names), a link, a FIFO.
  t.write('links/original.txt', 'needle hard\n');
  linkSync(t.abs('links/original.txt'), t.abs('links/hard.txt'));
  t.symlink(t.abs('bom/bom.md'), 'links/soft.md');
  t.mkfifo('links/pipe');
  // Catastrophic backtracking for the regex budget.
  t.write('evil/aaa.txt', `${'a'.repeat(40)}b\n`);
  plain = await serve(lineTools({ workspaces: [{ id: 'w', path: t.dir }] }));
  tight = await serve(
    lineTools({
      workspaces: [{ id: 'w', path: t.dir }],
      limits: {
        maxFileBytes: 64 * 1024,
        maxSearchBytes: 8 * 1024,
        maxOutputBytes: 12 * 1024,
        regexTimeoutMs: 150,
      },
    }),
  );
  servers = [plain, tight];
}, 60_000);

afterEach(() => setSearchPoolMode('auto'));

afterAll(async () => {
  for (const s of servers) await s.close();
  await closeSearchWorkers();
  t.cleanup();
});

/** Every page of a search, following next_cursor to the end. */
async function allPages(
  s: Awaited<ReturnType<typeof serve>>,
  args: Record<string, unknown>,
): Promise<Loose[]> {
  const pages: Loose[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 500; i++) {
    const r = await s.call('search_text', { workspace: 'w', ...args, cursor });
    pages.push(r.isError ? { error: r.data.code } : r.data);
    if (r.isError || !r.data.next_cursor) return pages;
    cursor = r.data.next_cursor;
  }
  throw new Error('too many pages');
}

async function inEveryMode(
  s: Awaited<ReturnType<typeof serve>>,
  args: Record<string, unknown>,
): Promise<Record<PoolMode, Loose[]>> {
  const out = {} as Record<PoolMode, Loose[]>;
  for (const mode of ['off', 'always', 'auto'] as const) {
    setSearchPoolMode(mode);
    out[mode] = await allPages(s, args);
  }
  return out;
}

describe('search_text on worker threads', () => {
  const cases: Array<[string, 'plain' | 'tight', Record<string, unknown>]> = [
    ['case-insensitive literal', 'plain', { query: 'needle' }],
    ['case-sensitive literal', 'plain', { query: 'Needle', case_sensitive: true }],
    ['whole word with context', 'plain', { query: 'needle', whole_word: true, context_lines: 2 }],
    [
      'small pages and a per-file cap',
      'plain',
      { query: 'needle', max_matches: 7, max_matches_per_file: 3 },
    ],
    ['non-ASCII literal (no byte prefilter)', 'plain', { query: 'naïve' }],
    ['a letter that KELVIN SIGN folds onto', 'plain', { query: 'kelvin' }],
    [
      'one folder, include and exclude globs',
      'plain',
      { query: 'needle', path: 'f03', include: ['*.txt'], exclude: ['file-01*'] },
    ],
    ['a regular expression', 'plain', { query: 'nee+dle', regex: true }],
    ['no match anywhere', 'plain', { query: 'absent-word' }],
    ['file and output limits', 'tight', { query: 'needle', context_lines: 1 }],
    ['byte budget', 'tight', { query: 'absent-word' }],
    ['regex time budget', 'tight', { query: '(a+)+$', regex: true, path: 'evil' }],
  ];
  for (const [name, which, args] of cases) {
    it(`gives identical pages with and without the pool: ${name}`, async () => {
      const s = which === 'plain' ? plain : tight;
      const got = await inEveryMode(s, args);
      expect(got.always).toEqual(got.off);
      expect(got.auto).toEqual(got.off);
      // The comparison means something: the search found or skipped what the tree holds.
      const first = got.off[0];
      expect(first.error).toBeUndefined();
      if (args.query === 'needle' && which === 'plain' && !args.path && !args.whole_word) {
        const all = got.off.flatMap((p: Loose) => p.matches.map((m: Loose) => m.path));
        expect(all).toContain('huge/one-line.txt');
        expect(all).not.toContain('ignored/secret.txt');
        expect(all).not.toContain('links/hard.txt');
        const skipped = got.off.reduce(
          (acc: Loose, p: Loose) => {
            for (const k of Object.keys(p.skipped)) acc[k] = (acc[k] ?? 0) + p.skipped[k];
            return acc;
          },
          {} as Record<string, number>,
        );
        expect(skipped).toEqual({
          binary: 1,
          invalid_utf8: 1,
          too_large: 0,
          unreadable: 2,
          invalid_name: 0,
        });
      }
      if (which === 'tight' && !args.regex) {
        const flag = args.query === 'needle' ? 'output_limited' : 'scan_limited';
        expect(got.off.filter((p: Loose) => p[flag]).length).toBeGreaterThan(1);
        expect(got.off.some((p: Loose) => p.skipped.too_large > 0)).toBe(true);
      }
      if (args.query === '(a+)+$') {
        expect(got.off.some((p: Loose) => p.timed_out && p.timed_out_path === 'evil/aaa.txt')).toBe(
          true,
        );
      }
    });
  }

  it('uses the workers in `always` mode and for large searches in `auto` mode', async () => {
    await closeSearchWorkers();
    expect(searchPool.workerCount).toBe(0);
    setSearchPoolMode('auto');
    // A one-folder search stays on this thread and starts nothing.
    await plain.call('search_text', { workspace: 'w', query: 'needle', path: 'bom' });
    expect(searchPool.workerCount).toBe(0);
    await plain.call('search_text', { workspace: 'w', query: 'needle' });
    expect(searchPool.workerCount).toBeGreaterThan(0);
    await closeSearchWorkers();
    expect(searchPool.workerCount).toBe(0);
  });

  it('finishes a search that is running when the pool closes, with the same pages', async () => {
    setSearchPoolMode('off');
    const want = await allPages(plain, { query: 'needle', max_matches: 500 });
    setSearchPoolMode('always');
    for (let round = 0; round < 3; round++) {
      const running = allPages(plain, { query: 'needle', max_matches: 500 });
      await new Promise((r) => setTimeout(r, round * 5));
      await closeSearchWorkers();
      expect(await running).toEqual(want);
    }
  });

  it('gives each changing file one consistent version while files change mid-search', async () => {
    const churn = (i: number) => `churn/c${i}.txt`;
    for (let i = 0; i < 6; i++) t.write(churn(i), 'needle old\n');
    t.write('churn/grow.txt', '');
    // A separate process replaces files atomically (rename) and appends to one in place.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const dir = ${JSON.stringify(t.abs('churn'))};
         let n = 0;
         const stop = Date.now() + 20000;
         while (Date.now() < stop) {
           const i = n % 6;
           const body = n % 2 ? 'needle new\\nmore needle new\\n' : 'needle old\\n';
           fs.writeFileSync(dir + '/tmp' + i, body);
           fs.renameSync(dir + '/tmp' + i, dir + '/c' + i + '.txt');
           fs.appendFileSync(dir + '/grow.txt', 'needle grow ' + n + '\\n');
           n++;
         }`,
      ],
      { stdio: 'ignore' },
    );
    try {
      setSearchPoolMode('off');
      const stable = await allPages(plain, {
        query: 'needle',
        max_matches: 500,
        exclude: ['churn'],
      });
      const rounds = bySize(6, 40);
      for (let round = 0; round < rounds; round++) {
        setSearchPoolMode(round % 2 ? 'always' : 'auto');
        const pages = await allPages(plain, { query: 'needle', max_matches: 500 });
        const matches = pages.flatMap((p: Loose) => p.matches);
        const outside = matches.filter((m: Loose) => !m.path.startsWith('churn/'));
        expect(outside).toEqual(stable.flatMap((p: Loose) => p.matches));
        for (let i = 0; i < 6; i++) {
          const lines = matches.filter((m: Loose) => m.path === churn(i)).map((m: Loose) => m.text);
          // Never a mix: the old version, the new one, or nothing (replaced while opened).
          expect([[], ['needle old'], ['needle new', 'more needle new']]).toContainEqual(lines);
        }
        const grown = matches.filter((m: Loose) => m.path === 'churn/grow.txt');
        grown.forEach((m: Loose, k: number) => {
          expect(m.line).toBe(k + 1);
          // The last line may be cut where the read ended; it is still a prefix of a real line.
          expect(m.text).toMatch(/^needle grow \d+$/);
        });
      }
    } finally {
      writer.kill();
    }
  }, 120_000);
});

describe('search_text workers and the root guard', () => {
  it('never returns text from outside the root while a folder is swapped for a link', async () => {
    const base = realpathSync(t.dir);
    const outside = join(`${base}-outside`);
    mkdirSync(join(outside, 'secret'), { recursive: true });
    mkdirSync(t.abs('swap/sub'), { recursive: true });
    for (let i = 0; i < 20; i++) {
      writeFileSync(t.abs(`swap/sub/page-${i}.md`), `needle INSIDE ${i}\n`);
      writeFileSync(join(outside, 'secret', `page-${i}.md`), `needle OUTSIDE ${i}\n`);
    }
    symlinkSync(join(outside, 'secret'), t.abs('swap/link'));
    const loop = await startExchangeLoop(t.abs('swap/sub'), t.abs('swap/link'), `${base}-outside`);
    let searches = 0;
    let insideSeen = 0;
    try {
      const deadline = Date.now() + bySize(1500, 10_000);
      while (Date.now() < deadline) {
        setSearchPoolMode(searches % 2 ? 'always' : 'auto');
        const r = await plain.call('search_text', {
          workspace: 'w',
          query: 'needle',
          path: 'swap',
          max_matches: 500,
        });
        searches++;
        if (r.isError) continue; // the start folder itself was caught mid-swap: refused
        for (const m of r.data.matches as Loose[]) {
          expect(m.text).not.toContain('OUTSIDE');
          if (m.text.includes('INSIDE')) insideSeen++;
        }
      }
    } finally {
      await loop.stop();
      const { rmSync } = await import('node:fs');
      rmSync(outside, { recursive: true, force: true });
    }
    expect(searches).toBeGreaterThan(3);
    expect(insideSeen).toBeGreaterThan(0);
  }, 120_000);
});
