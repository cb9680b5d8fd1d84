import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingKey } from './lib/markdown.js';
import { analyzePage } from './lib/page.js';
import { LinkResolver } from './lib/resolve.js';
import { EXAMPLE_WIKI } from './test-helpers/wiki.js';

function pages(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

describe('the bundled example wiki', () => {
  const files = pages(EXAMPLE_WIKI).map((p) => relative(EXAMPLE_WIKI, p).split('\\').join('/'));
  const analyses = new Map(
    files.map((f) => [f, analyzePage(readFileSync(join(EXAMPLE_WIKI, f), 'utf8'))]),
  );

  it('has the LLM-wiki layout: index, log, schema and 5 to 8 topic pages', () => {
    expect(files).toEqual(expect.arrayContaining(['index.md', 'log.md', 'SCHEMA.md']));
    const topics = files.filter((f) => f.startsWith('wiki/'));
    expect(topics.length).toBeGreaterThanOrEqual(5);
    expect(topics.length).toBeLessThanOrEqual(8);
  });

  it('gives every topic page valid front matter with a title and tags', () => {
    for (const f of files.filter((x) => x.startsWith('wiki/'))) {
      const a = analyses.get(f)!;
      expect(a.structure.frontMatter?.data, f).toMatchObject({ title: expect.any(String) });
      expect(a.tags.length, f).toBeGreaterThan(0);
    }
  });

  it('uses aliases, headings, a block reference and an embed, and every link resolves', () => {
    const resolver = new LinkResolver(files);
    const all = [...analyses.entries()].flatMap(([f, a]) => a.links.map((l) => ({ f, l })));
    expect(all.some(({ l }) => l.alias !== null)).toBe(true);
    expect(all.some(({ l }) => l.fragment?.startsWith('^'))).toBe(true);
    expect(all.some(({ l }) => l.fragment !== null && !l.fragment.startsWith('^'))).toBe(true);
    expect(all.some(({ l }) => l.embed)).toBe(true);
    for (const { f, l } of all) {
      const target = resolver.resolve(l.target, f);
      expect(target, `${f}: [[${l.target}]]`).not.toBeNull();
      const ta = analyses.get(target!)!;
      if (l.fragment?.startsWith('^')) expect(ta.structure.blockIds).toContain(l.fragment.slice(1));
      else if (l.fragment) {
        expect(ta.structure.headings.map((h) => headingKey(h.text))).toContain(
          headingKey(l.fragment),
        );
      }
    }
  });
});
