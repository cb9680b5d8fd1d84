import type { StoreContext } from './context.js';
import { unlistedOf } from './lib/unlisted.js';
import { type WalkStats, walkSource } from './lib/walk.js';
import type { SourceStatus } from './types.js';

/**
 * Per-source counts from the index, and what changed on disk since (a stat walk: new files,
 * files whose size or modification time differs, files gone). Never reads or hashes a file.
 */
export async function sourceStatus(
  ctx: StoreContext,
): Promise<{ built: boolean; sources: SourceStatus[] }> {
  const db = await ctx.backend.status();
  const sources: SourceStatus[] = ctx.sources.map((s) => {
    const rows = new Map<string, { size: number; mtime: number }>();
    let bytes = 0;
    for (const f of db.files) {
      if (f.source !== s.id) continue;
      rows.set(f.path, f);
      bytes += f.size;
    }
    const problems = new Map<string, { size: number; mtime: number }>();
    for (const p of db.problems) if (p.source === s.id) problems.set(p.path, p);
    const recorded = db.sources.find((x) => x.id === s.id);
    const sameRoot = ctx.backend.sharedAcrossMachines === true || recorded?.root === s.root.path;
    const pending = { new: 0, changed: 0, deleted: 0 };
    const seen = new Set<string>();
    const walkStats: WalkStats = { links: 0, special: 0, unreadable: 0, unnamed: [] };
    for (const f of walkSource(s, walkStats)) {
      seen.add(f.path);
      const row = sameRoot ? rows.get(f.path) : undefined;
      if (row) {
        if (row.size !== f.size || row.mtime !== f.mtime) pending.changed++;
        continue;
      }
      const p = problems.get(f.path);
      if (p && p.size === f.size && p.mtime === f.mtime) continue;
      pending.new++;
    }
    for (const p of rows.keys()) if (!seen.has(p)) pending.deleted++;
    return {
      id: s.id,
      include: [...s.include],
      exclude: [...s.exclude],
      files: rows.size,
      chunks: db.chunks.get(s.id) ?? 0,
      bytes,
      indexed_at: recorded?.indexedAt ?? null,
      pending,
      problems: problems.size,
      unlisted: unlistedOf(walkStats.unnamed),
    };
  });
  return { built: db.built, sources };
}
