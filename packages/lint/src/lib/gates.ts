import { toolTitle } from './signals.js';
import type { ToolInput } from './types.js';

/** Stage 2 gate: a `null`, absent or whitespace-only description. */
export function hasNoDescription(tool: ToolInput): boolean {
  return typeof tool.description !== 'string' || tool.description.trim() === '';
}

/**
 * Stage 2 gate: the description, lowercased and trimmed, is exactly the tool's name or title.
 * Such a tool is flagged and its purpose clarity is capped at 2 after judgement.
 */
export function isTautological(tool: ToolInput): boolean {
  if (hasNoDescription(tool)) return false;
  const d = (tool.description as string).trim().toLowerCase();
  const title = toolTitle(tool);
  return (
    d === tool.name.trim().toLowerCase() || (title !== null && d === title.trim().toLowerCase())
  );
}
