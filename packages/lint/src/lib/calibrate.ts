import { createHash } from 'node:crypto';
import { z } from 'zod';
import { computeTdqs, TIER_ORDER, tierOf } from './arithmetic.js';
import { OfflineJudge } from './offline-judge.js';
import { scoreTool } from './score.js';
import { DIMENSIONS, type Dimension, type Judge, type Tier, type ToolInput } from './types.js';

const dimScore = z.number().int().min(1).max(5);
const tierSchema = z.enum(['A', 'B', 'C', 'D', 'F']);

/**
 * One scored example in a calibration JSONL file (one JSON object per line). Published pages
 * often show only some dimensions (and not always the overall score): record what is visible;
 * every statistic is computed on the rows that show it.
 */
export const CalibrationExampleSchema = z
  .object({
    id: z.string().describe('Stable identifier of the example, e.g. "000".'),
    source: z.string().optional().describe('Where the published scores come from.'),
    seen: z.string().optional().describe('The date the published scores were seen.'),
    server: z.string().optional().describe('The server the tool belongs to.'),
    group: z
      .string()
      .optional()
      .describe('Split group: servers that publish the same definition share one.'),
    split: z
      .enum(['dev', 'test'])
      .optional()
      .describe('Which part of the corpus the example belongs to (fit on dev, report on test).'),
    fold: z
      .number()
      .int()
      .min(0)
      .nullable()
      .optional()
      .describe('Cross-validation fold of a dev example.'),
    tool: z
      .object({
        name: z.string().min(1).describe('Tool name.'),
        title: z.string().nullable().optional().describe('Display title, if any.'),
        description: z.string().nullable().optional().describe('The description being scored.'),
        inputSchema: z
          .record(z.string(), z.unknown())
          .nullable()
          .optional()
          .describe('Input JSON Schema.'),
        outputSchema: z
          .record(z.string(), z.unknown())
          .nullable()
          .optional()
          .describe('Output JSON Schema.'),
        annotations: z
          .record(z.string(), z.unknown())
          .nullable()
          .optional()
          .describe('MCP annotations.'),
      })
      .loose()
      .describe('The tool definition as tools/list shows it.'),
    siblingToolNames: z
      .array(z.string())
      .default([])
      .describe('Names of the other tools on the server.'),
    published: z
      .object({
        scores: z
          .object(
            Object.fromEntries(DIMENSIONS.map((d) => [d, dimScore.optional()])) as Record<
              Dimension,
              z.ZodOptional<typeof dimScore>
            >,
          )
          .describe('The dimension scores the page shows (any subset).'),
        tdqs: z.number().min(1).max(5).optional().describe('Published TDQS, when shown.'),
        tier: tierSchema.optional().describe('Published tier, when shown.'),
      })
      .refine((p) => Object.keys(p.scores).length > 0 || p.tdqs !== undefined, {
        message: 'published needs at least one dimension score or the TDQS',
      })
      .describe('The published per-dimension scores, TDQS and tier.'),
    note: z.string().optional().describe('Anything a reader should know about the example.'),
  })
  .loose();

/** A parsed calibration example. */
export type CalibrationExample = z.infer<typeof CalibrationExampleSchema>;

/** Parses JSONL text; throws naming the line number and the problem on a bad line. */
export function parseCalibrationJsonl(text: string): CalibrationExample[] {
  const out: CalibrationExample[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new Error(`line ${i + 1}: not valid JSON (${(error as Error).message})`);
    }
    const parsed = CalibrationExampleSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `line ${i + 1}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid example'}`,
      );
    }
    out.push(parsed.data);
  });
  if (out.length === 0) throw new Error('the file holds no examples (one JSON object per line).');
  return out;
}

/** Per-example calibration outcome. */
export interface CalibrationRow {
  id: string;
  tool: string;
  server?: string;
  published: { scores: Partial<Record<Dimension, number>>; tdqs?: number; tier?: Tier };
  predicted: { scores: Record<Dimension, number>; tdqs: number; tier: Tier };
  /** Predicted minus published TDQS, to one decimal (null when the TDQS is not published). */
  tdqsDelta: number | null;
  /** Largest |predicted − published| over the dimensions the page shows. */
  maxDimensionError: number;
  /** Same tier as published (null when the tier is not published). */
  sameTier: boolean | null;
  /** Within ±1 on every shown dimension, ±0.3 TDQS and the same tier (when shown). */
  withinBounds: boolean;
}

