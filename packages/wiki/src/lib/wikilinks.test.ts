import { findWikiLinks } from '@lectern/markdown';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanMarkdown } from './markdown.js';
import { analyzePage, renderPage } from './page.js';
import { displayText } from './wikilinks.js';

const render = (text: string) => renderPage(text, analyzePage(text));

describe('parsing', () => {
  it('finds links and embeds outside code only', () => {
    const text = 'a [[One]] `[[Two]]` ![[Three#H]]\n```\n[[Four]]\n```\n[[Five|x]]';
    const links = findWikiLinks(text, scanMarkdown(text).code);
    expect(links.map((l) => [l.embed, l.target, text.slice(l.start, l.end)])).toEqual([
      [false, 'One', '[[One]]'],
      [true, 'Three', '![[Three#H]]'],
      [false, 'Five', '[[Five|x]]'],
    ]);
  });
});

describe('rendering', () => {
  it('shows aliases, page names, heading paths and embed markers', () => {
    expect(
      render(
        '[[Page]] [[dir/Page.md]] [[Page|Alias]] [[Page#A#B]] [[#Local]] [[Page#^blk]] ![[img.png|300]] ![[Note#Sec]]',
      ),
    ).toBe('Page Page Alias Page > A > B Local Page > ^blk [embed: img.png] [embed: Note > Sec]');
  });

  it('keeps code as written and hides block ids outside code', () => {
    const text = 'Step one ^s1\n`[[raw]] ^x`\n```\n[[kept]] ^kept\n```\n^alone\n';
    expect(render(text)).toBe('Step one\n`[[raw]] ^x`\n```\n[[kept]] ^kept\n```\n\n');
  });

  it('leaves an unclosed [[ as written, like Obsidian', () => {
    expect(render('see [[unclosed and [[]] here')).toBe('see [[unclosed and [[]] here');
  });

  it('uses the alias of an embed unless it is an image size', () => {
    const [a] = findWikiLinks('![[Page|Shown]]', []);
    const [b] = findWikiLinks('![[pic.jpg|100x200]]', []);
    expect(displayText(a!)).toBe('[embed: Shown]');
    expect(displayText(b!)).toBe('[embed: pic.jpg]');
  });

  it('never changes the number of lines and leaves no wikilink outside code (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '[[Page]]',
        '[[a/b|c]]',
        '![[x#y]]',
        '[[p#^id]]',
        '`[[code]]`',
        '[[',
        ']]',
        '[',
        ']',
        '|',
        '#',
        '`',
        '\n',
        '\r\n',
        ' ',
        'text',
        ' ^id\n',
        '\n```\n',
      ),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const out = render(text);
        expect(out.split('\n').length).toBe(text.split('\n').length);
        expect(findWikiLinks(out, scanMarkdown(out).code)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('renders nested brackets down to plain text', () => {
    expect(render('[[[[a]]]]')).toBe('a');
  });
});
