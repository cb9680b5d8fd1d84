/** A JSON value, as found in tool definitions and snapshots. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON Schema object (loosely typed: tool servers emit many dialects). */
export type JsonSchema = { [key: string]: unknown };

/** The MCP tool annotations TDQS reads; any of them may be undeclared. */
export interface ToolAnnotationsInput {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: Json | undefined;
}

/** One tool exactly as a client sees it in `tools/list`. */
export interface ToolInput {
  name: string;
  title?: string | null;
  description?: string | null;
  inputSchema?: JsonSchema | null;
  outputSchema?: JsonSchema | null;
  annotations?: ToolAnnotationsInput | null;
  [key: string]: unknown;
}

/** The six TDQS dimensions, in rubric order. */
export const DIMENSIONS = [
  'purpose_clarity',
  'usage_guidelines',
  'behavioral_transparency',
  'parameter_semantics',
  'conciseness_structure',
  'contextual_completeness',
] as const;

/** One of the six TDQS dimension keys. */
export type Dimension = (typeof DIMENSIONS)[number];

/** Dimension weights in integer hundredths (they sum to 100): 25/20/20/15/10/10. */
export const DIMENSION_WEIGHTS: Readonly<Record<Dimension, number>> = {
  purpose_clarity: 25,
  usage_guidelines: 20,
  behavioral_transparency: 20,
  parameter_semantics: 15,
  conciseness_structure: 10,
  contextual_completeness: 10,
};

/** An integer score 1–5 per dimension. */
export type DimensionScores = Record<Dimension, number>;

/** A letter tier; F is a guard that real scores never reach. */
export type Tier = 'A' | 'B' | 'C' | 'D' | 'F';

/** A dimension's score with the reason for it and, from the offline judge, one concrete fix. */
export interface DimensionJudgement {
  score: number;
  justification: string;
  /** One concrete change that would raise (or keep) this score. */
  fix?: string;
}

/** Tool-level flags (stage 2 gates and the contradiction check). */
export type ToolFlag = 'No Description' | 'Tautological Description' | 'Annotation Contradiction';

/** Server-level flags written onto a tool by the coherence step. */
export type ServerFlag = 'Shadowing Risk';

/** Stage 1: deterministic facts about one definition. */
export interface ContextSignals {
  paramCount: number;
  requiredParamCount: number;
  paramsWithDescriptions: number;
  paramsWithEnums: number;
  schemaDescriptionCoverage: number;
  hasNestedObjects: boolean;
  requiredFieldCount: number;
  schemaDepth: number;
  unionChoiceCount: number;
  invocationCost: number;
  hasOutputSchema: boolean;
  hasAnnotations: boolean;
  annotationValues: {
    readOnly: boolean | null;
    destructive: boolean | null;
    idempotent: boolean | null;
    openWorld: boolean | null;
  };
  titleIsMeaningful: boolean;
  inputHash: string;
}

/** What a judge receives for one tool. */
export interface ToolJudgeInput {
  tool: ToolInput;
  signals: ContextSignals;
  siblingToolNames: readonly string[];
}

/** What a judge returns for one tool (stage 3 output, before post-processing). */
export interface ToolJudgement {
  scores: Record<Dimension, DimensionJudgement>;
  annotationContradiction: boolean;
  summary: string;
}

/** One tool of a server as the coherence step sees it. */
export interface CoherenceToolInput {
  name: string;
  description: string | null;
  annotations: ToolAnnotationsInput | null;
  invocationCost: number;
  requiredFieldCount: number;
  schemaDepth: number;
  unionChoiceCount: number;
}

/** A structurally asymmetric pair from the deterministic shadowing prefilter. */
export interface ShadowCandidate {
  /** The dearer tool. */
  tool: string;
  invocationCost: number;
  /** The cheaper sibling that might shadow it. */
  cheaperSibling: string;
  cheaperSiblingInvocationCost: number;
}

/** A shadow candidate confirmed by a judge, with the reason. */
export interface ShadowingRisk extends ShadowCandidate {
  justification: string;
}

/** The four coherence dimension keys. */
export const COHERENCE_DIMENSIONS = [
  'disambiguation',
  'naming_consistency',
  'tool_count_appropriateness',
  'completeness',
] as const;

/** One of the four coherence dimensions. */
export type CoherenceDimension = (typeof COHERENCE_DIMENSIONS)[number];

/** What a judge receives for a whole server. */
export interface CoherenceJudgeInput {
  serverName: string;
  tools: readonly CoherenceToolInput[];
  candidates: readonly ShadowCandidate[];
}

/** What a judge returns for a whole server. */
export interface CoherenceJudgement {
  scores: Record<CoherenceDimension, DimensionJudgement>;
  /** Pairs the judge confirmed, restricted to the supplied candidates. */
  shadowingRisks: { tool: string; cheaperSibling: string; justification: string }[];
  summary: string;
}

/** The stage 3 interface: the offline judge and the LLM judge implement it. */
export interface Judge {
  /** Short name shown in reports, e.g. `offline` or `llm:gpt-4o-mini`. */
  readonly name: string;
  judgeTool(input: ToolJudgeInput): Promise<ToolJudgement>;
  judgeServer(input: CoherenceJudgeInput): Promise<CoherenceJudgement>;
}

/** The published per-tool output shape. */
export interface ToolScore {
  name: string;
  scores: DimensionScores;
  justifications: Record<Dimension, DimensionJudgement>;
  tdqs: number;
  tier: Tier;
  smells: Dimension[];
  flags: ToolFlag[];
  serverFlags: ServerFlag[];
  summary: string;
  contextSignals: ContextSignals;
}

/** The published per-server output shape (plus the prefilter's candidates). */
export interface ServerScore {
  serverName: string;
  toolCount: number;
  scoredToolCount: number;
  meanTdqs: number | null;
  minTdqs: number | null;
  descriptionQualityScore: number | null;
  descriptionQualityTier: Tier | null;
  disambiguation: number;
  namingConsistency: number;
  toolCountAppropriateness: number;
  completeness: number;
  coherenceScore: number;
  coherenceTier: Tier;
  overallScore: number | null;
  overallTier: Tier | null;
  coherenceJustifications: Record<CoherenceDimension, DimensionJudgement>;
  coherenceSummary: string;
  shadowingRisks: ShadowingRisk[];
  /** Every pair the deterministic prefilter proposed (confirmed or not). */
  shadowCandidates: ShadowCandidate[];
}

/** Tools and server score together. */
export interface ServerReport {
  tools: ToolScore[];
  server: ServerScore;
}
