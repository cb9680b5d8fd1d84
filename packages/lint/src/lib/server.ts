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
import { contentTokens, isMutationVerb, nameWordsShared, sentences } from './text.js';
import type {
  CoherenceToolInput,
  ServerReport,
  ServerScore,
  ShadowCandidate,
  ShadowingRisk,
  ToolAnnotationsInput,
  ToolInput,
  ToolScore,
} from './types.js';

/** The prefilter test: the dearer tool costs at least twice the cheaper one and 4 more. */
export function isShadowCandidate(cheap: number, expensive: number): boolean {
  return expensive >= 2 * cheap && expensive - cheap >= 4;
}

/** A tool as the shadowing prefilter sees it; description and annotations are optional. */
export interface PrefilterTool {
  name: string;
  invocationCost: number;
  description?: string | null;
  annotations?: ToolAnnotationsInput | null;
}

function writes(t: PrefilterTool): boolean {
  if (t.annotations?.readOnlyHint === true) return false;
  if (t.annotations?.readOnlyHint === false) return true;
  return nameWordsShared(t.name).some((w) => isMutationVerb(w));
}

function purposeWords(t: PrefilterTool): Set<string> {
  const first = sentences(t.description ?? '').find((s) => !s.label)?.text ?? '';
  return new Set([...nameWordsShared(t.name), ...contentTokens(first)]);
}

/**
 * True when two tools could answer the same question, so one may shadow the other: both must
 * read, or both write, and share a name word or a good part of their purpose sentences
 * (`write_batch` and `read_artifact` do not). Without descriptions there is no evidence either
 * way and the pair stays in.
 */
export function mayOverlap(
  a: PrefilterTool,
  b: PrefilterTool,
  common: ReadonlySet<string> = new Set(),
): boolean {
  if (!a.description || !b.description) return true;
  if (writes(a) !== writes(b)) return false;
  const na = new Set(nameWordsShared(a.name));
  const telling = (w: string) => w.length > 2 && !GENERIC_NAME_WORDS.has(w) && !common.has(w);
  if (nameWordsShared(b.name).some((w) => na.has(w) && telling(w))) return true;
  const pa = purposeWords(a);
  const pb = purposeWords(b);
  let shared = 0;
  for (const w of pb) if (pa.has(w)) shared++;
  return shared / (pa.size + pb.size - shared || 1) >= 0.25;
}

/** Name words that say nothing about what a tool is for. */
const GENERIC_NAME_WORDS = new Set(
  'get set list read write search find fetch create update delete run do tool mcp api by all one'.split(
    ' ',
  ),
);

/**
 * The deterministic shadowing prefilter: for each tool, among the siblings it qualifies against
 * as the dearer side and {@link mayOverlap} with, the dearest one (ties broken by name). At most
 * one candidate per tool, so the output is linear in the tool count (pairs are only compared
 * when the costs qualify).
 */
export function shadowCandidates(tools: readonly PrefilterTool[]): ShadowCandidate[] {
  const out: ShadowCandidate[] = [];
  // A name word most of the server's tools share ("file" on a filesystem server) tells nothing.
  const df = new Map<string, number>();
  for (const t of tools)
    for (const w of new Set(nameWordsShared(t.name))) df.set(w, (df.get(w) ?? 0) + 1);
  const common = new Set(
    [...df].filter(([, n]) => tools.length >= 4 && n >= tools.length / 3).map(([w]) => w),
  );
  for (const tool of tools) {
    let best: PrefilterTool | undefined;
    for (const other of tools) {
      if (other.name === tool.name) continue;
      if (!isShadowCandidate(other.invocationCost, tool.invocationCost)) continue;
      if (!mayOverlap(tool, other, common)) continue;
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
