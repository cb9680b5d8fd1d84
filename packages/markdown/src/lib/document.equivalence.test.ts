import { createRequire } from 'node:module';
import { bySize } from '@lectern/core/testing';
import { describe, expect, it } from 'vitest';
import { createRng, realisticDocument, tortureDocument } from './corpus.js';
import { outlineOf } from './document.js';
import { remarkOutline } from './remark.js';

const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as { tests: Array<{ markdown: string }> };
const examples = spec.tests.map((t) => ({ markdown: t.markdown.replace(/→/g, '\t') }));

describe('outlineOf (scanner, with remark deciding the windows it cannot) equals remark', () => {
  function compareAll(docs: string[]) {
    const kinds: Record<string, number> = {};
    const mismatches: string[] = [];
    for (const md of docs) {
      const got = outlineOf(md);
      kinds[got.parser] = (kinds[got.parser] ?? 0) + 1;
      const ref = remarkOutline(md);
      if (JSON.stringify(got.scan) !== JSON.stringify(ref)) {
        mismatches.push(
          `${got.parser} ${JSON.stringify(md)}\n  got ${JSON.stringify(got.scan)}\n  ref ${JSON.stringify(ref)}`,
        );
      }
    }
    return { kinds, mismatches };
  }

  it('on every spec example', () => {
    const r = compareAll(examples.map((e) => e.markdown));
    expect(r.mismatches.join('\n')).toBe('');
  });

  const MIXED = bySize(150, 1000);
  it(`on ${MIXED} torture documents of four parts each, many of them mixed`, () => {
    const rng = createRng(4242);
    const docs = Array.from({ length: MIXED }, () =>
      [tortureDocument(rng), tortureDocument(rng), tortureDocument(rng), tortureDocument(rng)].join(
        '\n\n',
      ),
    );
    const r = compareAll(docs);
    expect(r.mismatches.join('\n')).toBe('');
    expect(r.kinds.mixed).toBeGreaterThan((MIXED * 150) / 1000);
    expect(r.kinds.scanner).toBeGreaterThan((MIXED * 600) / 1000);
  });

  const VARIANTS = bySize(150, 1000);
  it(`on ${VARIANTS} torture documents each with lone CRs, NULs or an unclosed front matter fence`, () => {
    const rng = createRng(777);
    const variants = [
      (d: string) => d.replace(/\n/g, () => (rng() < 0.5 ? '\r' : rng() < 0.5 ? '\r\n' : '\n')),
      (d: string) => {
        const i = Math.floor(rng() * d.length);
        return `${d.slice(0, i)}\0${d.slice(i)}`;
      },
      (d: string) => `---\ntitle: x\n${d.replace(/^---[ \t]*$/gm, '***')}`,
    ];
    const docs = Array.from({ length: VARIANTS }, (_, i) => variants[i % 3]!(tortureDocument(rng)));
    const r = compareAll(docs);
    expect(r.mismatches.join('\n')).toBe('');
    // only a heading that needs link definitions sends a whole document to remark now
    expect(r.kinds.remark ?? 0).toBeLessThan(VARIANTS * 0.05);
    expect(r.kinds.scanner).toBeGreaterThan(VARIANTS * 0.8);
  });

  const REFS = bySize(300, 1500);
  it(`on ${REFS} documents mixing reference-link headings and link definitions`, () => {
    const rng = createRng(31337);
    const pick = <T>(a: T[]) => a[Math.floor(rng() * a.length)]!;
    const heads = [
      '# [foo]',
      '## A [bar][]',
      '# [x][foo]',
      '# [Foo] and *em*',
      '## [1.0] - 2024',
      '# [nope]',
      '# ![img][foo]',
      'Setext [foo]\n===',
      'Two [foo]\nlines\n---',
      '# plain',
    ];
    const defs = [
      '[foo]: /url',
      '[Foo]:\n/url',
      "[bar]: /u 'title'",
      '> [foo]: /q',
      '- [foo]: /l',
      '[foo]: <>',
      '[foo]:',
      '   [baz]: /x',
      '[1.0]: https://x/compare',
      "[bar]:\n/u\n'multi\nline'",
      '[x]: /y\n[foo]: /z',
      'para with [foo] ref',
      '[foo]\n',
      '```\n[foo]: /code\n```',
    ];
    const docs = Array.from({ length: REFS }, () => {
      const parts = Array.from({ length: 2 + Math.floor(rng() * 6) }, () =>
        rng() < 0.5 ? pick(heads) : pick(defs),
      );
      return `${parts.join(rng() < 0.8 ? '\n\n' : '\n')}\n`;
    });
    const r = compareAll(docs);
    expect(r.mismatches.join('\n')).toBe('');
    expect(r.kinds.scanner).toBeGreaterThan((REFS * 1200) / 1500);
  });

  it('keeps a long page with one footnote definition mostly on the scanner', () => {
    const pages = Array.from({ length: 40 }, (_, i) =>
      realisticDocument(500 + i, 6000).replace(/^---[\s\S]*?---\n/, ''),
    );
    pages.splice(
      20,
      0,
      'A claim that needs a source.[^1]\n\n[^1]: The source, with\n    # an indented line that is no heading\n',
    );
    const md = pages.join('\n');
    const got = outlineOf(md);
    expect(got.parser).toBe('mixed');
    expect(got.scan).toEqual(remarkOutline(md));
    expect(got.scan.headings.length).toBeGreaterThan(200);
  });
});
