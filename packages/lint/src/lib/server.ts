import {
  coherenceScore,
  descriptionQuality,
  meanScore,
  overallScore,
  tierOf,
} from './arithmetic.js';
import { OfflineJudge } from './offline-judge.js';
import { type ScoreOptions, scoreTools } from './score.js';
import { computeSignals } from './signals.js';
import type {
  CoherenceToolInput,
  ServerReport,
  ServerScore,
  ShadowCandidate,
  ShadowingRisk,
  ToolInput,
  ToolScore,
} from './types.js';

/** The prefilter test: the dearer tool costs at least twice the cheaper one and 4 more. */
export function isShadowCandidate(cheap: number, expensive: number): boolean {
  return expensive >= 2 * cheap && expensive - cheap >= 4;
}

/**
 * The deterministic shadowing prefilter: for each tool, among the siblings it qualifies against
 * as the dearer side, the dearest one (ties broken by name). At most one candidate per tool,
 * so the output is linear in the tool count.
 */
export function shadowCandidates(
  tools: readonly { name: string; invocationCost: number }[],
): ShadowCandidate[] {
  const out: ShadowCandidate[] = [];
  for (const tool of tools) {
    let best: { name: string; invocationCost: number } | undefined;
    for (const other of tools) {
      if (other.name === tool.name) continue;
      if (!isShadowCandidate(other.invocationCost, tool.invocationCost)) continue;
      if (
        !best ||
        other.invocationCost > best.invocationCost ||
        (other.invocationCost === best.invocationCost && other.name < best.name)
      ) {
        best = other;
      }
    }
    if (best) {
      out.push({
        tool: tool.name,
        invocationCost: tool.invocationCost,
        cheaperSibling: best.name,
        cheaperSiblingInvocationCost: best.invocationCost,
      });
    }
  }
  return out;
}

/** Options for {@link scoreServer}. */
export interface ServerOptions extends ScoreOptions {
  /** Shown to the coherence judge; defaults to `server`. */
  serverName?: string;
  /** Scores already computed for these tools (skips tool scoring). */
  toolScores?: readonly ToolScore[];
}

/**
 * Keeps only confirmed risks that pass the referential checks: both names exist, the pair was
 * proposed by the prefilter, `tool` is the dearer side, and no tool appears twice.
 */
export function validateShadowingRisks(
  risks: readonly { tool: string; cheaperSibling: string; justification: string }[],
  candidates: readonly ShadowCandidate[],
): ShadowingRisk[] {
  const out: ShadowingRisk[] = [];
  const used = new Set<string>();
  for (const r of risks) {
    const c = candidates.find((x) => x.tool === r.tool && x.cheaperSibling === r.cheaperSibling);
    if (!c || used.has(r.tool)) continue;
    used.add(r.tool);
    out.push({ ...c, justification: r.justification });
  }
  return out;
}

/**
 * Scores a server: every tool (unless `toolScores` is given), the description quality rollup
 * `round1(0.6·mean + 0.4·min)` (only when at least 80% of the tools are scored), coherence from
 * the judge, the overall `round1(0.7·quality + 0.3·coherence)`, and the shadowing prefilter.
 * Confirmed shadowing risks raise `Shadowing Risk` in the dearer tool's `serverFlags`.
 */
export async function scoreServer(
  tools: readonly ToolInput[],
  options: ServerOptions = {},
): Promise<ServerReport> {
  const judge = options.judge ?? new OfflineJudge();
  const scored = options.toolScores
    ? options.toolScores.map((t) => ({ ...t, serverFlags: [...t.serverFlags] }))
    : await scoreTools(tools, { ...options, judge });
  const signalsByName = new Map(
    tools.map((t) => [
      t.name,
      scored.find((s) => s.name === t.name)?.contextSignals ?? computeSignals(t),
    ]),
  );
  const coherenceTools: CoherenceToolInput[] = tools.map((t) => {
    const s = signalsByName.get(t.name) ?? computeSignals(t);
    return {
      name: t.name,
      description: typeof t.description === 'string' ? t.description : null,
      annotations: t.annotations ?? null,
      invocationCost: s.invocationCost,
      requiredFieldCount: s.requiredFieldCount,
      schemaDepth: s.schemaDepth,
      unionChoiceCount: s.unionChoiceCount,
    };
  });
  const candidates = shadowCandidates(coherenceTools);
  const serverName = options.serverName ?? 'server';
  const coherence = await judge.judgeServer({ serverName, tools: coherenceTools, candidates });
  const shadowingRisks = validateShadowingRisks(coherence.shadowingRisks, candidates);
  for (const risk of shadowingRisks) {
    const t = scored.find((s) => s.name === risk.tool);
    if (t && !t.serverFlags.includes('Shadowing Risk')) t.serverFlags.push('Shadowing Risk');
  }

  const toolCount = tools.length;
  const values = scored.map((s) => s.tdqs);
  const enough = toolCount > 0 && values.length * 5 >= toolCount * 4;
  const quality = enough ? descriptionQuality(values) : null;
  const c = coherence.scores;
  const coh = coherenceScore(
    c.disambiguation.score,
    c.naming_consistency.score,
    c.tool_count_appropriateness.score,
    c.completeness.score,
  );
  const overall = quality === null ? null : overallScore(quality, coh);
  const server: ServerScore = {
    serverName,
    toolCount,
    scoredToolCount: values.length,
    meanTdqs: values.length ? meanScore(values) : null,
    minTdqs: values.length ? Math.min(...values) : null,
    descriptionQualityScore: quality,
    descriptionQualityTier: quality === null ? null : tierOf(quality),
    disambiguation: c.disambiguation.score,
    namingConsistency: c.naming_consistency.score,
    toolCountAppropriateness: c.tool_count_appropriateness.score,
    completeness: c.completeness.score,
    coherenceScore: coh,
    coherenceTier: tierOf(coh),
    overallScore: overall,
    overallTier: overall === null ? null : tierOf(overall),
    coherenceJustifications: c,
    coherenceSummary: coherence.summary,
    shadowingRisks,
    shadowCandidates: candidates,
  };
  return { tools: scored, server };
}
