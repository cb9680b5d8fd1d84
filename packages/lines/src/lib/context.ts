import type { LineLimits } from './limits.js';
import type { Workspaces } from './workspaces.js';

/** What every line tool is built from: its workspaces and its resolved limits. */
export interface LinesContext {
  workspaces: Workspaces;
  limits: LineLimits;
}

/** `16 MiB`, `32 KiB` or `1234 bytes`, for descriptions. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
