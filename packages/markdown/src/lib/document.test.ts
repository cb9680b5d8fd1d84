import { describe, expect, it } from 'vitest';
import {
  buildDocument,
  computeLineStarts,
  rootExtract,
  sectionAtLine,
  sectionExtract,
  slugsFor,
} from './document.js';

const heads = (md: string) =>
  buildDocument(md).sections.map((s) => [s.level, s.heading, s.slug, s.startLine, s.endLine]);

describe('buildDocument', () => {
  it('recognises ATX and setext headings and ignores headings in fences, HTML and quotes', () => {
    const md = [
      'Guide', //1
      '=====', //2
      '', //3
      '```sh', //4
      '# not a heading', //5
      '```', //6
      '', //7
      '<div>', //8
      '# not one either', //9
      '</div>', //10
      '', //11
      '> # quoted heading is no section', //12
      '', //13
      'Install', //14
      '-------', //15
      'text', //16
      '### Linux ###', //17
      'apt', //18
    ].join('\n');
    expect(heads(md)).toEqual([
      [1, 'Guide', 'guide', 1, 18],
      [2, 'Install', 'install', 14, 18],
      [3, 'Linux', 'linux', 17, 18],
    ]);
  });

  it('numbers duplicate headings like GitHub and keeps heading paths', () => {
    const doc = buildDocument('# FAQ\n## Install\n### Example\n## Install\n### Example\n');
    expect(doc.sections.map((s) => s.slug)).toEqual([
      'faq',
      'install',
      'example',
      'install-1',
      'example-1',
    ]);
    expect(doc.sections[4]!.headingPath).toEqual(['FAQ', 'Install', 'Example']);
    expect(doc.sections[3]!.parent).toBe(0);
  });

  it('ends a section at the next heading of the same or higher level, trimming blank lines', () => {
    const doc = buildDocument('# A\n\nintro\n\n## B\n\nbody\n\n\n## C\nc\n# D\n');
    const [a, b, c] = doc.sections;
    expect([a!.startLine, a!.endLine, a!.ownEndLine]).toEqual([1, 11, 3]);
    expect([b!.startLine, b!.endLine]).toEqual([5, 7]);
    expect(sectionExtract(doc, b!, true).content).toBe('## B\n\nbody');
    expect(sectionExtract(doc, a!, false).content).toBe('# A\n\nintro');
    expect(sectionExtract(doc, c!, true).content).toBe('## C\nc');
  });

  it('skips YAML front matter and reports its lines', () => {
    const doc = buildDocument('---\ntitle: x\n# not a heading\n---\n# Real\n');
    expect(doc.frontMatter).toEqual({ startLine: 1, endLine: 4 });
    expect(doc.sections.map((s) => [s.heading, s.startLine])).toEqual([['Real', 5]]);
  });

  it('handles CRLF line endings without leaking CR into text or content', () => {
    const doc = buildDocument('# Title\r\n\r\nbody\r\n\r\nSub\r\n---\r\nmore\r\n');
    expect(doc.sections.map((s) => [s.heading, s.startLine, s.endLine])).toEqual([
      ['Title', 1, 7],
      ['Sub', 5, 7],
    ]);
    expect(sectionExtract(doc, doc.sections[1]!, true).content).toBe('Sub\r\n---\r\nmore');
    expect(doc.totalLines).toBe(7);
  });

  it('treats an empty document and one without headings as a root only', () => {
    const empty = buildDocument('');
    expect(empty.totalLines).toBe(0);
    expect(empty.sections).toEqual([]);
    expect(rootExtract(empty, true).content).toBe('');
    const plain = buildDocument('just text\nand more\n');
    expect(plain.sections).toEqual([]);
    expect(plain.title).toBeNull();
    expect(rootExtract(plain, false).content).toBe('just text\nand more');
  });

  it('strips a BOM and names heading text without slug characters "section"', () => {
    const doc = buildDocument('\ufeff# 🎉\n# 🎉\n# Section\n');
    expect(doc.text.startsWith('#')).toBe(true);
    expect(doc.sections.map((s) => s.slug)).toEqual(['section', 'section-1', 'section-2']);
  });

  it('keeps CJK and emoji in slugs and text', () => {
    expect(slugsFor(['安装 Lectern 🎉', 'Hello, World!'])).toEqual([
      '安装-lectern-',
      'hello-world',
    ]);
  });

  it('finds the innermost section enclosing a line', () => {
    const doc = buildDocument('pre\n# A\n## B\nx\n# C\n');
    expect(sectionAtLine(doc, 1)).toBeNull();
    expect(sectionAtLine(doc, 4)!.heading).toBe('B');
    expect(sectionAtLine(doc, 5)!.heading).toBe('C');
  });

  it('resolves reference links in headings against definitions anywhere in the document', () => {
    const doc = buildDocument('# A [link][x]\n\n## [1.0] - 2024\n\n[x]: /url\n[1.0]: /compare\n');
    expect(doc.parser).toBe('scanner');
    expect(doc.sections.map((s) => s.heading)).toEqual(['A link', '1.0 - 2024']);
    expect(buildDocument('# [not a link]\n\n[x]: /url\n').sections[0]!.heading).toBe(
      '[not a link]',
    );
  });

  it('uses remark for documents the scanner hands back, with the same result shape', () => {
    // a footnote definition is a container the scanner does not model
    const md = '# A\n\n[^1]: note\n    # inside?\n\nB\n===\n';
    const doc = buildDocument(md);
    expect(doc.parser).toBe('mixed');
    expect(doc.exact).toBe(true);
    expect(doc.sections.map((s) => [s.heading, s.startLine])).toEqual([
      ['A', 1],
      ['B', 6],
    ]);
    expect(buildDocument(md, { forceRemark: true }).sections).toEqual(doc.sections);
    expect(buildDocument('# A\n').parser).toBe('scanner');
  });

  it('decides lone CR line endings, NUL and unclosed front matter itself, as remark does', () => {
    for (const md of ['# A\rB\n===\n', '# A\0\n- b\0\n', '---\ntitle: x\n# A\n- b\n']) {
      const doc = buildDocument(md);
      expect(doc.parser).toBe('scanner');
      expect(doc.exact).toBe(true);
      const ref = buildDocument(md, { forceRemark: true });
      expect(doc.sections).toEqual(ref.sections);
      expect(doc.blocks).toEqual(ref.blocks);
    }
    expect(buildDocument('# A\0\n').sections[0]!.heading).toBe('A\uFFFD');
  });
});

describe('computeLineStarts', () => {
  it('follows CommonMark line endings', () => {
    expect(computeLineStarts('a\nb\r\nc\rd')).toEqual([0, 2, 5, 7]);
    expect(computeLineStarts('a\n')).toEqual([0]);
    expect(computeLineStarts('')).toEqual([]);
  });
});
