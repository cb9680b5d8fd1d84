import { buildDocument } from '@lectern/markdown';
import { describe, expect, it } from 'vitest';
import { buildSearchData, contentTokens, scoreAll, snippet, stem, tokenize } from './search.js';

describe('tokenize and stem', () => {
  it('folds common English endings onto one stem', () => {
    const s = ['install', 'installs', 'installing', 'installed', 'installation'].map(stem);
    expect(new Set(s).size).toBe(1);
    expect(stem('configure')).toBe(stem('configuration'));
  });

  it('splits CJK into characters and keeps other scripts as words', () => {
    expect(tokenize('安装 Lectern の設定 Ünïcode')).toEqual([
      '安',
      '装',
      'lectern',
      'の',
      '設',
      '定',
      'ünïcod',
    ]);
  });

  it('drops question words from topic queries', () => {
    expect(contentTokens('How do I rotate the tokens?')).toEqual(['rotat', 'token']);
    expect(contentTokens('the')).toEqual(['the']);
  });
});

describe('scoreAll', () => {
  const doc = buildDocument(
    '# Cache\n\nThe cache keeps parses.\n\n## Timeout\n\nRequests time out after 30 s; the cache is unaffected.\n\n## Other\n\nNothing here.\n',
  );
  const data = buildSearchData(doc);

  it('ranks sections with every query word first and weighs headings', () => {
    const hits = scoreAll([data], tokenize('cache timeout'), { head: 3, body: 1 }).sort(
      (a, b) => b.score - a.score,
    );
    const top = data.units[hits[0]!.unit]!;
    expect(doc.sections[top.section]!.heading).toBe('Timeout');
    expect(hits.every((h) => h.score > 0)).toBe(true);
    expect(hits).toHaveLength(2);
  });

  it('makes a snippet around the first match', () => {
    const unit = data.units.find((u) => u.section === 1)!;
    expect(snippet(doc, unit, 'unaffected', 'Timeout')).toContain('unaffected');
  });
});
