// Types of stats.mjs, for the TypeScript tests that import it.

/** Latency of one query kind. */
export interface KindFigures {
  n: number;
  p50: number;
  p95: number;
}
export function quantile(sorted: readonly number[], q: number): number;
export function median(samples: readonly number[]): number;
export function summarize(samples: readonly number[]): {
  n: number;
  median: number;
  min: number;
  max: number;
  p95: number;
};
export function round(x: number): number;
export function pairedRatio(
  a: readonly number[],
  b: readonly number[],
): { value: number; low: number; high: number; pairs: number };
export function byKind(
  kinds: readonly string[],
  samples: readonly number[],
): Record<string, KindFigures>;
export function kindLine(kinds: Record<string, KindFigures>): string;
