import { createRequire } from 'node:module';
import { bySize } from '@lectern/core/testing';
import { describe, expect, it } from 'vitest';
import { createRng, realisticDocument, tortureDocument } from './corpus.js';
import type { OutlineScan } from './headings.js';
import { remarkHeadingText, remarkOutline } from './remark.js';
import { scanOutline, simpleInlineText } from './scanner.js';

const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as {
  tests: Array<{ markdown: string; section: string; number: number }>;
};

// The spec writes tabs as '→'.
const examples = spec.tests.map((t) => ({ ...t, markdown: t.markdown.replace(/→/g, '\t') }));

/** Compares the scanner with remark on each input; returns mismatches and the fallback count. */
function compare(inputs: Iterable<{ name: string; markdown: string }>) {
  const mismatches: string[] = [];
  let fellBack = 0;
  let total = 0;
  let headings = 0;
  for (const { name, markdown } of inputs) {
    total++;
    const fast: OutlineScan | null = scanOutline(markdown);
    if (fast === null) {
      fellBack++;
      continue;
    }
    const ref = remarkOutline(markdown);
    headings += ref.headings.length;
    if (JSON.stringify(fast) !== JSON.stringify(ref)) {
      mismatches.push(
        `${name} ${JSON.stringify(markdown)}\n  scanner ${JSON.stringify(fast)}\n  remark  ${JSON.stringify(ref)}`,
      );
    }
  }
  return { mismatches, fellBack, total, headings };
}

describe('scanOutline is identical to remark', () => {
  it('on every example of the CommonMark spec (level, text, start and end line)', () => {
    expect(examples.length).toBe(652);
    const r = compare(examples.map((e) => ({ name: `#${e.number} (${e.section})`, ...e })));
    expect(r.mismatches.join('\n')).toBe('');
    // it decides nearly all of them itself; the rest go to remark
    expect(r.fellBack).toBeLessThan(20);
    expect(r.headings).toBeGreaterThan(40);
  });

  const TORTURE = bySize(400, 3000);
  it(`on ${TORTURE} generated torture documents mixing containers, fences, HTML and tables`, () => {
    const rng = createRng(20241);
    const docs = Array.from({ length: TORTURE }, (_, i) => ({
      name: `torture ${i}`,
      markdown: tortureDocument(rng),
    }));
    const r = compare(docs);
    expect(r.mismatches.join('\n')).toBe('');
    expect(r.fellBack).toBeLessThan(r.total * 0.15);
    expect(r.headings).toBeGreaterThan((TORTURE * 700) / 3000);
  });

  it('on a generated corpus of realistic documentation pages', () => {
    const docs = Array.from({ length: 30 }, (_, i) => ({
      name: `page ${i}`,
      markdown: realisticDocument(1000 + i, 4000),
    }));
    const r = compare(docs);
    expect(r.mismatches.join('\n')).toBe('');
    expect(r.fellBack).toBe(0);
    expect(r.headings).toBeGreaterThan(100);
  });
});

describe('scanOutline hands documents it cannot decide to remark', () => {
  it.each([
    ['footnote definitions', '# A\n\n[^1]: note\n    # inside?\n'],
    ['a possible definition cut short by a heading', '[a]: /url "t\n# B\n'],
  ])('%s', (_name, markdown) => {
    expect(scanOutline(markdown)).toBeNull();
  });

  it('still decides ordinary documents with link lists and code', () => {
    const md =
      '# Guide\n\n- [Install](install.md)\n- [Use](use.md)\n\n```sh\n# not a heading\n```\n';
    expect(scanOutline(md)).toEqual(remarkOutline(md));
  });
});

describe('simpleInlineText', () => {
  it.each([
    ['plain words', 'plain words'],
    ['  padded\t', 'padded'],
    ['with `code` span', 'with code span'],
    ['``a ` b``', 'a ` b'],
    ['` `', ' '],
    ['unmatched `tick', 'unmatched `tick'],
    ['\\# escaped \\*', '# escaped *'],
    ['back\\slash', 'back\\slash'],
    ['snake_case_name', 'snake_case_name'],
    ['a * b', 'a * b'],
    ['Tom & Jerry', 'Tom & Jerry'],
    ['emoji 🎉 中文', 'emoji 🎉 中文'],
  ])('%j -> %j', (input, expected) => {
    expect(simpleInlineText(input)).toBe(expected);
  });

  it.each([
    ['*em* and **strong**', 'em and strong'],
    ['_under_ score_name', 'under score_name'],
    ['***a** b*', 'a b'],
    ['**a*', '*a'],
    ['\\**a*', '*a'],
  ])('resolves emphasis %j -> %j like micromark', (input, expected) => {
    expect(simpleInlineText(input)).toBe(expected);
  });

  it.each(['[link](x)', 'a <b>', '&amp;', '~~del~~', 'x\0y', '*a* www.x.com'])(
    'needs the full inline parser for %j',
    (input) => {
      expect(simpleInlineText(input)).toBeNull();
    },
  );
});

describe('simpleInlineText against remark', () => {
  const STRINGS = bySize(1000, 5000);
  it(`gives remark’s heading text for ${STRINGS} random strings of delimiters, escapes and code`, () => {
    const rng = createRng(77);
    const alphabet = [
      'a',
      'b',
      ' ',
      '*',
      '*',
      '_',
      '_',
      '`',
      '\\',
      '.',
      '!',
      '🎉',
      '中',
      '(',
      ')',
      '**',
      '__',
      '***',
      'x',
      '-',
      '"',
      'é',
      '~',
      ' ~ ',
      '&',
      '\\*',
      '\\_',
      '\\~',
      '``',
      ' ` ',
      '1',
      '_a_',
      '*a*',
      '\t',
    ];
    const mismatches: string[] = [];
    let decided = 0;
    for (let k = 0; k < STRINGS; k++) {
      const len = 1 + Math.floor(rng() * 16);
      let s = '';
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(rng() * alphabet.length)];
      const fast = simpleInlineText(s);
      if (fast === null) continue;
      decided++;
      const ref = remarkHeadingText(`# ${s}`);
      if (fast !== ref)
        mismatches.push(`${JSON.stringify(s)}: ${JSON.stringify(fast)} vs ${JSON.stringify(ref)}`);
    }
    expect(mismatches).toEqual([]);
    expect(decided).toBeGreaterThan(STRINGS * 0.7);
  });
});
