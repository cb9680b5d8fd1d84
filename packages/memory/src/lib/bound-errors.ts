import { DEFAULT_OUTPUT_BYTES, OutputBudget } from '@lectern/core';

/** Bytes of the per-file error list one reindex result carries at most. */
export const MAX_REINDEX_ERROR_BYTES = DEFAULT_OUTPUT_BYTES / 4;

/**
 * Keeps the result within its byte budget: the error list stops before it would pass
 * {@link MAX_REINDEX_ERROR_BYTES}, and a warning says how many more files failed (they stay
 * counted as problems by memory_list_sources, and the next reindex reports them again).
 */
export function boundErrors<R extends { errors: Array<object>; warnings: string[] }>(
  result: R,
  maxBytes = MAX_REINDEX_ERROR_BYTES,
): R {
  const budget = new OutputBudget(maxBytes);
  const kept = result.errors.findIndex((e) => !budget.take(e));
  if (kept === -1) return result;
  const more = result.errors.length - kept;
  return {
    ...result,
    errors: result.errors.slice(0, kept),
    warnings: [
      ...result.warnings,
      `${more} more files could not be indexed than errors lists (it keeps to ${maxBytes} bytes); memory_list_sources counts them as problems.`,
    ],
  };
}
