import type { AnyToolDefinition, RegisterOptions } from '@lectern/core';
import { OfflineJudge } from './offline-judge.js';
import { evaluateThresholds, type LintReport, type Thresholds } from './report.js';
import { type ServerOptions, scoreServer } from './server.js';
import { toolsFromDefinitions } from './targets.js';
import { contextReport } from './tokens.js';
import type { ToolInput } from './types.js';

/** Options for {@link lintTools}. */
export interface LintOptions extends Omit<ServerOptions, 'toolScores'> {
  thresholds?: Thresholds;
  /** Shown in reports as where the tools came from. Default "tools". */
  target?: string;
  /** A file results can point at (SARIF, annotations). */
  file?: string;
}

/**
 * Scores a server's tools and applies CI thresholds: the programmatic equivalent of
 * `lectern-lint lint`. Resolves to the full report (tools, server, threshold outcome).
 */
export async function lintTools(
  tools: readonly ToolInput[],
  options: LintOptions = {},
): Promise<LintReport> {
  const judge = options.judge ?? new OfflineJudge();
  const report = await scoreServer(tools, { ...options, judge });
  const context = contextReport(tools);
  return {
    target: options.target ?? 'tools',
    ...(options.file ? { file: options.file } : {}),
    judge: judge.name,
    ...report,
    context,
    thresholds: evaluateThresholds(report, options.thresholds ?? {}, context),
  };
}

/**
 * Lints Lectern tool definitions directly (zod schemas and all): lists them exactly as a server
 * registered with `register` options would publish them, then runs {@link lintTools}. For CI:
 * `lintDefinitions(tools, { thresholds: { minTdqs: 4.5, minServer: 'A' } })`.
 */
export async function lintDefinitions(
  definitions: readonly AnyToolDefinition[],
  options: LintOptions & { register?: RegisterOptions } = {},
): Promise<LintReport> {
  const { register, ...rest } = options;
  return lintTools(await toolsFromDefinitions(definitions, register ?? {}), rest);
}
