import { TIER_ORDER, tierAtLeast } from './arithmetic.js';
import type { ContextReport } from './tokens.js';
import { DIMENSIONS, type ServerReport, type Tier } from './types.js';

/** CI thresholds; a report passes when none is violated. */
export interface Thresholds {
  /** Every tool's TDQS must be at least this (e.g. 4.5). */
  minTdqs?: number;
  /** Every tool's tier must be at least this (e.g. "B"). */
  minTier?: Tier;
  /** The server's overall score (a number) or overall tier (a letter) must be at least this. */
  minServer?: number | Tier;
  /**
   * Fail when any of these occurs: `flag` (any tool or server flag), `smell` (any smell),
   * `no-description`, `tautological-description`, `annotation-contradiction`, `shadowing-risk`,
   * `shadow-candidate`, or a dimension key (a smell on that dimension).
   */
  failOn?: string[];
  /**
   * Every tool's context cost (name, title, description and input schema, in `o200k_base`
   * tokens; the output schema not included) must be at most this.
   */
  maxToolTokens?: number;
  /** The sum of the tools' context costs (as for `maxToolTokens`) must be at most this. */
  maxServerTokens?: number;
}

/** The `--fail-on` values {@link evaluateThresholds} understands. */
export const FAIL_ON_VALUES: readonly string[] = [
  'flag',
  'smell',
  'no-description',
  'tautological-description',
  'annotation-contradiction',
  'shadowing-risk',
  'shadow-candidate',
  ...DIMENSIONS,
];

/** One violated threshold. */
export interface ThresholdFailure {
  /** The tool it concerns; absent for server-level failures. */
  tool?: string;
  rule: string;
  message: string;
}

/** The outcome of {@link evaluateThresholds}. */
export interface ThresholdOutcome {
  passed: boolean;
  failures: ThresholdFailure[];
  thresholds: Thresholds;
}

/** A full lint result: what was scored, by which judge, with the threshold outcome. */
export interface LintReport extends ServerReport {
  target: string;
  /** A file results can point at, when the target has one. */
  file?: string;
  judge: string;
  /** What each tool and the whole tool list cost in a model's context, in tokens. */
  context: ContextReport;
  thresholds: ThresholdOutcome;
}

const FLAG_KEYS: Record<string, string> = {
  'no-description': 'No Description',
  'tautological-description': 'Tautological Description',
  'annotation-contradiction': 'Annotation Contradiction',
  'shadowing-risk': 'Shadowing Risk',
};

/** Checks thresholds values; throws a clear error for an unknown tier or `--fail-on` value. */
export function validateThresholds(t: Thresholds): void {
  if (t.minTdqs !== undefined && !(t.minTdqs >= 0 && t.minTdqs <= 5)) {
    throw new RangeError(`min TDQS must be a number from 0 to 5, got ${t.minTdqs}.`);
  }
  if (t.minTier !== undefined && !TIER_ORDER.includes(t.minTier)) {
    throw new RangeError(`min tier must be one of ${TIER_ORDER.join(', ')}, got "${t.minTier}".`);
  }
  if (typeof t.minServer === 'number' && !(t.minServer >= 0 && t.minServer <= 5)) {
    throw new RangeError(`min server score must be 0-5 or a tier letter, got ${t.minServer}.`);
  }
  if (typeof t.minServer === 'string' && !TIER_ORDER.includes(t.minServer)) {
    throw new RangeError(
      `min server tier must be one of ${TIER_ORDER.join(', ')}, got "${t.minServer}".`,
    );
  }
  for (const [key, flag] of [
    ['maxToolTokens', 'max tool tokens'],
    ['maxServerTokens', 'max server tokens'],
  ] as const) {
    const n = t[key];
    if (n !== undefined && !(Number.isInteger(n) && n >= 0)) {
      throw new RangeError(`${flag} must be a whole number of tokens (0 or more), got ${n}.`);
    }
  }
  for (const f of t.failOn ?? []) {
    if (!FAIL_ON_VALUES.includes(f)) {
      throw new RangeError(`unknown --fail-on value "${f}"; use: ${FAIL_ON_VALUES.join(', ')}.`);
    }
  }
}

/**
 * Applies thresholds to a scored server; every violation is listed, tool by tool. The token
 * budgets (`maxToolTokens`, `maxServerTokens`) read `context` (from `contextReport(tools)`);
 * without it a set budget fails with a message saying the cost was not measured.
 */
