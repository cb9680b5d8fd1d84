import { buildDocument } from '@lectern/markdown';
import { describe, expect, it } from 'vitest';
import { COMMON_SHARE, queryTerms, scoreAll } from './rank.js';
import { buildSearchData } from './search.js';

/** Headings of the units `query` ranks, best first, over the given Markdown documents. */
function ranked(texts: string[], query: string): string[] {
  const docs = texts.map((t) => buildDocument(t));
  const datas = docs.map((d) => buildSearchData(d));
  const terms = queryTerms(query, [...new Set(datas.map((d) => d.language))]);
  return scoreAll(datas, terms)
    .sort((a, b) => b.score - a.score)
    .map((h) => {
      const unit = datas[h.doc]!.units[h.unit]!;
      return unit.section === -1 ? '(preamble)' : docs[h.doc]!.sections[unit.section]!.heading;
    });
}

const FAQ = `# Sync FAQ

## How much storage do I have?

How much you have depends on your plan. How do I see it? Open the settings and look at how much
of it you use; when do I get more? When you upgrade. How do I upgrade? From the account page.

## How do I reset my password?

Open the account page, choose the password and how you want to get the reset link.
`;

const SYNTAX = `# Formatting syntax

## Tables

Use pipes to separate the columns of a table and a line of dashes under the header.

## Footnotes

Add a marker like [^1] where the note belongs, then write the note anywhere in the page.

## Callouts

A callout is a quote block whose first line names its type.
`;

describe('queryTerms', () => {
  it('drops stop words while other words are left, and keeps them when alone', () => {
    expect(queryTerms('How do I add a footnote?', ['en']).map((t) => t.stems.en)).toEqual([
      'add',
      'footnot',
    ]);
    expect(queryTerms('how do I', ['en']).map((t) => t.surface)).toEqual(['how', 'do', 'i']);
  });

  it('stems a word in every language searched and reads prefixes', () => {
    const [t] = queryTerms('pruebas', ['en', 'es']);
    expect(t!.stems).toEqual({ en: 'prueba', es: 'prueb' });
    expect(queryTerms('config*', ['en'])).toMatchObject([{ kind: 'prefix', surface: 'config' }]);
  });
});

describe('scoreAll', () => {
  it('ranks the section titled by the topic above a FAQ entry sharing only question words', () => {
    const order = ranked([FAQ, SYNTAX], 'How do I add a footnote?');
    expect(order[0]).toBe('Footnotes');
    expect(order).not.toContain('How much storage do I have?');
  });

  it('matches word forms through the stems', () => {
    expect(ranked([SYNTAX], 'separating columns')[0]).toBe('Tables');
    expect(ranked([SYNTAX], 'footnote')[0]).toBe('Footnotes');
  });

  it('weighs a word in a heading above the same word in a body', () => {
    const text = `# Guide\n\n## Caching\n\nKeeps parses.\n\n## Timeouts\n\nRequests stop early; caching is not involved here at all.\n`;
    expect(ranked([text], 'caching')).toEqual(['Caching', 'Timeouts']);
  });

  it('counts the headings above a section: a subsection of the topic beats a passing mention', () => {
    const text = `# Guide\n\n## Footnotes\n\nOverview.\n\n### Numbering\n\nNumbers restart on every page.\n\n## Pages\n\nA page numbering footnote is rare.\n`;
    const order = ranked([text], 'footnote numbering');
    expect(order[0]).toBe('Numbering');
  });

  it(`leaves out a term held by more than ${COMMON_SHARE * 100}% of the units while a rarer one is asked`, () => {
    const sections = Array.from(
      { length: 12 },
      (_, i) =>
        `## Part ${i}\n\nIn this part of the book we write Rust code ${i === 5 ? 'that passes a closure to a function' : 'that the compiler checks for us'}.\n`,
    );
    const text = `# Book\n\n${sections.join('\n')}`;
    const datas = [buildSearchData(buildDocument(text))];
    expect(datas[0]!.language).toBe('en');
    const both = scoreAll(datas, queryTerms('rust closure', ['en']));
    expect(both).toHaveLength(1);
    const alone = scoreAll(datas, queryTerms('rust', ['en']));
    expect(alone.length).toBe(12);
  });
});
