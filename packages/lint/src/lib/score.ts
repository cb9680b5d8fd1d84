import { computeTdqs, tierOf } from './arithmetic.js';
import { hasNoDescription, isTautological } from './gates.js';
import { OfflineJudge } from './offline-judge.js';
import { computeSignals } from './signals.js';
import {
  DIMENSIONS,
  type Dimension,
  type DimensionJudgement,
  type DimensionScores,
  type Judge,
  type ToolFlag,
  type ToolInput,
  type ToolJudgement,
  type ToolScore,
} from './types.js';

/** Options for {@link scoreTool} and {@link scoreTools}. */
export interface ScoreOptions {
  /** The stage 3 judge; defaults to a new {@link OfflineJudge}. */
  judge?: Judge;
  /** How many tools are judged at once (matters for the LLM judge). Default 4. */
  concurrency?: number;
}

function gatedJudgement(): ToolJudgement {
  const one = (what: string): DimensionJudgement => ({
    score: 1,
    justification: `No description: ${what}`,
    fix: 'Write a description: purpose first, then when to use it and when not, then behaviour.',
  });
  return {
    scores: {
      purpose_clarity: one('nothing states what the tool does.'),
      usage_guidelines: one('nothing says when to use it.'),
      behavioral_transparency: one('no behaviour is disclosed.'),
      parameter_semantics: one('parameters get no meaning beyond the schema.'),
      conciseness_structure: one('there is no text to structure.'),
      contextual_completeness: one('an agent has nothing to go on.'),
    },
    annotationContradiction: false,
    summary: 'The tool has no description, so every dimension scores 1 without a judge call.',
  };
}

function checkJudgement(j: ToolJudgement): void {
  for (const d of DIMENSIONS) {
    const s = j.scores[d]?.score;
    if (!Number.isInteger(s) || (s as number) < 1 || (s as number) > 5) {
      throw new Error(`judge returned an invalid ${d} score: ${String(s)}`);
    }
  }
}

/**
 * Scores one tool through the four TDQS stages: context signals, hard gates (a missing
 * description short-circuits to 1.0 / D without calling the judge), the judge, and deterministic
 * post-processing (tautology cap on purpose, contradiction flag, smells for every dimension < 3).
 */
export async function scoreTool(
  tool: ToolInput,
  siblingToolNames: readonly string[],
  options: ScoreOptions = {},
): Promise<ToolScore> {
  const contextSignals = computeSignals(tool);
  const flags: ToolFlag[] = [];
  let judged: ToolJudgement;
  if (hasNoDescription(tool)) {
    flags.push('No Description');
    judged = gatedJudgement();
  } else {
    const judge = options.judge ?? new OfflineJudge();
    judged = await judge.judgeTool({
      tool,
      signals: contextSignals,
      siblingToolNames: siblingToolNames.filter((n) => n !== tool.name),
    });
    checkJudgement(judged);
  }
  const justifications = Object.fromEntries(
    DIMENSIONS.map((d) => [d, { ...judged.scores[d] }]),
  ) as Record<Dimension, DimensionJudgement>;
  if (isTautological(tool)) {
    flags.push('Tautological Description');
    const p = justifications.purpose_clarity;
    if (p.score > 2) {
      p.score = 2;
      p.justification = `${p.justification} Capped at 2: the description is exactly the tool's name or title.`;
    }
  }
  if (judged.annotationContradiction) flags.push('Annotation Contradiction');
  const scores = Object.fromEntries(
    DIMENSIONS.map((d) => [d, justifications[d].score]),
  ) as DimensionScores;
  const tdqs = computeTdqs(scores);
  return {
    name: tool.name,
    scores,
    justifications,
    tdqs,
    tier: tierOf(tdqs),
    smells: DIMENSIONS.filter((d) => scores[d] < 3),
    flags,
    serverFlags: [],
    summary: judged.summary,
    contextSignals,
  };
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return out;
}

/** Checks a tool list: every tool needs a non-empty string name, and names must be unique. */
export function assertToolList(tools: readonly ToolInput[]): void {
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (typeof t?.name !== 'string' || t.name.trim() === '') {
      throw new TypeError(
        `tool #${i + 1} has no name; every tool needs a non-empty string "name".`,
      );
    }
    if (seen.has(t.name)) throw new TypeError(`tool name "${t.name}" appears twice in the list.`);
    seen.add(t.name);
  });
}

/** Scores every tool of one server; each tool's siblings are the other tools' names. */
export async function scoreTools(
  tools: readonly ToolInput[],
  options: ScoreOptions = {},
): Promise<ToolScore[]> {
  assertToolList(tools);
  const names = tools.map((t) => t.name);
  const judge = options.judge ?? new OfflineJudge();
  return mapLimit(tools, options.concurrency ?? 4, (tool) =>
    scoreTool(tool, names, { ...options, judge }),
  );
}
