import { describe, expect, it } from 'vitest';
import { proseOf } from './prose.js';

describe('proseOf', () => {
  it('leaves out fence lines and their info strings, keeping the code', () => {
    const md = [
      'Run it:',
      '',
      '```rust,ignore,does_not_compile',
      'let x = compile_me();',
      '```',
      '',
      '~~~~ console',
      '$ cargo run',
      '~~~~',
      'After.',
    ].join('\n');
    const out = proseOf(md);
    expect(out).toContain('let x = compile_me();');
    expect(out).toContain('$ cargo run');
    expect(out).toContain('After.');
    expect(out).not.toMatch(/ignore|does_not_compile|console|```|~~~/);
  });

  it('does not close a fence on a shorter or different fence, nor on one with text after it', () => {
    const md = ['````', '```', '~~~', '```` not a close', 'still code', '````', 'prose'].join('\n');
    expect(proseOf(md).split('\n')).toEqual([
      '```',
      '~~~',
      '```` not a close',
      'still code',
      'prose',
    ]);
  });

  it('leaves out HTML comments, on one line or across lines', () => {
    const md = 'Before <!-- hidden one --> after.\n<!-- hidden\ntwo -->\nShown.';
    const out = proseOf(md);
    expect(out).toContain('Before');
    expect(out).toContain('after.');
    expect(out).toContain('Shown.');
    expect(out).not.toMatch(/hidden|two/);
  });

  it('leaves out tags and their attributes but keeps the text between them and shown values', () => {
    const md = [
      '<Listing number="16-12" file-name="src/main.rs" caption="Exploring the mutex API">',
      '<a id="old-anchor-words"></a>',
      'Press <kbd>ctrl</kbd>-<kbd>C</kbd> to stop. <img src="pic.png" alt="A ferris crab">',
      '</Listing>',
    ].join('\n');
    const out = proseOf(md);
    expect(out).toContain('Exploring the mutex API');
    expect(out).toContain('ctrl');
    expect(out).toContain('A ferris crab');
    expect(out).toContain('to stop.');
    expect(out).not.toMatch(/Listing|number|16-12|file-name|main\.rs|old-anchor|kbd|pic\.png|src=/);
  });

  it('keeps type parameters in prose and everything inside code spans', () => {
    const md = 'A Vec<T> or HashMap<K, V>; `<b>bold</b>` and `](not/a/link)` stay.';
    expect(proseOf(md)).toBe(md);
  });

  it('keeps link text, leaving out destinations and reference definitions', () => {
    const md = [
      'See [the guide](https://example.com/guide.html "Guide title") and ![a chart](img/chart.png).',
      'Also [the book][book].',
      '',
      '[book]: https://example.com/book/index.html',
    ].join('\n');
    const out = proseOf(md);
    expect(out).toContain('[the guide]');
    expect(out).toContain('![a chart]');
    expect(out).toContain('[the book][book]');
    expect(out).not.toMatch(/example\.com|guide\.html|chart\.png|index\.html|Guide title/);
  });

  it('returns text without markup unchanged', () => {
    const md = '# Title\n\nPlain words, and more words.\n';
    expect(proseOf(md)).toBe(md);
  });
});
