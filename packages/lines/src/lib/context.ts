import type { ToolAnnotations } from '@lectern/core';
import type { LineLimits } from './limits.js';
import type { Workspaces } from './workspaces.js';

/** What every line tool is built from: its workspaces and its resolved limits. */
export interface LinesContext {
  workspaces: Workspaces;
  limits: LineLimits;
}

/** All four line tools only read, give the same answer for the same files, and stay local. */
export const READ_ONLY: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/** `16 MiB`, `32 KiB` or `1234 bytes`, for descriptions. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
