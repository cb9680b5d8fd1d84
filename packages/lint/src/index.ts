export {
  coherenceScore,
  computeTdqs,
  descriptionQuality,
  divRoundHalfUp,
  meanScore,
  overallScore,
  TIER_ORDER,
  tierAtLeast,
  tierOf,
  weightedHundredths,
} from './lib/arithmetic.js';
export {
  type CalibrationExample,
  CalibrationExampleSchema,
  type CalibrationResult,
  type CalibrationRow,
  calibrate,
  type DimensionAgreement,
  definitionKey,
  formatCalibration,
  type NoiseFloor,
  noiseFloor,
  parseCalibrationJsonl,
} from './lib/calibrate.js';
export { canonicalJson, inputHash, sortKeysDeep } from './lib/canonical.js';
export { coherenceOffline } from './lib/coherence.js';
export {
  type Bump,
  type ChangelogOptions,
  changedHeading,
  type DiffEntry,
  diffSnapshots,
  diffTool,
  formatSnapshot,
  maxBump,
  renderChangelog,
  renderChangelogMarkdown,
  renderChangeset,
  type Snapshot,
  type SnapshotDiff,
  showValue,
  snapshotTools,
  type ToolChange,
} from './lib/diff.js';
export {
  type Fix,
  formatGithub,
  formatJson,
  formatMarkdown,
  formatReport,
  formatSarif,
  formatText,
  type LocationOptions,
  REPORT_FORMATS,
  type ReportFormat,
  topFixes,
  worstFirst,
} from './lib/formats.js';
export { hasNoDescription, isTautological } from './lib/gates.js';
export { type LintOptions, lintDefinitions, lintTools } from './lib/lint.js';
export {
  LlmJudge,
  LlmJudgeError,
  type LlmJudgeOptions,
  ServerReplySchema,
  ToolReplySchema,
} from './lib/llm-judge.js';
export {
  checkWeights,
  defaultWeights,
  FEATURE_NAMES,
  type HiddenModel,
  type LinearDimensionModel,
  type MapDimensionModel,
  type ModelWeights,
} from './lib/model.js';
export {
  isKeywordList,
  judgeToolOffline,
  judgeToolRules,
  OfflineJudge,
  toolFeatures,
} from './lib/offline-judge.js';
export {
  PROMPT_VERSION,
  SERVER_SYSTEM_PROMPT,
  serverUserMessage,
  TOOL_SYSTEM_PROMPT,
  toolUserMessage,
} from './lib/prompts.js';
export {
  evaluateThresholds,
  FAIL_ON_VALUES,
  type LintReport,
  type ThresholdFailure,
  type ThresholdOutcome,
  type Thresholds,
  validateThresholds,
} from './lib/report.js';
export { assertToolList, type ScoreOptions, scoreTool, scoreTools } from './lib/score.js';
export {
  isShadowCandidate,
  mayOverlap,
  type PrefilterTool,
  type ServerOptions,
  scoreServer,
  shadowCandidates,
  validateShadowingRisks,
} from './lib/server.js';
export {
  computeInvocationCost,
  computeSignals,
  MAX_SCHEMA_DEPTH,
  requiredSubtree,
} from './lib/signals.js';
export {
  type LoadedTools,
  type LoadOptions,
  listAllTools,
  loadTarget,
  parseTarget,
  parseToolsJson,
  type Target,
  TargetError,
  toolsFromDefinitions,
} from './lib/targets.js';
export {
  COHERENCE_DIMENSIONS,
  type CoherenceDimension,
  type CoherenceJudgeInput,
  type CoherenceJudgement,
  type CoherenceToolInput,
  type ContextSignals,
  DIMENSION_WEIGHTS,
  DIMENSIONS,
  type Dimension,
  type DimensionJudgement,
  type DimensionScores,
  type Json,
  type JsonSchema,
  type Judge,
  type ServerFlag,
  type ServerReport,
  type ServerScore,
  type ShadowCandidate,
  type ShadowingRisk,
  type Tier,
  type ToolAnnotationsInput,
  type ToolFlag,
  type ToolInput,
  type ToolJudgeInput,
  type ToolJudgement,
  type ToolScore,
} from './lib/types.js';
export {
  type CliIo,
  DEFAULT_TIMEOUT_MS,
  EXIT,
  LINT_VERSION,
  runLintCli,
  splitCommand,
  USAGE,
  usageText,
} from './run-cli.js';
