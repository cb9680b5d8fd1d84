import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanMarkdown } from './markdown.js';
import { analyzePage, renderPage } from './page.js';
import { displayText, findWikiLinks, formatLink, parseLinkBody } from './wikilinks.js';

const render = (text: string) => renderPage(text, analyzePage(text));

describe('parsing', () => {
  it('splits target, fragment and alias, including the table-escaped separator', () => {
    expect(parseLinkBody('Page')).toEqual({
      target: 'Page',
      fragment: null,
      alias: null,
      separator: null,
    });
    expect(parseLinkBody('dir/Page#Head#Sub|Shown')).toEqual({
      target: 'dir/Page',
      fragment: 'Head#Sub',
      alias: 'Shown',
      separator: '|',
    });
    expect(parseLinkBody('Page\\|Alias')).toMatchObject({
      target: 'Page',
      alias: 'Alias',
      separator: '\\|',
    });
    expect(parseLinkBody('#^block')).toMatchObject({ target: '', fragment: '^block' });
    expect(parseLinkBody('  ')).toBeNull();
    expect(parseLinkBody('|alias only')).toBeNull();
  });

  it('finds links and embeds outside code only', () => {
    const text = 'a [[One]] `[[Two]]` ![[Three#H]]\n```\n[[Four]]\n```\n[[Five|x]]';
    const links = findWikiLinks(text, scanMarkdown(text).code);
    expect(links.map((l) => [l.embed, l.target, text.slice(l.start, l.end)])).toEqual([
      [false, 'One', '[[One]]'],
      [true, 'Three', '![[Three#H]]'],
      [false, 'Five', '[[Five|x]]'],
    ]);
  });

  it('round-trips a link through formatLink with a new target', () => {
    const [link] = findWikiLinks('![[old/Page#^b\\|Alias]]', []);
    expect(formatLink(link!, 'new/Place')).toBe('![[new/Place#^b\\|Alias]]');
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