/** Agreement on one dimension, over the examples that show it. */
export interface DimensionAgreement {
  /** Examples that show this dimension. */
  n: number;
  exactMatch: number;
  exactMatchRate: number;
  /** Share of examples within ±1. */
  withinOneRate: number;
  mae: number;
  /** Mean predicted minus published (positive = the judge scores high). */
  bias: number;
}

/** The registry's own disagreement with itself, from repeated observations of one definition. */
export interface NoiseFloor {
  /** Definitions observed more than once (same name, description, schema and annotations). */
  repeatedDefinitions: number;
  /** Observations in those groups. */
  observations: number;
  /**
   * Per dimension: the mean absolute difference between two observations of one definition and
   * how many pairs it uses; `bestAnswerMae`, the error of the best single integer score per
   * definition, chosen knowing every observation (in-sample: an optimistic, low bound on the
   * error of an ideal deterministic judge on a new observation); and `leaveOneOutMae`, each
   * observation against the best integer for the other observations of its definition (the
   * mean over tied integers), a pessimistic bound; both over `observations`.
   */
  dimensions: Record<
    Dimension,
    {
      pairs: number;
      meanAbsDiff: number;
      bestAnswerMae: number;
      leaveOneOutMae: number;
      observations: number;
    }
  >;
  /**
   * The same for the overall score, plus the TDQS MAE of always answering the group's mean and
   * its median (the median is the best one answer per definition can do: the floor for a
   * deterministic judge), over `observations` observations in `definitions` definitions with
   * at least two published overall scores; and `bestTierAgreement`, the share of those
   * observations in their group's most common tier (the most any deterministic judge can agree).
   * Both are in-sample (the answer is chosen knowing the observation it is scored on), so they
   * are optimistic. Their leave-one-out counterparts are pessimistic: `leaveOneOutMae` scores
   * each observation against the median of the other observations of its definition, and
   * `leaveOneOutTierAgreement` against their most common tier (a tie between tiers counts the
   * share of tied tiers that match). The error of an ideal judge on a new observation lies
   * between the two.
   */
  tdqs: {
    pairs: number;
    meanAbsDiff: number;
    maeToGroupMean: number;
    maeToGroupMedian: number;
    leaveOneOutMae: number;
    bestTierAgreement: number;
    leaveOneOutTierAgreement: number;
    definitions: number;
    observations: number;
  };
}

/** How the judge does on the examples of one published tier. */
export interface TierAgreement {
  n: number;
  recall: number;
  mae: number | null;
  bias: number | null;
}

