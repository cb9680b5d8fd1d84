// agent: the tokens an agent spends to read a cited answer. The questions a reader of the
// Rust book asks (bench/src/agent/questions.json, each with the anchor of the section that
// answers it) go through two scripted agents: Lectern (docs_search, then docs_read of the best
// anchors) and a grep with the official filesystem server (read_text_file of the best files).
// Reported per split (dev: ranking may be tuned on it; test: only reported): tokens per
// answered question, the share answered, and the share answered by the first read.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invokeTool } from '@lectern/core';
import { sectionTools } from '@lectern/sections';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { goldOf } from '../agent/judge.mjs';
import { FS_PLAYS, filesystemAgent, lecternAgent, MAX_READS } from '../agent/strategies.mjs';
import { countTokens, TOKENIZER } from '../agent/tokens.mjs';
import { connectFilesystem, connectLectern } from '../lib/mcp.mjs';
import { quantile, round } from '../lib/stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** The corpus, beside the repository as every real corpus is (see ../shared/corpora/README.md). */
export const RUST_BOOK = resolve(here, '../../../../shared/corpora/rust-book/src');

/** Turns over which one copy of a tool list in the context is counted (prompt caching). */
export const TOOL_LIST_TURNS = 10;

/** The questions, in file order. */
export function loadQuestions() {
  return JSON.parse(readFileSync(join(here, '../agent/questions.json'), 'utf8')).questions;
}

/** Tokens of a server's tool list as a client puts it in the model's context. */
async function toolListTokens(session) {
  const { tools } = await session.client.request({ method: 'tools/list' }, ListToolsResultSchema);
  const shown = tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
  }));
  return { tools: tools.length, tokens: countTokens(JSON.stringify(shown)) };
}

/** The sums of one agent over a set of questions. */
function summarize(traces, listTokens) {
  let tokens = 0;
  let answered = 0;
  let first = 0;
  for (const t of traces) {
    tokens += t.tokens + (t.calls * listTokens) / TOOL_LIST_TURNS;
    if (t.answeredAt !== null) answered++;
    if (t.answeredAt === 1) first++;
  }
  return {
    questions: traces.length,
    answered,
    first_hit: first,
    tokens: Math.round(tokens),
    tokens_per_answered: answered > 0 ? Math.round(tokens / answered) : null,
  };
}

/** A row whose figures are counts, not times (unit 'tokens', 'answered' or 'share'). */
function countRow({ measure, unit, lectern, peer, n, spread, rssMb, peerRssMb, note, details }) {
  const fig = (value) => ({ value, median: value, min: value, max: value, n });
  const ratio = peer > 0 ? round(lectern / peer) : null;
  return {
    scenario: 'agent',
    measure,
    headline: 'median',
    unit,
    lectern_mcp: fig(lectern),
    handler: null,
    peer: { name: 'grep + filesystem server', ...fig(peer) },
    ratio_mcp:
      ratio === null
        ? null
        : { value: ratio, low: spread?.[0] ?? ratio, high: spread?.[1] ?? ratio },
    ratio_handler: null,
    server_peak_rss_mb: rssMb,
    peer_peak_rss_mb: peerRssMb,
    note,
    details,
  };
}

