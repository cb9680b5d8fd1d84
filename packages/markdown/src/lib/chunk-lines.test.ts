import { describe, expect, test } from 'vitest';
import { chunkLines, isMarkdownPath } from './chunk-lines.js';

const split = (text: string) => text.split('\n');

describe('chunkLines', () => {
  test('one chunk per section, with heading paths and 1-based inclusive ranges', () => {
    const lines = split(
      '# Top\n\nintro text\n\n## Child\n\nchild text\n\n### Grandchild\n\ndeep text\n\n## Second\n\nsecond text',
    );
    const chunks = chunkLines(lines);
    expect(chunks.map((c) => [c.startLine, c.endLine, c.headingPath])).toEqual([
      [1, 3, 'Top'],
      [5, 7, 'Top > Child'],
      [9, 11, 'Top > Child > Grandchild'],
      [13, 15, 'Top > Second'],
    ]);
    expect(chunks[1]!.text).toBe('## Child\n\nchild text');
    // Ranges are exact slices of the input.
    for (const c of chunks) expect(lines.slice(c.startLine - 1, c.endLine).join('\n')).toBe(c.text);
  });

  test('text before the first heading has an empty heading path', () => {
    const chunks = chunkLines(split('preamble\n\n# Title\n\nbody'));
    expect(chunks.map((c) => c.headingPath)).toEqual(['', 'Title']);
  });

  test('long sections split at paragraphs, never above the word limit', () => {
    const para = (n: number) => Array.from({ length: 40 }, (_, i) => `w${n}x${i}`).join(' ');
    const text = ['# Long', '', ...Array.from({ length: 10 }, (_, i) => [para(i), '']).flat()].join(
      '\n',
    );
    const chunks = chunkLines(split(text), { maxWords: 100 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.text.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(100);
      expect(c.headingPath).toBe('Long');
    }
    // Contiguous coverage of every paragraph line.
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]!.startLine).toBeGreaterThan(chunks[i - 1]!.endLine);
    }
  });

  test('a single paragraph longer than the limit is cut between lines', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i} has five words`);
    const chunks = chunkLines(lines, { maxWords: 50 });
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 10],
      [11, 20],
      [21, 30],
    ]);
  });

  test('headings inside fenced code are not headings; fences stay whole', () => {
    const lines = split('# Real\n\n```sh\n# not a heading\necho hi\n\n# still code\n```\n\nafter');
    const chunks = chunkLines(lines);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ startLine: 1, endLine: 10, headingPath: 'Real' });
  });

  test('setext headings, closing hashes and emphasis are understood', () => {
    const chunks = chunkLines(
      split('Title\n=====\n\nbody\n\nSub *part*\n---\n\nmore\n\n## Closed ##\n\nend'),
    );
    expect(chunks.map((c) => c.headingPath)).toEqual([
      'Title',
      'Title > Sub part',
      'Title > Closed',
    ]);
    expect(chunks[0]).toMatchObject({ startLine: 1, endLine: 4 });
  });

  test("headings are the outline's: not in lists, quotes, HTML or indented code", () => {
    const chunks = chunkLines(
      split(
        '# Top\n\n- # listed\n\n> # quoted\n\n<div>\n# in html\n</div>\n\n    # indented code\n\n## Next\n\nbody',
      ),
    );
    expect(chunks.map((c) => c.headingPath)).toEqual(['Top', 'Top > Next']);
  });

  test('front matter is its own block and does not become a heading', () => {
    const chunks = chunkLines(split('---\ntitle: x\ntags: [a]\n---\n\n# Heading\n\ntext'));
    expect(chunks.map((c) => [c.startLine, c.endLine, c.headingPath])).toEqual([
      [1, 4, ''],
      [6, 8, 'Heading'],
    ]);
  });

  test('plain text ignores Markdown syntax', () => {
    const chunks = chunkLines(split('# not a heading in txt\n\nsecond paragraph'), {
      markdown: false,
    });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.headingPath).toBe('');
  });

  test('blank input gives no chunks', () => {
    expect(chunkLines([])).toEqual([]);
    expect(chunkLines(['', '   ', ''])).toEqual([]);
  });

  test('isMarkdownPath', () => {
    expect(isMarkdownPath('a/b.md')).toBe(true);
    expect(isMarkdownPath('B.MARKDOWN')).toBe(true);
    expect(isMarkdownPath('notes.txt')).toBe(false);
  });
});
