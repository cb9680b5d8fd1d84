import { describe, expect, it } from 'vitest';
import { findWikiLinks, formatWikiLink, parseWikiLinkBody } from './wikilinks.js';

describe('parsing', () => {
  it('splits target, fragment and alias, including the table-escaped separator', () => {
    expect(parseWikiLinkBody('Page')).toEqual({
      target: 'Page',
      fragment: null,
      alias: null,
      separator: null,
    });
    expect(parseWikiLinkBody('dir/Page#Head#Sub|Shown')).toEqual({
      target: 'dir/Page',
      fragment: 'Head#Sub',
      alias: 'Shown',
      separator: '|',
    });
    expect(parseWikiLinkBody('Page\\|Alias')).toMatchObject({
      target: 'Page',
      alias: 'Alias',
      separator: '\\|',
    });
    expect(parseWikiLinkBody('#^block')).toMatchObject({ target: '', fragment: '^block' });
    expect(parseWikiLinkBody('  ')).toBeNull();
    expect(parseWikiLinkBody('|alias only')).toBeNull();
  });

  it('finds links and embeds outside code only', () => {
    const text = 'a [[One]] `[[Two]]` ![[Three#H]]\n```\n[[Four]]\n```\n[[Five|x]]';
    const code = [
      { start: text.indexOf('`'), end: text.indexOf('`', text.indexOf('`') + 1) + 1 },
      { start: text.indexOf('```'), end: text.lastIndexOf('```') + 4 },
    ];
    const links = findWikiLinks(text, code);
    expect(links.map((l) => [l.embed, l.target, text.slice(l.start, l.end)])).toEqual([
      [false, 'One', '[[One]]'],
      [true, 'Three', '![[Three#H]]'],
      [false, 'Five', '[[Five|x]]'],
    ]);
  });

  it('round-trips a link through formatLink with a new target', () => {
    const [link] = findWikiLinks('![[old/Page#^b\\|Alias]]', []);
    expect(formatWikiLink(link!, 'new/Place')).toBe('![[new/Place#^b\\|Alias]]');
  });
});
