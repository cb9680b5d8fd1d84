// Token counts of what an agent reads: @lectern/lint's countTokens (the lint's tokenizer) when
// the lint package has it; until then a TEMPORARY estimate of one token per four characters,
// named as such in every row that uses it.
import * as lint from '@lectern/lint';

const lintCount = typeof lint.countTokens === 'function' ? lint.countTokens : null;

/** Which counter this run uses, as the rows and the results file name it. */
export const TOKENIZER = lintCount
  ? '@lectern/lint countTokens'
  : 'TEMPORARY estimate: characters / 4 (@lectern/lint has no countTokens yet)';

/** Tokens of `text` as a model reads it. */
export function countTokens(text) {
  if (lintCount) return lintCount(text);
  return Math.ceil(text.length / 4);
}

/** The text blocks of an MCP tool result, as the client hands them to the model. */
export function resultText(result) {
  return (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
