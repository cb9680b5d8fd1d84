// Types of ir-metrics.mjs, for the TypeScript tests that import it.

/** One question's judgments: document id -> gain (above 0: relevant). */
export type Judged = Readonly<Record<string, number>>;
/** Every question's judgments, by question id. */
export type Qrels = Readonly<Record<string, Judged>>;
/** Figures of one system over a set of questions (means, unrounded). */
export interface Figures {
  n: number;
  ndcg10: number;
  recall10: number;
  recall100: number;
  refused: number;
}

export function uniqueDocs(ids: readonly string[]): string[];
export function dcgAt(ranked: readonly string[], judged: Judged, k: number): number;
export function idealDcgAt(judged: Judged, k: number): number;
export function ndcgAt(ranked: readonly string[], judged: Judged, k: number): number;
export function recallAt(ranked: readonly string[], judged: Judged, k: number): number;
export function overlapAt(a: readonly string[], b: readonly string[], k: number): number;
export function splits(questions: readonly { id: string }[]): {
  all: string[];
  dev: string[];
  test: string[];
};
export function evaluate(
  ids: readonly string[],
  runs: ReadonlyMap<string, readonly string[] | null>,
  qrels: Qrels,
): Figures;
export function meanOverlap(
  ids: readonly string[],
  runsA: ReadonlyMap<string, readonly string[] | null>,
  runsB: ReadonlyMap<string, readonly string[] | null>,
  k?: number,
): { mean: number; meanAnswered: number; answered: number };