/** Calibration summary over a set of examples. */
export interface CalibrationResult {
  judge: string;
  count: number;
  dimensions: Record<Dimension, DimensionAgreement>;
  /** Share of all shown dimension scores that are within ±1. */
  withinOneRate: number;
  /** TDQS MAE over the examples that show the overall score (null when none does). */
  tdqsMae: number | null;
  tdqsCount: number;
  /** Share of examples with a published tier that land in the same tier. */
  tierAgreement: number | null;
  /** confusion[published][predicted] counts, over the examples with a published tier. */
  tierConfusion: Record<Tier, Record<Tier, number>>;
  /**
   * Per published tier (only tiers that occur): how many examples, the share the judge puts in
   * the same tier (recall), and the TDQS MAE and bias (predicted − published) over those that
   * show a TDQS.
   */
  tiers: Partial<Record<Tier, TierAgreement>>;
  /** The mean of the per-tier recalls over the tiers that occur (null without tiers). */
  balancedTierAccuracy: number | null;
  noise: NoiseFloor | null;
  rows: CalibrationRow[];
  allWithinBounds: boolean;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The median of a non-empty list (the mean of the two middle values for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The integer scores 1-5 that minimize the total absolute error to `values`. */
function bestIntegers(values: readonly number[]): number[] {
  const cost = [1, 2, 3, 4, 5].map((c) => values.reduce((a, v) => a + Math.abs(v - c), 0));
  const least = Math.min(...cost);
  return [1, 2, 3, 4, 5].filter((_, i) => (cost[i] as number) <= least + 1e-9);
}

/** The most common tiers of `values` (several on a tie). */
function modalTiers(values: readonly number[]): Tier[] {
  const tiers = new Map<Tier, number>();
  for (const v of values) tiers.set(tierOf(v), (tiers.get(tierOf(v)) ?? 0) + 1);
  const most = Math.max(...tiers.values());
  return [...tiers].filter(([, n]) => n === most).map(([t]) => t);
}

/** Each value of `g` with the others: the leave-one-out pairs. */
const leaveOneOut = (g: readonly number[]) =>
  g.map((v, i) => [v, [...g.slice(0, i), ...g.slice(i + 1)]] as const);

/** Identity of a definition: two observations with the same key are repeats of one tool. */
export function definitionKey(ex: Pick<CalibrationExample, 'tool'>): string {
  const t = ex.tool;
  return createHash('sha256')
    .update(
      JSON.stringify([
        t.name,
        t.title ?? null,
        t.description ?? null,
        t.inputSchema ?? null,
        t.outputSchema ?? null,
        t.annotations ?? null,
      ]),
    )
    .digest('hex');
}

/**
 * Measures the registry's own noise: for every definition observed more than once, the mean
 * absolute difference between each pair of its observations, per dimension and for the TDQS.
 * Returns null when no definition repeats.
 */
export function noiseFloor(examples: readonly CalibrationExample[]): NoiseFloor | null {
  const groups = new Map<string, CalibrationExample[]>();
  for (const ex of examples) {
    const k = definitionKey(ex);
    groups.set(k, [...(groups.get(k) ?? []), ex]);
  }
  const repeated = [...groups.values()].filter((g) => g.length > 1);
  if (repeated.length === 0) return null;
  const pairStats = (values: number[][]) => {
    let pairs = 0;
    let sum = 0;
    for (const g of values) {
      for (let i = 0; i < g.length; i++) {
        for (let j = i + 1; j < g.length; j++) {
          pairs++;
          sum += Math.abs((g[i] as number) - (g[j] as number));
        }
      }
    }
    return { pairs, meanAbsDiff: pairs ? round3(sum / pairs) : 0 };
  };
  const bestAnswer = (values: number[][]) => {
    let n = 0;
    let sum = 0;
    let loo = 0;
    for (const g of values) {
      if (g.length < 2) continue;
      n += g.length;
      const c = bestIntegers(g)[0] as number;
      sum += g.reduce((a, v) => a + Math.abs(v - c), 0);
      for (const [v, others] of leaveOneOut(g)) {
        const cs = bestIntegers(others);
        loo += cs.reduce((a, x) => a + Math.abs(v - x), 0) / cs.length;
      }
    }
    return {
      bestAnswerMae: n ? round3(sum / n) : 0,
      leaveOneOutMae: n ? round3(loo / n) : 0,
      observations: n,
    };
  };
  const dimensions = Object.fromEntries(
    DIMENSIONS.map((d) => {
      const values = repeated.map((g) =>
        g.map((e) => e.published.scores[d]).filter((v): v is number => v !== undefined),
      );
      return [d, { ...pairStats(values), ...bestAnswer(values) }];
    }),
  ) as NoiseFloor['dimensions'];
  const tdqsGroups = repeated.map((g) =>
    g.map((e) => e.published.tdqs).filter((v): v is number => v !== undefined),
  );
  let n = 0;
  let defs = 0;
  let abs = 0;
  let absMedian = 0;
  let absLoo = 0;
  let modal = 0;
  let modalLoo = 0;
  for (const g of tdqsGroups) {
    if (g.length < 2) continue;
    defs++;
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    const mid = median(g);
    const top = modalTiers(g)[0] as Tier;
    for (const v of g) {
      n++;
      abs += Math.abs(v - mean);
      absMedian += Math.abs(v - mid);
      if (tierOf(v) === top) modal++;
    }
    for (const [v, others] of leaveOneOut(g)) {
      absLoo += Math.abs(v - median(others));
      const tops = modalTiers(others);
      modalLoo += tops.filter((t) => t === tierOf(v)).length / tops.length;
    }
  }
  return {
    repeatedDefinitions: repeated.length,
    observations: repeated.reduce((a, g) => a + g.length, 0),
    dimensions,
    tdqs: {
      ...pairStats(tdqsGroups),
      maeToGroupMean: n ? round3(abs / n) : 0,
      maeToGroupMedian: n ? round3(absMedian / n) : 0,
      leaveOneOutMae: n ? round3(absLoo / n) : 0,
      bestTierAgreement: n ? round3(modal / n) : 0,
      leaveOneOutTierAgreement: n ? round3(modalLoo / n) : 0,
      definitions: defs,
      observations: n,
    },
  };
}

function emptyConfusion(): Record<Tier, Record<Tier, number>> {
  return Object.fromEntries(
    TIER_ORDER.map((p) => [p, Object.fromEntries(TIER_ORDER.map((q) => [q, 0]))]),
  ) as Record<Tier, Record<Tier, number>>;
}

/**
 * Scores each example with `judge` (the offline judge by default) and compares against the
 * published scores, on what each example shows: per dimension exact matches, share within ±1,
 * mean absolute error and bias; overall TDQS MAE, tier agreement and the tier confusion matrix;
 * and, when definitions repeat, the registry's own noise floor.
 */
export async function calibrate(
  examples: readonly CalibrationExample[],
  options: { judge?: Judge } = {},
): Promise<CalibrationResult> {
  const judge = options.judge ?? new OfflineJudge();
  const rows: CalibrationRow[] = [];
  for (const ex of examples) {
    const score = await scoreTool(ex.tool as ToolInput, ex.siblingToolNames, { judge });
    const shown = DIMENSIONS.filter((d) => ex.published.scores[d] !== undefined);
    const errors = shown.map((d) => Math.abs(score.scores[d] - (ex.published.scores[d] as number)));
    const published = ex.published;
    const tier = published.tier ?? (published.tdqs !== undefined ? tierOf(published.tdqs) : null);
    const delta =
      published.tdqs !== undefined ? Math.round((score.tdqs - published.tdqs) * 10) / 10 : null;
    const maxErr = errors.length ? Math.max(...errors) : 0;
    const sameTier = tier === null ? null : score.tier === tier;
    rows.push({
      id: ex.id,
      tool: ex.tool.name,
      ...(ex.server ? { server: ex.server } : {}),
      published: {
        scores: { ...published.scores },
        ...(published.tdqs !== undefined ? { tdqs: published.tdqs } : {}),
        ...(tier !== null ? { tier } : {}),
      },
      predicted: { scores: score.scores, tdqs: score.tdqs, tier: score.tier },
      tdqsDelta: delta,
      maxDimensionError: maxErr,
      sameTier,
      withinBounds:
        maxErr <= 1 && (delta === null || Math.abs(delta) <= 0.3 + 1e-9) && sameTier !== false,
    });
  }
  let shownTotal = 0;
  let withinTotal = 0;
  const dimensions = Object.fromEntries(
    DIMENSIONS.map((d) => {
      const rs = rows.filter((r) => r.published.scores[d] !== undefined);
      const diffs = rs.map((r) => r.predicted.scores[d] - (r.published.scores[d] as number));
      const n = rs.length;
      const exact = diffs.filter((x) => x === 0).length;
      const within = diffs.filter((x) => Math.abs(x) <= 1).length;
      shownTotal += n;
      withinTotal += within;
      return [
        d,
        {
          n,
          exactMatch: exact,
          exactMatchRate: n ? round3(exact / n) : 0,
          withinOneRate: n ? round3(within / n) : 0,
          mae: n ? round3(diffs.reduce((a, x) => a + Math.abs(x), 0) / n) : 0,
          bias: n ? round3(diffs.reduce((a, x) => a + x, 0) / n) : 0,
        },
      ];
    }),
  ) as Record<Dimension, DimensionAgreement>;
  const withTdqs = rows.filter((r) => r.tdqsDelta !== null);
  const withTier = rows.filter((r) => r.sameTier !== null);
  const tierConfusion = emptyConfusion();
  for (const r of withTier) {
    const p = r.published.tier as Tier;
    tierConfusion[p][r.predicted.tier]++;
  }
  const tiers: Partial<Record<Tier, TierAgreement>> = {};
  for (const t of TIER_ORDER) {
    const rs = withTier.filter((r) => r.published.tier === t);
    if (!rs.length) continue;
    const ds = rs.filter((r) => r.tdqsDelta !== null).map((r) => r.tdqsDelta as number);
    tiers[t] = {
      n: rs.length,
      recall: round3(rs.filter((r) => r.sameTier).length / rs.length),
      mae: ds.length ? round3(ds.reduce((a, x) => a + Math.abs(x), 0) / ds.length) : null,
      bias: ds.length ? round3(ds.reduce((a, x) => a + x, 0) / ds.length) : null,
    };
  }
  const recalls = Object.values(tiers).map((t) => t.recall);
  return {
    judge: judge.name,
    count: rows.length,
    tiers,
    balancedTierAccuracy: recalls.length
      ? round3(recalls.reduce((a, x) => a + x, 0) / recalls.length)
      : null,
    dimensions,
    withinOneRate: shownTotal ? round3(withinTotal / shownTotal) : 0,
    tdqsMae: withTdqs.length
      ? round3(withTdqs.reduce((a, r) => a + Math.abs(r.tdqsDelta as number), 0) / withTdqs.length)
      : null,
    tdqsCount: withTdqs.length,
    tierAgreement: withTier.length
      ? round3(withTier.filter((r) => r.sameTier).length / withTier.length)
      : null,
    tierConfusion,
    noise: noiseFloor(examples),
    rows,
    allWithinBounds: rows.every((r) => r.withinBounds),
  };
}

/** The TDQS a full set of published dimension scores implies (for examples that show all six). */
export function publishedTdqs(scores: Partial<Record<Dimension, number>>): number | null {
  if (DIMENSIONS.some((d) => scores[d] === undefined)) return null;
  return computeTdqs(scores as Record<Dimension, number>);
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/**
 * A plain-text calibration report: per dimension (over the examples that show it) the count,
 * exact matches, share within ±1, MAE and bias; the TDQS MAE, tier agreement and tier confusion;
 * the noise floor when definitions repeat; then the examples, worst first (all of them, or the
 * `maxRows` worst).
 */
export function formatCalibration(
  result: CalibrationResult,
  options: { maxRows?: number } = {},
): string {
  const lines: string[] = [];
  lines.push(`Calibration of the ${result.judge} judge over ${result.count} example(s)`);
  lines.push('');
  lines.push('dimension                    n   exact   rate  ±1 rate    MAE   bias');
  for (const d of DIMENSIONS) {
    const r = result.dimensions[d];
    lines.push(
      `${d.padEnd(26)} ${String(r.n).padStart(3)}  ${`${r.exactMatch}/${r.n}`.padStart(6)}  ${pct(r.exactMatchRate).padStart(5)}  ${pct(r.withinOneRate).padStart(7)}  ${r.mae.toFixed(2).padStart(5)}  ${`${r.bias >= 0 ? '+' : ''}${r.bias.toFixed(2)}`.padStart(5)}`,
    );
  }
  lines.push(`all shown dimension scores within ±1: ${pct(result.withinOneRate)}`);
  lines.push('');
  if (result.tdqsMae !== null) {
    lines.push(`TDQS MAE ${result.tdqsMae.toFixed(2)} over ${result.tdqsCount} example(s)`);
  } else {
    lines.push('TDQS MAE: no example shows a published TDQS');
  }
  if (result.tierAgreement !== null) {
    const withTier = result.rows.filter((r) => r.sameTier !== null).length;
    lines.push(`tier agreement ${pct(result.tierAgreement)} over ${withTier} example(s)`);
    const used = TIER_ORDER.filter(
      (t) =>
        TIER_ORDER.some((u) => result.tierConfusion[t][u] > 0) ||
        TIER_ORDER.some((u) => result.tierConfusion[u][t] > 0),
    );
    lines.push(
      `balanced tier accuracy ${pct(result.balancedTierAccuracy ?? 0)} (the mean of the per-tier recalls)`,
    );
    lines.push(
      `tier confusion (rows published, columns predicted): ${used.join(' ')}    n  same tier   MAE   bias`,
    );
    for (const p of used) {
      const t = result.tiers[p];
      const fig = (x: number | null | undefined, sign = false) =>
        x === null || x === undefined ? '—' : `${sign && x >= 0 ? '+' : ''}${x.toFixed(2)}`;
      lines.push(
        `  ${p}  ${used.map((q) => String(result.tierConfusion[p][q]).padStart(3)).join(' ')}  ${String(t?.n ?? 0).padStart(4)}  ${pct(t?.recall ?? 0).padStart(9)}  ${fig(t?.mae).padStart(5)}  ${fig(t?.bias, true).padStart(5)}`,
      );
    }
  }
  if (result.noise) {
    const n = result.noise;
    lines.push('');
    lines.push(
      `registry noise floor: ${n.repeatedDefinitions} definition(s) observed more than once (${n.observations} observations)`,
      '  error of an ideal deterministic judge on a new observation, as a band: in-sample (one answer',
      '  per definition chosen knowing every observation: optimistic) – leave-one-out (each',
      '  observation against the answer for the others of its definition: pessimistic)',
    );
    for (const d of DIMENSIONS) {
      const x = n.dimensions[d];
      if (x.pairs)
        lines.push(
          `  ${d.padEnd(26)} pairs differ by ${x.meanAbsDiff.toFixed(2)} (${x.pairs} pair(s)); best single score ${x.bestAnswerMae.toFixed(2)}–${x.leaveOneOutMae.toFixed(2)} off (${x.observations} observations)`,
        );
    }
    if (n.tdqs.pairs) {
      lines.push(
        `  ${'TDQS'.padEnd(26)} pairs differ by ${n.tdqs.meanAbsDiff.toFixed(2)} (${n.tdqs.pairs} pair(s)); the group median is ${n.tdqs.maeToGroupMedian.toFixed(2)}–${n.tdqs.leaveOneOutMae.toFixed(2)} off (in-sample–leave-one-out; the group mean, in-sample: ${n.tdqs.maeToGroupMean.toFixed(2)}; ${n.tdqs.observations} observations of ${n.tdqs.definitions} definitions)`,
        `  ${'best tier agreement'.padEnd(26)} ${pct(n.tdqs.leaveOneOutTierAgreement)}–${pct(n.tdqs.bestTierAgreement)} (leave-one-out–in-sample: each observation against the most common tier of the others of its definition, or of all of them)`,
      );
    }
  }
  lines.push('');
  const sorted = [...result.rows].sort(
    (a, b) =>
      Math.abs(b.tdqsDelta ?? 0) - Math.abs(a.tdqsDelta ?? 0) ||
      b.maxDimensionError - a.maxDimensionError,
  );
  const shown = options.maxRows !== undefined ? sorted.slice(0, options.maxRows) : sorted;
  const w = Math.max(4, ...shown.map((r) => r.tool.length));
  const iw = Math.max(5, ...shown.map((r) => r.id.length));
  if (options.maxRows !== undefined && shown.length < sorted.length) {
    lines.push(`the ${shown.length} worst of ${sorted.length} examples:`);
  }
  lines.push(
    `${'id'.padEnd(iw)}  ${'tool'.padEnd(w)}  published  predicted  delta  max|d|  tier  bounds`,
  );
  for (const r of shown) {
    const delta =
      r.tdqsDelta === null ? '—' : `${r.tdqsDelta >= 0 ? '+' : ''}${r.tdqsDelta.toFixed(1)}`;
    const pub =
      r.published.tdqs !== undefined ? `${r.published.tdqs.toFixed(1)} ${r.published.tier}` : '—';
    const tier = r.sameTier === null ? '—' : r.sameTier ? 'same' : 'DIFF';
    lines.push(
      `${r.id.padEnd(iw)}  ${r.tool.padEnd(w)}  ${pub.padStart(9)}  ${`${r.predicted.tdqs.toFixed(1)} ${r.predicted.tier}`.padStart(9)}  ${delta.padStart(5)}  ${String(r.maxDimensionError).padStart(6)}  ${tier.padEnd(4)}  ${r.withinBounds ? 'ok' : 'OUT'}`,
    );
  }
  lines.push('');
  lines.push(
    `${result.tdqsMae !== null ? `TDQS MAE ${result.tdqsMae.toFixed(2)} · ` : ''}${result.allWithinBounds ? 'all examples within bounds' : 'some examples out of bounds'}`,
  );
  return `${lines.join('\n')}\n`;
}
