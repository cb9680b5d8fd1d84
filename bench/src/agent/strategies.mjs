// The two scripted agents of the agent scenario, the same steps for every question:
// Lectern searches its sections and reads the best anchors; the filesystem agent greps the
// tree and reads the best files with the filesystem server. Both stop as soon as a text they
// read holds the answer section (see judge.mjs), after at most MAX_READS reads.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { grepWords, holdsAnswer, readPlan } from './judge.mjs';
import { countTokens, resultText } from './tokens.mjs';

/** Most answers (sections or files) an agent reads for one question before it gives up. */
export const MAX_READS = 3;

/** Most `rg -n` lines of one file an agent looks at (a grep tool's usual output cap). */
export const GREP_LINES_CAP = 60;

/** A fresh trace: tokens read, tool calls, reads, the read that held the answer, its rank. */
const newTrace = () => ({ tokens: 0, calls: 0, reads: 0, answeredAt: null, goldRank: null });

/**
 * Counts one read (a tool result whose text the agent reads) in `trace`; true when the text
 * read holds the answer, which the trace then records as answered at this read.
 */
function countRead(trace, result, gold) {
  trace.calls++;
  trace.reads++;
  trace.tokens += countTokens(resultText(result));
  if (!holdsAnswer(result.structuredContent.content, gold)) return false;
  trace.answeredAt = trace.reads;
  return true;
}

/**
 * One question through Lectern: `docs_search` with the question as asked, then `docs_read`
 * (default page) of the hits in rank order until one holds the answer. Returns the tokens of
 * every answer read, the tool calls made, whether the answer was read and at which read.
 */
export async function lecternAgent(server, question, gold) {
  const trace = newTrace();
  const res = await server.call('docs_search', { query: question.question });
  trace.calls++;
  trace.tokens += countTokens(resultText(res));
  const hits = res.structuredContent.results;
  trace.goldRank = rankOf(hits, question.anchor);
  const seen = new Set();
  for (const hit of hits) {
    if (trace.reads >= MAX_READS) break;
    if (seen.has(hit.anchor)) continue;
    seen.add(hit.anchor);
    if (countRead(trace, await server.call('docs_read', { anchor: hit.anchor }), gold)) break;
  }
  return trace;
}

/** 1-based rank of the answer's anchor (or of a section enclosing it) among the hits, or null. */
function rankOf(hits, anchor) {
  const i = hits.findIndex((h) => h.anchor === anchor);
  return i === -1 ? null : i + 1;
}

/** Runs the text search peer (`rg`, or `grep -r`) in `cwd`; returns its standard output. */
function grep(peer, args, cwd) {
  const r = spawnSync(peer.tool, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 1) {
    throw new Error(`${peer.tool} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  }
  return r.stdout ?? '';
}

/** `-e w` for each word. */
const patterns = (words) => words.flatMap((w) => ['-e', w]);

/** How the grep agent reads a file: `whole`, or `window` (head or tail after a located grep). */
export const FS_PLAYS = ['whole', 'window'];

/**
 * One question through a grep and the filesystem server: a case-insensitive grep of the tree
 * for the question's words (matching lines counted per file, what the agent sees), then the
 * files with the most matching lines in turn until a read holds the answer. `play` 'whole'
 * reads each file whole with `read_text_file`; 'window' first takes one shell turn with `rg -n`
 * of the words in that file (first {@link GREP_LINES_CAP} lines) and `wc -l`, then reads with
 * `head` or `tail`, whichever reaches the densest matches with fewer lines (see readPlan).
 */
export async function filesystemAgent(fs, peer, dir, question, gold, play = 'window') {
  const trace = newTrace();
  const words = grepWords(question.question);
  if (words.length === 0) return trace;
  const countArgs =
    peer.tool === 'rg'
      ? ['-c', '-i', '-F', ...patterns(words), '.']
      : ['-r', '-c', '-i', '-F', ...patterns(words), '.'];
  const counted = grep(peer, countArgs, dir)
    .split('\n')
    .filter((l) => l !== '' && !l.endsWith(':0'));
  trace.calls++;
  trace.tokens += countTokens(counted.join('\n'));
  const files = counted
    .map((l) => {
      const at = l.lastIndexOf(':');
      return { rel: l.slice(0, at).replace(/^\.\//, ''), count: Number(l.slice(at + 1)) };
    })
    .sort((a, b) => b.count - a.count || (a.rel < b.rel ? -1 : 1));
  const goldFile = `${question.anchor.split('#')[0]}.md`;
  const g = files.findIndex((f) => f.rel === goldFile);
  trace.goldRank = g === -1 ? null : g + 1;
  for (const file of files.slice(0, MAX_READS)) {
    if (play === 'whole') {
      if (countRead(trace, await fs.call('read_text_file', { path: join(dir, file.rel) }), gold)) {
        break;
      }
      continue;
    }
    const lines = grep(peer, ['-n', '-i', '-F', ...patterns(words), file.rel], dir)
      .split('\n')
      .filter((l) => l !== '')
      .slice(0, GREP_LINES_CAP);
    const wc = grep({ tool: 'wc' }, ['-l', file.rel], dir);
    trace.calls++;
    trace.tokens += countTokens(`${lines.join('\n')}\n${wc}`);
    const matches = lines.map((l) => {
      const at = l.indexOf(':');
      return { line: Number(l.slice(0, at)), text: l.slice(at + 1) };
    });
    const total = Number.parseInt(wc.trim(), 10) + 1;
    const plan = readPlan(matches, words, total);
    const res = await fs.call('read_text_file', { path: join(dir, file.rel), ...plan });
    if (countRead(trace, res, gold)) break;
  }
  return trace;
}
