import { describe, expect, it } from 'vitest';
import { chunkDocument } from './chunk.js';
import { realisticDocument } from './corpus.js';
import { buildDocument } from './document.js';

function fenceBalanced(text: string): boolean {
  return (text.match(/^```/gm) ?? []).length % 2 === 0;
}

describe('chunkDocument', () => {
  it('keeps a section that fits whole, with its subsections', () => {
    const doc = buildDocument('# A\n\nintro\n\n## B\n\nb text\n');
    const chunks = chunkDocument(doc, 1000);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ section: 0, startLine: 1, endLine: 7, oversized: false });
  });

  it('splits a large section into its own text and subsections, at blank lines', () => {
    const para = (n: number) => `${'word '.repeat(30).trim()} ${n}.`;
    const md = `# A\n\n${para(1)}\n\n${para(2)}\n\n## B\n\n${para(3)}\n\n## C\n\n${para(4)}\n`;
    const doc = buildDocument(md);
    const chunks = chunkDocument(doc, 200);
    expect(chunks.map((c) => c.section)).toEqual([0, 0, 1, 2]);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(200);
    // every non-blank line appears exactly once, in order
    const joined = chunks.map((c) => c.text).join('\n');
    expect(joined.replace(/\n+/g, '\n')).toBe(md.trim().replace(/\n+/g, '\n'));
  });

  it('keeps a short intro with the first subsections that fit instead of alone', () => {
    const body = (n: number) => 'text '.repeat(n).trim();
    const md = `# A\n\n## B\n\n${body(20)}\n\n## C\n\n${body(30)}\n`;
    const chunks = chunkDocument(buildDocument(md), 200);
    expect(chunks.map((c) => [c.section, c.startLine, c.endLine])).toEqual([
      [0, 1, 5],
      [2, 7, 9],
    ]);
    expect(chunks[0]!.text.startsWith('# A\n\n## B')).toBe(true);
  });

  it('never cuts inside a code fence or a table, flagging blocks over budget', () => {
    const fence = [
      '```js',
      ...Array.from({ length: 20 }, (_, i) => `const v${i} = ${i};`),
      '',
      'x();',
      '```',
    ].join('\n');
    const table = [
      '| a | b |',
      '| --- | --- |',
      ...Array.from({ length: 15 }, (_, i) => `| ${i} | value ${i} |`),
    ].join('\n');
    const md = `# T\n\nintro\n\n${fence}\n\nmiddle\n\n${table}\n\nend\n`;
    const chunks = chunkDocument(buildDocument(md), 200);
    const withFence = chunks.filter((c) => c.text.includes('const v0'));
    expect(withFence).toHaveLength(1);
    expect(withFence[0]!.text).toContain('x();\n```');
    expect(withFence[0]!.oversized).toBe(true);
    expect(fenceBalanced(withFence[0]!.text)).toBe(true);
    const withTable = chunks.filter((c) => c.text.includes('| 0 |'));
    expect(withTable).toHaveLength(1);
    expect(withTable[0]!.text).toContain('| 14 | value 14 |');
    expect(chunks.some((c) => c.text === 'end')).toBe(true);
  });

  it('cuts one over-long line at character boundaries without splitting emoji', () => {
    const line = '🎉'.repeat(300);
    const chunks = chunkDocument(buildDocument(`# E\n\n${line}\n`), 201);
    const pieces = chunks.filter((c) => c.text.includes('🎉'));
    expect(pieces.map((c) => c.text).join('')).toBe(line);
    for (const p of pieces) expect(p.text.length).toBeLessThanOrEqual(201);
    for (const p of pieces) expect(/^[\udc00-\udfff]/.test(p.text)).toBe(false);
  });

  it('leaves out front matter and chunks text before the first heading', () => {
    const chunks = chunkDocument(buildDocument('---\na: b\n---\n\npreamble\n\n# H\nx\n'), 500);
    expect(chunks.map((c) => [c.section, c.text])).toEqual([
      [-1, 'preamble'],
      [0, '# H\nx'],
    ]);
  });

  it('keeps fences balanced in every chunk of a realistic page', () => {
    const doc = buildDocument(realisticDocument(7, 30000));
    const chunks = chunkDocument(doc, 1500);
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) expect(fenceBalanced(c.text)).toBe(true);
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]!.startLine).toBeGreaterThan(
        chunks[i - 1]!.endLine - (chunks[i - 1]!.startLine === chunks[i - 1]!.endLine ? 1 : 0),
      );
    }
  });
});
