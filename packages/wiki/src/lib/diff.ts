/** One line of an edit script: kept, removed from the old text or added by the new one. */
type Edit = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

/** Beyond this many differing lines the diff stops searching for a minimal script. */
const MAX_EDIT_DISTANCE = 1000;

/**
 * Lines of a text for diffing. A last line without a line break carries a trailing `\n` (a
 * character no line can otherwise contain), so "x" and "x\n" compare as different lines.
 */
function splitForDiff(text: string): string[] {
  if (text === '') return [];
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  if (!finalNewline) lines[lines.length - 1] += '\n';
  return lines;
}

/**
 * Myers' O((N+M)·D) shortest edit script over lines, after trimming the common head and tail.
 * When the texts differ by more than a few thousand lines, the differing middle is reported
 * as removed then added (still a correct diff, just not minimal).
 */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const out: Edit[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: ' ', line: a[i]!, a: i, b: i });
  const A = a.slice(head, a.length - tail);
  const B = b.slice(head, b.length - tail);
  const n = A.length;
  const m = B.length;
  const max = n + m;
  const middle: Edit[] = [];
  const fallback = () => {
    for (let i = 0; i < n; i++) middle.push({ kind: '-', line: A[i]!, a: head + i, b: -1 });
    for (let j = 0; j < m; j++) middle.push({ kind: '+', line: B[j]!, a: -1, b: head + j });
  };
  if (n === 0 || m === 0 || max === 0) {
    fallback();
  } else {
    const offset = max;
    const v = new Int32Array(2 * max + 2);
    const trace: Int32Array[] = [];
    let found = false;
    const limit = Math.min(max, MAX_EDIT_DISTANCE);
    for (let d = 0; d <= limit && !found; d++) {
      // Keep only the diagonals the backtrack can read at this step: k in [-(d-1), d-1].
      trace.push(v.slice(offset - d + 1, offset + d));
      for (let k = -d; k <= d; k += 2) {
        let x =
          k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
            ? v[offset + k + 1]!
            : v[offset + k - 1]! + 1;
        let y = x - k;
        while (x < n && y < m && A[x] === B[y]) {
          x++;
          y++;
        }
        v[offset + k] = x;
        if (x >= n && y >= m) {
          found = true;
          break;
        }
      }
    }
    if (!found) {
      fallback();
    } else {
      let x = n;
      let y = m;
      const rev: Edit[] = [];
      for (let d = trace.length - 1; d >= 0; d--) {
        const vd = trace[d]!;
        const at = (kk: number) => vd[kk + d - 1]!;
        const k = x - y;
        const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
        const prevX = d === 0 ? 0 : at(prevK);
        const prevY = prevX - prevK;
        while (x > prevX && y > prevY) {
          x--;
          y--;
          rev.push({ kind: ' ', line: A[x]!, a: head + x, b: head + y });
        }
        if (d === 0) break;
        if (x === prevX) {
          y--;
          rev.push({ kind: '+', line: B[y]!, a: -1, b: head + y });
        } else {
          x--;
          rev.push({ kind: '-', line: A[x]!, a: head + x, b: -1 });
        }
        x = prevX;
        y = prevY;
      }
      while (x > 0 && y > 0) {
        x--;
        y--;
        rev.push({ kind: ' ', line: A[x]!, a: head + x, b: head + y });
      }
      middle.push(...rev.reverse());
    }
  }
  out.push(...middle);
  for (let i = 0; i < tail; i++) {
    const ai = a.length - tail + i;
    const bi = b.length - tail + i;
    out.push({ kind: ' ', line: a[ai]!, a: ai, b: bi });
  }
  return out;
}

/**
 * A unified diff (`---`/`+++` headers, `@@` hunks, 3 lines of context) between two texts.
 * `null` stands for a file that does not exist (`/dev/null`). Returns `''` when equal.
 */
export function unifiedDiff(
  oldPath: string | null,
  newPath: string | null,
  before: string | null,
  after: string | null,
  context = 3,
): string {
  if (before === after) return '';
  const a = splitForDiff(before ?? '');
  const b = splitForDiff(after ?? '');
  const script = editScript(a, b);
  const header = `--- ${oldPath === null || before === null ? '/dev/null' : `a/${oldPath}`}\n+++ ${newPath === null || after === null ? '/dev/null' : `b/${newPath}`}\n`;
  const changed = script.map((e, i) => (e.kind === ' ' ? -1 : i)).filter((i) => i !== -1);
  let out = header;
  let i = 0;
  while (i < changed.length) {
    const startEdit = Math.max(0, changed[i]! - context);
    let j = i;
    while (j + 1 < changed.length && changed[j + 1]! - changed[j]! <= 2 * context) j++;
    const endEdit = Math.min(script.length - 1, changed[j]! + context);
    const hunk = script.slice(startEdit, endEdit + 1);
    let aStart = -1;
    let bStart = -1;
    let aCount = 0;
    let bCount = 0;
    for (const e of hunk) {
      if (e.kind !== '+') {
        if (aStart === -1) aStart = e.a;
        aCount++;
      }
      if (e.kind !== '-') {
        if (bStart === -1) bStart = e.b;
        bCount++;
      }
    }
    // An empty side is shown at the line before the hunk (0 at the top of the file).
    const aShown = aCount === 0 ? countBefore(script, startEdit, 'a') : aStart + 1;
    const bShown = bCount === 0 ? countBefore(script, startEdit, 'b') : bStart + 1;
    out += `@@ -${aShown},${aCount} +${bShown},${bCount} @@\n`;
    for (const e of hunk) {
      out += e.line.endsWith('\n')
        ? `${e.kind}${e.line.slice(0, -1)}\n\\ No newline at end of file\n`
        : `${e.kind}${e.line}\n`;
    }
    i = j + 1;
  }
  return out;
}

/** Lines of side `side` before edit index `at` (the start shown for an empty hunk side). */
function countBefore(script: readonly Edit[], at: number, side: 'a' | 'b'): number {
  let n = 0;
  for (let k = 0; k < at; k++) {
    const e = script[k]!;
    if (side === 'a' ? e.kind !== '+' : e.kind !== '-') n++;
  }
  return n;
}