export async function agent(ctx) {
  if (!existsSync(RUST_BOOK)) {
    ctx.log(
      `scenario agent SKIPPED: the corpus ${RUST_BOOK} is absent (see shared/corpora/README.md)`,
    );
    return [];
  }
  let questions = loadQuestions();
  if (ctx.mode === 'smoke') {
    questions = [
      ...questions.filter((q) => q.split === 'dev').slice(0, 3),
      ...questions.filter((q) => q.split === 'test').slice(0, 3),
    ];
  }
  // The gold: each answer section's heading line and body start, read in-process.
  const tools = Object.fromEntries(
    sectionTools({ roots: [{ id: 'book', path: RUST_BOOK }] }).map((t) => [t.name, t]),
  );
  const gold = new Map();
  for (const q of questions) {
    const s = await invokeTool(tools.docs_read, {
      anchor: q.anchor,
      include_subsections: false,
      max_chars: 50_000,
    });
    gold.set(q.id, goldOf(s.content));
  }

  const server = await connectLectern(['--docs', `book=${RUST_BOOK}`]);
  const fs = await connectFilesystem([RUST_BOOK]);
  const traces = [];
  try {
    const lecternList = await toolListTokens(server);
    const fsList = await toolListTokens(fs);
    for (const q of questions) {
      const g = gold.get(q.id);
      const lectern = await lecternAgent(server, q, g);
      const plays = {};
      for (const play of FS_PLAYS) {
        plays[play] = await filesystemAgent(fs, ctx.textSearch, RUST_BOOK, q, g, play);
      }
      traces.push({ q, lectern, plays });
    }
    // The grep agent is given its better play over all questions: more answers, then fewer
    // tokens per answer. The other play's sums are in the details.
    const playSums = Object.fromEntries(
      FS_PLAYS.map((play) => [
        play,
        summarize(
          traces.map((t) => t.plays[play]),
          fsList.tokens,
        ),
      ]),
    );
    const bestPlay = [...FS_PLAYS].sort(
      (a, b) =>
        playSums[b].answered - playSums[a].answered ||
        (playSums[a].tokens_per_answered ?? Infinity) -
          (playSums[b].tokens_per_answered ?? Infinity),
    )[0];
    for (const t of traces) t.peer = t.plays[bestPlay];
    const playNote = `The grep agent's play: ${bestPlay === 'whole' ? 'whole files' : 'head or tail around the densest matches'} (${FS_PLAYS.map((p) => `${p}: ${playSums[p].answered}/${playSums[p].questions} answered, ${playSums[p].tokens_per_answered ?? '—'} tokens per answer`).join('; ')}; the better one is reported).`;
    const rows = [];
    for (const split of ['dev', 'test']) {
      const mine = traces.filter((t) => t.q.split === split);
      const l = summarize(
        mine.map((t) => t.lectern),
        lecternList.tokens,
      );
      const p = summarize(
        mine.map((t) => t.peer),
        fsList.tokens,
      );
      const perQuestion = mine
        .map((t) => (t.lectern.tokens + 1) / (t.peer.tokens + 1))
        .sort((a, b) => a - b);
      const common = {
        n: mine.length,
        rssMb: server.peakRssMb(),
        peerRssMb: fs.peakRssMb(),
      };
      const label = `${split} (${mine.length} questions)`;
      rows.push(
        countRow({
          ...common,
          measure: `tokens per answered question, ${label}`,
          unit: 'tokens',
          lectern: l.tokens_per_answered ?? l.tokens,
          peer: p.tokens_per_answered ?? p.tokens,
          spread: [round(quantile(perQuestion, 0.1)), round(quantile(perQuestion, 0.9))],
          note: `every token an agent reads for the ${split} questions (search answers, grep output, sections and files read, and its tool list once per ${TOOL_LIST_TURNS} turns: Lectern ${lecternList.tokens} tokens for ${lecternList.tools} tools, filesystem server ${fsList.tokens} for ${fsList.tools}), divided by the questions answered. Lectern answered ${l.answered}/${l.questions} (${l.first_hit} at the first read), the grep agent ${p.answered}/${p.questions} (${p.first_hit}); at most ${MAX_READS} reads each. Tokens: ${TOKENIZER}. Spread: p10-p90 of per-question token ratios. ${playNote}`,
          details: {
            lectern: l,
            peer: p,
            tokenizer: TOKENIZER,
            peer_play: bestPlay,
            plays: playSums,
          },
        }),
        countRow({
          ...common,
          measure: `questions answered, ${label}`,
          unit: 'answered',
          lectern: l.answered,
          peer: p.answered,
          note: `the answer section's heading and the first 400 characters of its text were in what the agent read, within ${MAX_READS} reads.`,
        }),
        countRow({
          ...common,
          measure: `answer at the first read, ${label}`,
          unit: 'share',
          lectern: round(l.first_hit / l.questions),
          peer: round(p.first_hit / p.questions),
          note: 'share of the questions whose first section (Lectern) or first file (grep agent) read held the answer; the target for Lectern is at least 70%.',
        }),
      );
    }
    rows.at(-1).details = {
      questions: traces.map((t) => ({
        id: t.q.id,
        split: t.q.split,
        anchor: t.q.anchor,
        lectern: t.lectern,
        peer: t.plays,
      })),
    };
    return rows;
  } finally {
    await server.close();
    await fs.close();
  }
}
