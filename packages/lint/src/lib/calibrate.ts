import { z } from 'zod';
import { OfflineJudge } from './offline-judge.js';
import { scoreTool } from './score.js';
import { DIMENSIONS, type Dimension, type Judge, type Tier, type ToolInput } from './types.js';

const dimScore = z.number().int().min(1).max(5);

/** One scored example in a calibration JSONL file (one JSON object per line). */
export const CalibrationExampleSchema = z.object({
  id: z.string().describe('Stable identifier of the example, e.g. "000".'),
  source: z.string().optional().describe('Where the published scores come from.'),
  server: z.string().optional().describe('The server the tool belongs to.'),
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
      scores: z.object(
        Object.fromEntries(DIMENSIONS.map((d) => [d, dimScore])) as Record<
          Dimension,
          typeof dimScore
        >,
      ),
      tdqs: z.number().min(1).max(5).describe('Published TDQS.'),
      tier: z.enum(['A', 'B', 'C', 'D', 'F']).describe('Published tier.'),
    })
    .describe('The published per-dimension scores, TDQS and tier.'),
  note: z.string().optional().describe('Anything a reader should know about the example.'),
});

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
  published: { scores: Record<Dimension, number>; tdqs: number; tier: Tier };
  predicted: { scores: Record<Dimension, number>; tdqs: number; tier: Tier };
  /** Predicted minus published TDQS, to one decimal. */
  tdqsDelta: number;
  /** Largest |predicted − published| over the six dimensions. */
  maxDimensionError: number;
  sameTier: boolean;
  /** Within ±1 per dimension, ±0.3 TDQS and the same tier. */
  withinBounds: boolean;
}

/** Calibration summary over a set of examples. */
export interface CalibrationResult {
  judge: string;
  count: number;
  dimensions: Record<Dimension, { exactMatch: number; exactMatchRate: number; mae: number }>;
  tdqsMae: number;
  rows: CalibrationRow[];
  allWithinBounds: boolean;
}

/**
 * Scores each example with `judge` (the offline judge by default) and compares against the
 * published scores: per-dimension exact matches and mean absolute error, per-example TDQS delta,
 * tier agreement, and whether each example is within ±1 per dimension and ±0.3 TDQS with the
 * same tier.
 */
export async function calibrate(
  examples: readonly CalibrationExample[],
  options: { judge?: Judge } = {},
): Promise<CalibrationResult> {
  const judge = options.judge ?? new OfflineJudge();
  const rows: CalibrationRow[] = [];
  for (const ex of examples) {
    const score = await scoreTool(ex.tool as ToolInput, ex.siblingToolNames, { judge });
    const errors = DIMENSIONS.map((d) => Math.abs(score.scores[d] - ex.published.scores[d]));
    const delta = Math.round((score.tdqs - ex.published.tdqs) * 10) / 10;
    const maxErr = Math.max(...errors);
    const sameTier = score.tier === ex.published.tier;
    rows.push({
      id: ex.id,
      tool: ex.tool.name,
      published: ex.published,
      predicted: { scores: score.scores, tdqs: score.tdqs, tier: score.tier },
      tdqsDelta: delta,
      maxDimensionError: maxErr,
      sameTier,
      withinBounds: maxErr <= 1 && Math.abs(delta) <= 0.3 + 1e-9 && sameTier,
    });
  }
  const n = rows.length;
  const dimensions = Object.fromEntries(
    DIMENSIONS.map((d) => {
      const exact = rows.filter((r) => r.predicted.scores[d] === r.published.scores[d]).length;
      const abs = rows.reduce(
        (acc, r) => acc + Math.abs(r.predicted.scores[d] - r.published.scores[d]),
        0,
      );
      return [d, { exactMatch: exact, exactMatchRate: n ? exact / n : 0, mae: n ? abs / n : 0 }];
    }),
  ) as CalibrationResult['dimensions'];
  const tdqsMae = n ? rows.reduce((acc, r) => acc + Math.abs(r.tdqsDelta), 0) / n : 0;
  return {
    judge: judge.name,
    count: n,
    dimensions,
    tdqsMae: Math.round(tdqsMae * 1000) / 1000,
    rows,
    allWithinBounds: rows.every((r) => r.withinBounds),
  };
}

/** A plain-text calibration table: per-dimension exact-match and MAE, then per-example TDQS. */
export function formatCalibration(result: CalibrationResult): string {
  const lines: string[] = [];
  lines.push(`Calibration of the ${result.judge} judge over ${result.count} example(s)`);
  lines.push('');
  lines.push('dimension                  exact   rate    MAE');
  for (const d of DIMENSIONS) {
    const r = result.dimensions[d];
    lines.push(
      `${d.padEnd(26)} ${`${r.exactMatch}/${result.count}`.padStart(5)}  ${(r.exactMatchRate * 100).toFixed(0).padStart(4)}%  ${r.mae.toFixed(2).padStart(5)}`,
    );
  }
  lines.push('');
  const w = Math.max(4, ...result.rows.map((r) => r.tool.length));
  const iw = Math.max(5, ...result.rows.map((r) => r.id.length));
  lines.push(
    `${'id'.padEnd(iw)}  ${'tool'.padEnd(w)}  published  predicted  delta  max|d|  tier  bounds`,
  );
  for (const r of result.rows) {
    const delta = `${r.tdqsDelta >= 0 ? '+' : ''}${r.tdqsDelta.toFixed(1)}`;
    lines.push(
      `${r.id.padEnd(iw)}  ${r.tool.padEnd(w)}  ${`${r.published.tdqs.toFixed(1)} ${r.published.tier}`.padStart(9)}  ${`${r.predicted.tdqs.toFixed(1)} ${r.predicted.tier}`.padStart(9)}  ${delta.padStart(5)}  ${String(r.maxDimensionError).padStart(6)}  ${(r.sameTier ? 'same' : 'DIFF').padEnd(4)}  ${r.withinBounds ? 'ok' : 'OUT'}`,
    );
  }
  lines.push('');
  lines.push(
    `TDQS MAE ${result.tdqsMae.toFixed(2)} · ${result.allWithinBounds ? 'all examples within bounds' : 'some examples out of bounds'}`,
  );
  return `${lines.join('\n')}\n`;
}
