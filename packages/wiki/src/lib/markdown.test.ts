import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { headingKey, inSpans, lineAt, lineStartsOf, scanMarkdown } from './markdown.js';

const codeText = (text: string) => scanMarkdown(text).code.map((s) => text.slice(s.start, s.end));

describe('scanMarkdown', () => {
  it('finds front matter and parses it as YAML', () => {
    const s = scanMarkdown('---\ntitle: Hello\ntags: [a, b]\n---\n# Body\n');
    expect(s.frontMatter?.data).toEqual({ title: 'Hello', tags: ['a', 'b'] });
    expect(s.headings).toEqual([{ level: 1, text: 'Body', source: 'Body', line: 5 }]);
  });

  it('treats invalid YAML as front matter without data, and unclosed --- as no front matter', () => {
    expect(scanMarkdown('---\n: : :\n  - [\n---\nx').frontMatter?.data).toBeNull();
    expect(scanMarkdown('---\ntitle: x\nno end').frontMatter).toBeNull();
  });

  it('marks fenced code (backticks, tildes, longer closers, unclosed to the end)', () => {
    const text = 'a\n```js\n[[x]]\n```\nb\n~~~~\n[[y]]\n~~~\nstill code\n~~~~~\nc\n````\nopen';
    expect(codeText(text)).toEqual([
      '```js\n[[x]]\n```\n',
      '~~~~\n[[y]]\n~~~\nstill code\n~~~~~\n',
      '````\nopen',
    ]);
  });

  it('marks indented code only where it cannot be a paragraph or list continuation', () => {
    const text = 'para\n    continued\n\n    code line\n\n- item\n\n    list paragraph\n';
    expect(codeText(text)).toEqual(['    code line\n']);
  });

  it('marks inline code spans with matching backtick runs, not escaped ones', () => {
    const text = 'a `one` b ``two ` still`` c \\`not` d `never closed';
    expect(codeText(text)).toEqual(['`one`', '``two ` still``', '` d `']);
  });

  it('finds ATX and setext headings, not inside code', () => {
    const s = scanMarkdown('Title\n=====\n\n## Sub ##\n```\n# not\n```\nPart\n---\n');
    expect(s.headings.map((h) => [h.level, h.text, h.line])).toEqual([
      [1, 'Title', 1],
      [2, 'Sub', 4],
      [2, 'Part', 8],
    ]);
  });

  it('reads headings as docs_outline does: top level only, plain text, Markdown kept as source', () => {
    const s = scanMarkdown(
      '# *Install* now\n\n- # in a list\n\n> # in a quote\n\n<div>\n# in HTML\n</div>\n\nSetext\nover two\n---\n',
    );
    expect(s.headings.map((h) => [h.level, h.text, h.source, h.line])).toEqual([
      [1, 'Install now', '*Install* now', 1],
      [2, 'Setext\nover two', 'Setext over two', 11],
    ]);
  });

  it('collects block ids and inline tags outside code', () => {
    const s = scanMarkdown(
      'Line one ^abc-1\n\n#tag and #nested/tag, #123 `#code` [[Page#Heading]]\n',
    );
    expect(s.blockIds).toEqual(['abc-1']);
    expect(s.inlineTags.sort()).toEqual(['nested/tag', 'tag']);
  });

  it('agrees with remark on code for a corpus of typical pages', () => {
    const corpus = [
      'Intro `code` and ``double `tick` span``.\n\n```\nfence [[a]]\n```\n\n    indented\n',
      '> quote\n> ```\n> [[in quote fence]]\n> ```\n\ntext `x`\n',
      '- list\n  ```\n  fenced in list\n  ```\n- next `y`\n',
      '---\ntitle: t\n---\n# H\n\nPara with `a` then `b`.\n\n~~~python\nprint(1)\n~~~\n',
    ];
    const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']);
    for (const text of corpus) {
      const tree = processor.parse(text);
      const expected: string[] = [];
      // remark positions cover the code node from its first marker to its last.
      const visit = (node: {
        type: string;
        children?: unknown[];
        position?: { start: { offset?: number }; end: { offset?: number } };
      }) => {
        if ((node.type === 'code' || node.type === 'inlineCode') && node.position) {
          expected.push(text.slice(node.position.start.offset!, node.position.end.offset!));
        }
        for (const c of node.children ?? []) visit(c as typeof node);
      };
      visit(tree as never);
      const spans = scanMarkdown(text).code;
      expect(spans.length).toBe(expected.length);
      for (const e of expected) {
        const at = text.indexOf(e);
        expect(inSpans(spans, at), `start of ${JSON.stringify(e)}`).toBe(true);
        expect(inSpans(spans, at + e.length - 1), `end of ${JSON.stringify(e)}`).toBe(true);
      }
    }
  });
});

describe('helpers', () => {
  it('maps offsets to lines and spans', () => {
    const starts = lineStartsOf('a\nbb\n\nc');
    expect(starts).toEqual([0, 2, 5, 6]);
    expect([0, 1, 2, 4, 5, 6].map((o) => lineAt(starts, o))).toEqual([1, 1, 2, 2, 3, 4]);
    expect(inSpans([{ start: 2, end: 4 }], 3)).toBe(true);
    expect(inSpans([{ start: 2, end: 4 }], 4)).toBe(false);
  });

  it('normalises heading keys like link fragments', () => {
    expect(headingKey('Signs of a  coming: swarm')).toBe(headingKey('signs of a coming  swarm'));
  });
});
