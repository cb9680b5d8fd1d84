import type { AnyToolDefinition, RegisterOptions } from '@lectern/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  CliIo,
  LintOptions,
  LintReport,
  ServerReport,
  ToolInput,
  ToolScore,
} from './index.js';
import * as api from './index.js';

describe('public API', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'COHERENCE_DIMENSIONS',
      'CalibrationExampleSchema',
      'DEFAULT_TIMEOUT_MS',
      'DIMENSIONS',
      'DIMENSION_WEIGHTS',
      'EXIT',
      'FAIL_ON_VALUES',
      'FEATURE_NAMES',
      'LINT_VERSION',
      'LlmJudge',
      'LlmJudgeError',
      'MAX_SCHEMA_DEPTH',
      'OfflineJudge',
      'PROMPT_VERSION',
      'REPORT_FORMATS',
      'SERVER_SYSTEM_PROMPT',
      'ServerReplySchema',
      'TIER_ORDER',
      'TOKEN_ENCODING',
      'TOOL_SYSTEM_PROMPT',
      'TargetError',
      'ToolReplySchema',
      'USAGE',
      'assertToolList',
      'calibrate',
      'canonicalJson',
      'changedHeading',
      'checkWeights',
      'coherenceOffline',
      'coherenceScore',
      'computeInvocationCost',
      'computeSignals',
      'computeTdqs',
      'contextReport',
      'countTokens',
      'defaultWeights',
      'definitionKey',
      'descriptionQuality',
      'diffContextCost',
      'diffSnapshots',
      'diffTool',
      'divRoundHalfUp',
      'evaluateThresholds',
      'formatCalibration',
      'formatGithub',
      'formatJson',
      'formatMarkdown',
      'formatReport',
      'formatSarif',
      'formatSnapshot',
      'formatText',
      'hasNoDescription',
      'inputHash',
      'isKeywordList',
      'isShadowCandidate',
      'isTautological',
      'judgeToolOffline',
      'judgeToolRules',
      'lintDefinitions',
      'lintTools',
      'listAllTools',
      'loadTarget',
      'maxBump',
      'mayOverlap',
      'meanScore',
      'noiseFloor',
      'overallScore',
      'parseCalibrationJsonl',
      'parseTarget',
      'parseToolsJson',
      'renderChangelog',
      'renderChangelogMarkdown',
      'renderChangeset',
      'renderContextCostDiff',
      'requiredSubtree',
      'runLintCli',
      'scoreServer',
      'scoreTool',
      'scoreTools',
      'serverContextCost',
      'serverUserMessage',
      'shadowCandidates',
      'showValue',
      'snapshotTools',
      'sortKeysDeep',
      'splitCommand',
      'tierAtLeast',
      'tierOf',
      'toolContextCost',
      'toolContextText',
      'toolFeatures',
      'toolUserMessage',
      'toolsFromDefinitions',
      'topFixes',
      'usageText',
      'validateShadowingRisks',
      'validateThresholds',
      'weightedHundredths',
      'worstFirst',
    ]);
    expect(api.DIMENSION_WEIGHTS).toEqual({
      purpose_clarity: 25,
      usage_guidelines: 20,
      behavioral_transparency: 20,
      parameter_semantics: 15,
      conciseness_structure: 10,
      contextual_completeness: 10,
    });
    expect(api.EXIT).toEqual({ ok: 0, belowThreshold: 1, unusable: 2 });
  });

  it('keeps the signatures the app and CI rely on', async () => {
    expectTypeOf(api.runLintCli).toEqualTypeOf<
      (argv: readonly string[], io?: CliIo) => Promise<number>
    >();
    expectTypeOf(api.scoreTools).parameter(0).toEqualTypeOf<readonly ToolInput[]>();
    expectTypeOf(api.scoreTools).returns.toEqualTypeOf<Promise<ToolScore[]>>();
    expectTypeOf(api.scoreServer).returns.toEqualTypeOf<Promise<ServerReport>>();
    expectTypeOf(api.lintDefinitions).toEqualTypeOf<
      (
        definitions: readonly AnyToolDefinition[],
        options?: LintOptions & { register?: RegisterOptions },
      ) => Promise<LintReport>
    >();
    const fixture = new URL('../test-fixtures/lectern-tools.mjs', import.meta.url).href;
    const mod = (await import(fixture)) as { tools: AnyToolDefinition[] };
    const report = await api.lintDefinitions(mod.tools, {
      thresholds: { minTdqs: 4.5, minServer: 'A' },
      serverName: 'notes',
    });
    expect(report.thresholds.passed).toBe(true);
    expect(report.judge).toBe('offline');
    const prefixed = await api.lintDefinitions(mod.tools, { register: { prefix: 'kb_' } });
    expect(prefixed.tools.map((t) => t.name)).toEqual([
      'kb_notes_outline',
      'kb_notes_read',
      'kb_notes_search',
    ]);
  });
});
