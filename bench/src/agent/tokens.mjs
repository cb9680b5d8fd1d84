// Token counts of what an agent reads: @lectern/lint's countTokens (o200k_base, the lint's
// tokenizer for context costs).
import { countTokens as lintCount, TOKEN_ENCODING } from '@lectern/lint';

/** Which counter this run uses, as the rows and the results file name it. */
export const TOKENIZER = `@lectern/lint countTokens (${TOKEN_ENCODING})`;

/** Tokens of `text` as a model reads it. */
export function countTokens(text) {
  return lintCount(text);
}

/** The text blocks of an MCP tool result, as the client hands them to the model. */
export function resultText(result) {
  return (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
