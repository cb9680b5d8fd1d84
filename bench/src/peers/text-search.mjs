// ripgrep (or grep -rn when ripgrep is unavailable) as one process per search, the way an
// agent without a search tool shells out.
import { spawnSync } from 'node:child_process';

/**
 * Builds the argument list. `mode`: 'lines' (matching lines with numbers), 'files' (names of
 * matching files). `words` are literal strings; several are ORed. `caseSensitive` default false;
 * `wholeWord` default false.
 */
function argsFor(tool, { words, dir, mode = 'lines', caseSensitive = false, wholeWord = false }) {
  const args = [];
  if (tool === 'grep') args.push('-r');
  args.push(mode === 'files' ? '-l' : '-n', '-F');
  args.push(caseSensitive ? (tool === 'rg' ? '-s' : '--no-ignore-case') : '-i');
  if (wholeWord) args.push('-w');
  for (const w of words) args.push('-e', w);
  args.push(dir);
  return args;
}

/** Runs one search; returns `{ ms, lines }` (lines of output). Exit 1 (no match) is fine. */
export function textSearch(peer, options) {
  const t0 = performance.now();
  const r = spawnSync(peer.tool, argsFor(peer.tool, options), {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) {
    throw new Error(`${peer.tool} failed (${r.status}): ${r.stderr?.slice(0, 300)}`);
  }
  const out = r.stdout ?? '';
  const lines = out === '' ? 0 : out.split('\n').length - (out.endsWith('\n') ? 1 : 0);
  return { ms, lines };
}
