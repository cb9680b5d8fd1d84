import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './diff.js';

/**
 * Applies a unified diff produced by unifiedDiff to `before`, strictly (context and removed
 * lines must match). A line followed by the no-newline marker is the last line of its side.
 */
function applyDiff(before: string, diff: string): string {
  if (diff === '') return before;
  const NOEOL = '\u0000';
  const split = (t: string) => {
    if (t === '') return [];
    const nl = t.endsWith('\n');
    const ls = (nl ? t.slice(0, -1) : t).split('\n');
    if (!nl) ls[ls.length - 1] += NOEOL;
    return ls;
  };
  const lines = split(before);
  const rows = diff.split('\n').slice(2);
  if (rows.at(-1) === '') rows.pop();
  const parsed: Array<{ kind: string; text: string } | { hunk: number; empty: boolean }> = [];
  for (const row of rows) {
    const h = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(row);
    if (h) parsed.push({ hunk: Number(h[1]), empty: Number(h[2]) === 0 });
    else if (row === '\\ No newline at end of file') {
      const last = parsed.at(-1) as { text: string };
      last.text += NOEOL;
    } else parsed.push({ kind: row[0]!, text: row.slice(1) });
  }
  const out: string[] = [];
  let cursor = 0;
  for (const p of parsed) {
    if ('hunk' in p) {
      const start = p.empty ? p.hunk : p.hunk - 1;
      while (cursor < start) out.push(lines[cursor++]!);
    } else if (p.kind === '+') {
      out.push(p.text);
    } else {
      expect(lines[cursor]).toBe(p.text);
      cursor++;
      if (p.kind === ' ') out.push(p.text);
    }
  }
  while (cursor < lines.length) out.push(lines[cursor++]!);
  return out.map((l) => (l.endsWith(NOEOL) ? l.slice(0, -1) : `${l}\n`)).join('');
}

describe('unifiedDiff', () => {
  it('writes standard headers and hunks with context', () => {
    const a = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n';
    const b = 'one\ntwo\nthree\nFOUR\nfive\nsix\nseven\neight\n';
    expect(unifiedDiff('p.md', 'p.md', a, b)).toBe(
      '--- a/p.md\n+++ b/p.md\n@@ -1,7 +1,7 @@\n one\n two\n three\n-four\n+FOUR\n five\n six\n seven\n',
    );
  });

  it('uses /dev/null for created and deleted files and marks a missing final newline', () => {
    expect(unifiedDiff(null, 'n.md', null, 'x\ny')).toBe(
      '--- /dev/null\n+++ b/n.md\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n',
    );
    expect(unifiedDiff('o.md', null, 'x\n', null)).toBe(
      '--- a/o.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n',
    );
    expect(unifiedDiff('p', 'p', 'same', 'same')).toBe('');
  });

  it('reports a change of the final newline alone', () => {
    const d = unifiedDiff('p', 'p', 'a\nb\n', 'a\nb');
    expect(applyDiff('a\nb\n', d)).toBe('a\nb');
  });

  it('applies back to the new text for any pair of texts (property)', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd', '', 'e f');
    const text = fc
      .tuple(fc.array(line, { maxLength: 25 }), fc.boolean())
      .map(([ls, nl]) => (ls.length === 0 ? '' : ls.join('\n') + (nl ? '\n' : '')));
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(applyDiff(a, unifiedDiff('f', 'f', a, b))).toBe(b);
      }),
      { numRuns: 1000 },
    );
  });

  it('stays correct (if not minimal) for texts that differ in thousands of lines', () => {
    const a = Array.from({ length: 6000 }, (_, i) => `line ${i}`).join('\n');
    const b = Array.from({ length: 6000 }, (_, i) => `other ${i}`).join('\n');
    expect(applyDiff(a, unifiedDiff('f', 'f', a, b))).toBe(b);
  });
});
