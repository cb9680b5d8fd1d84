// Types of judge.mjs, for the TypeScript tests that import it.

export function grepWords(question: string): string[];
export interface Gold {
  headingLine: string;
  bodyStart: string;
}
export function holdsAnswer(text: string, gold: Gold): boolean;
export const BODY_CHARS: number;
export function goldOf(sectionMarkdown: string): Gold;
export function readPlan(
  matches: ReadonlyArray<{ line: number; text: string }>,
  words: readonly string[],
  totalLines: number,
  options?: { span?: number; before?: number; after?: number },
): { head: number } | { tail: number };