export function evaluateThresholds(
  report: ServerReport,
  thresholds: Thresholds,
  context?: ContextReport,
): ThresholdOutcome {
  validateThresholds(thresholds);
  const failures: ThresholdFailure[] = [];
  const budgets =
    thresholds.maxToolTokens !== undefined || thresholds.maxServerTokens !== undefined;
  if (budgets && !context) {
    failures.push({
      rule: thresholds.maxToolTokens !== undefined ? 'max-tool-tokens' : 'max-server-tokens',
      message: 'the context cost was not measured, so the token budget cannot be checked',
    });
  }
  if (context && thresholds.maxToolTokens !== undefined) {
    for (const c of context.tools) {
      if (c.tokens > thresholds.maxToolTokens) {
        failures.push({
          tool: c.name,
          rule: 'max-tool-tokens',
          message: `costs ${c.tokens} ${context.encoding} tokens in context, over the budget of ${thresholds.maxToolTokens} (${c.tokens - thresholds.maxToolTokens} over)`,
        });
      }
    }
  }
  if (context && thresholds.maxServerTokens !== undefined) {
    const total = context.server.tokens;
    if (total > thresholds.maxServerTokens) {
      const top = [...context.tools]
        .sort((a, b) => b.tokens - a.tokens || (a.name < b.name ? -1 : 1))
        .slice(0, 3)
        .map((c) => `${c.name} ${c.tokens}`)
        .join(', ');
      failures.push({
        rule: 'max-server-tokens',
        message: `the ${context.server.toolCount} tools cost ${total} ${context.encoding} tokens in context, over the budget of ${thresholds.maxServerTokens} (${total - thresholds.maxServerTokens} over; largest: ${top})`,
      });
    }
  }
  const failOn = new Set(thresholds.failOn ?? []);
  for (const t of report.tools) {
    if (thresholds.minTdqs !== undefined && t.tdqs < thresholds.minTdqs - 1e-9) {
      failures.push({
        tool: t.name,
        rule: 'min-tdqs',
        message: `TDQS ${t.tdqs.toFixed(1)} is below ${thresholds.minTdqs}`,
      });
    }
    if (thresholds.minTier !== undefined && !tierAtLeast(t.tier, thresholds.minTier)) {
      failures.push({
        tool: t.name,
        rule: 'min-tier',
        message: `tier ${t.tier} is below ${thresholds.minTier}`,
      });
    }
    const allFlags = [...t.flags, ...t.serverFlags] as string[];
    if (failOn.has('flag') && allFlags.length) {
      failures.push({
        tool: t.name,
        rule: 'fail-on:flag',
        message: `flagged: ${allFlags.join(', ')}`,
      });
    }
    if (failOn.has('smell') && t.smells.length) {
      failures.push({
        tool: t.name,
        rule: 'fail-on:smell',
        message: `smells: ${t.smells.join(', ')}`,
      });
    }
    for (const [key, flag] of Object.entries(FLAG_KEYS)) {
      if (failOn.has(key) && allFlags.includes(flag)) {
        failures.push({ tool: t.name, rule: `fail-on:${key}`, message: `flagged: ${flag}` });
      }
    }
    for (const d of DIMENSIONS) {
      if (failOn.has(d) && t.smells.includes(d)) {
        failures.push({
          tool: t.name,
          rule: `fail-on:${d}`,
          message: `${d} scored ${t.scores[d]} (< 3)`,
        });
      }
    }
  }
  const s = report.server;
  if (failOn.has('shadow-candidate')) {
    for (const c of s.shadowCandidates) {
      failures.push({
        tool: c.tool,
        rule: 'fail-on:shadow-candidate',
        message: `may be shadowed by ${c.cheaperSibling} (cost ${c.invocationCost} vs ${c.cheaperSiblingInvocationCost})`,
      });
    }
  }
  if (thresholds.minServer !== undefined) {
    if (s.overallScore === null || s.overallTier === null) {
      failures.push({
        rule: 'min-server',
        message: 'the server score could not be computed (fewer than 80% of tools scored)',
      });
    } else if (typeof thresholds.minServer === 'number') {
      if (s.overallScore < thresholds.minServer - 1e-9) {
        failures.push({
          rule: 'min-server',
          message: `server overall ${s.overallScore.toFixed(1)} is below ${thresholds.minServer}`,
        });
      }
    } else if (!tierAtLeast(s.overallTier, thresholds.minServer)) {
      failures.push({
        rule: 'min-server',
        message: `server overall tier ${s.overallTier} is below ${thresholds.minServer}`,
      });
    }
  }
  return { passed: failures.length === 0, failures, thresholds };
}
