/**
 * Line starts using CommonMark's line endings (`\n`, `\r\n` and a lone `\r`). A final line
 * break does not start another line: `"a\n"` has one line, `""` none.
 */
export function computeLineStarts(text: string): number[] {
  const starts: number[] = [];
  const n = text.length;
  if (n === 0) return starts;
  starts.push(0);
  if (!text.includes('\r')) {
    let i = text.indexOf('\n');
    while (i !== -1 && i + 1 < n) {
      starts.push(i + 1);
      i = text.indexOf('\n', i + 1);
    }
    return starts;
  }
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      if (i + 1 < n) starts.push(i + 1);
    }
  }
  return starts;
}
