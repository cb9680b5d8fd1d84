import { decodeUtf8, isToolError, readFileInRoot, sha256, splitLines } from '@lectern/core';
import { chunkLines, isMarkdownPath } from '@lectern/markdown';
import type {
  ChunkRecord,
  FileIdentity,
  IndexWriter,
  StoredFile,
  StoredProblem,
} from './backend/types.js';
import type { StoreContext } from './context.js';
import { analyseChunk, noteLanguage } from './lib/analysis.js';
import { MemoryError } from './lib/errors.js';
import type { Language } from './lib/language.js';
import { mergeUnlisted, type Unlisted, unlistedOf } from './lib/unlisted.js';
import {
  changeTime,
  type ResolvedSource,
  type WalkedFile,
  type WalkStats,
  walkSourceAsync,
} from './lib/walk.js';
import { RACY_MS, READ_CONCURRENCY } from './limits.js';
import type { ReindexError, ReindexOptions, ReindexResult } from './types.js';

/** The error a cancelled reindex throws. */
export function cancelled(): MemoryError {
  return new MemoryError('CANCELLED', 'the reindex was cancelled; the index is unchanged.');
}

/** A file read, decoded and chunked, ready to store. */
interface Prepared {
  language: Language;
  chunks: ChunkRecord[];
}

/**
 * Splits a decoded file into chunk records: line ranges and heading paths from `chunkLines`,
 * plus each chunk's byte range in the file, so a search can read back just that range.
 */
export function prepareFile(
  path: string,
  bytes: Uint8Array,
  text: string,
  bom: boolean,
  defaultLanguage: Language,
  maxChunkWords: number,
): Prepared {
  const lines = splitLines(text);
  const markdown = isMarkdownPath(path);
  const chunks = chunkLines(lines, { markdown, maxWords: maxChunkWords });
  const language = noteLanguage(lines, text, markdown, defaultLanguage);
  // Character offset where each line starts.
  const lineStart: number[] = [0];
  for (let p = text.indexOf('\n'); p !== -1; p = text.indexOf('\n', p + 1)) lineStart.push(p + 1);
  const base = bom ? 3 : 0;
  const ascii = bytes.length - base === text.length;
  // Offsets only grow from one chunk boundary to the next, so bytes are counted once.
  let atChar = 0;
  let atByte = base;
  const toByte = (char: number) => {
    if (ascii) return base + char;
    if (char < atChar) {
      atChar = 0;
      atByte = base;
    }
    atByte += Buffer.byteLength(text.slice(atChar, char), 'utf8');
    atChar = char;
    return atByte;
  };
  const records: ChunkRecord[] = chunks.map((c) => {
    const startByte = toByte(lineStart[c.startLine - 1] ?? text.length);
    const endByte = toByte(lineStart[c.endLine] ?? text.length);
    return {
      startLine: c.startLine,
      endLine: c.endLine,
      startByte,
      endByte,
      headingPath: c.headingPath,
      text: c.text,
      fields: analyseChunk(path, c.headingPath, c.text, language),
    };
  });
  return { language, chunks: records };
}

interface Work {
  k: string;
  source: ResolvedSource;
  file: WalkedFile;
  row?: StoredFile;
}

/**
 * Brings the index up to date with the source folders in one backend transaction: walks them
 * (before the transaction: it only reads the disk), trusts files whose size, modification
 * time and inode are unchanged, reads and hashes the rest, keeps the chunks of files whose
 * content hash is unchanged (touched, or renamed), re-chunks the others, and drops what is gone.
 */
export async function reindexSources(
  ctx: StoreContext,
  options: ReindexOptions,
  warnings: string[],
): Promise<ReindexResult> {
  const t0 = performance.now();
  let full = options.full === true;
  const signal = options.signal;
  if (signal?.aborted) throw cancelled();
  const startedAt = Date.now();
  const now = new Date(startedAt).toISOString();
  const errors: ReindexError[] = [];
  const counts = { added: 0, updated: 0, renamed: 0, removed: 0, unchanged: 0 };

  const walked: Array<{ source: ResolvedSource; files: WalkedFile[] }> = [];
  const unlisted: Unlisted[] = [];
  for (const s of ctx.sources) {
    const watcher = ctx.watchers?.get(s.id);
    const stats: WalkStats = { links: 0, special: 0, unreadable: 0, unnamed: [] };
    const files = watcher
      ? await watcher.walk({
          full,
          stats,
          walk: () => walkSourceAsync(s, { worker: ctx.statWorker, stats }),
        })
      : await walkSourceAsync(s, { worker: ctx.statWorker, stats });
    unlisted.push(unlistedOf(stats.unnamed, `${s.id}/`));
    if (files.length === 0) {
      warnings.push(
        `source "${s.id}" has no files matching ${s.include.join(', ')}; nothing is indexed from it.`,
      );
    }
    walked.push({ source: s, files });
  }
  // Keys of every file on disk, built only when something needs to ask.
  let onDisk: Set<string> | undefined;
  const isOnDisk = (k: string) => {
    if (!onDisk) {
      onDisk = new Set();
      for (const { files } of walked) for (const f of files) onDisk.add(f.key);
    }
    return onDisk.has(k);
  };

  const totals = await ctx.backend.update(
    async (w) => {
      const built = await w.builtLanguage();
      if (built !== undefined && built !== ctx.language && !full) {
        // Word forms depend on the default language: rebuild everything in the new one.
        warnings.push(
          `the default language changed from ${built} to ${ctx.language}, so every note was indexed again.`,
        );
        full = true;
      }
      const files = await w.files();
      // Sources no longer configured, or whose folder moved (in an index of one machine):
      // forget what was indexed from them.
      const gone = new Set<string>();
      for (const r of await w.recordedSources()) {
        const s = ctx.byId.get(r.id);
        if (!s || (!ctx.backend.sharedAcrossMachines && s.root.path !== r.root)) gone.add(r.id);
      }
      for (const f of files.values()) if (!ctx.byId.has(f.source)) gone.add(f.source);
      for (const id of gone) counts.removed += await w.dropSource(id);
      const current = (k: string): StoredFile | undefined => {
        const row = files.get(k);
        return row && !gone.has(row.source) ? row : undefined;
      };

      let problems: ReadonlyMap<string, StoredProblem> = await w.problems();
      const before = new Set<string>();
      if (full) {
        for (const [k, row] of files) if (!gone.has(row.source)) before.add(k);
        for (const k of before) if (!isOnDisk(k)) counts.removed++;
        await w.clear();
        problems = new Map();
      }
      const previous = (k: string) => (full ? undefined : current(k));

      const work: Work[] = [];
      let matched = 0;
      for (const { source, files: list } of walked) {
        for (const file of list) {
          const k = file.key;
          const row = previous(k);
          if (row) {
            matched++;
            if (
              row.size === file.size &&
              row.mtime === file.mtime &&
              (row.ino === 0 || row.ino === file.ino) &&
              !row.racy
            ) {
              counts.unchanged++;
            } else {
              work.push({ k, source, file, row });
            }
            continue;
          }
          const problem = problems.size > 0 ? problems.get(k) : undefined;
          if (problem && problem.size === file.size && problem.mtime === file.mtime) {
            errors.push({ path: k, code: problem.code, message: problem.message });
            continue;
          }
          work.push({ k, source, file });
        }
      }
      for (const [k, p] of problems) if (!isOnDisk(k)) await w.clearProblem(p.source, p.path);
      // Indexed files no longer on disk, by content hash: a new file with the same hash is a rename.
      const missingBySha = new Map<string, StoredFile[]>();
      const missing = new Set<StoredFile>();
      // Every indexed file was seen on disk unless fewer rows matched than the index holds.
      let live = files.size;
      if (gone.size > 0) for (const row of files.values()) if (gone.has(row.source)) live--;
      if (!full && matched < live) {
        for (const [k, row] of files) {
          if (gone.has(row.source) || isOnDisk(k)) continue;
          missing.add(row);
          const list = missingBySha.get(row.sha256) ?? [];
          list.push(row);
          missingBySha.set(row.sha256, list);
        }
      }

      const total = work.length;
      let done = 0;
      let lastReport = 0;
      const report = async (force: boolean) => {
        if (!options.onProgress) return;
        const t = performance.now();
        if (!force && t - lastReport < 100) return;
        lastReport = t;
        await options.onProgress(done, total, `indexed ${done} of ${total} changed files`);
      };
      await report(true);

      const fail = async (item: Work, code: string, message: string) => {
        if (item.row) {
          await w.removeFile(item.row.id);
          counts.removed++;
        }
        await w.setProblem({
          source: item.source.id,
          path: item.file.path,
          size: item.file.size,
          mtime: item.file.mtime,
          code,
          message,
        });
        errors.push({ path: item.k, code, message });
      };

      const apply = async (
        writer: IndexWriter,
        item: Work,
        bytes: Buffer,
        stat: { size: number; mtimeMs: number; ctimeMs: number; ino: number },
      ) => {
        const sha = sha256(bytes);
        const { source, file, row } = item;
        const identity: FileIdentity = {
          source: source.id,
          path: file.path,
          size: stat.size,
          mtime: changeTime(stat),
          ino: stat.ino,
          sha256: sha,
          indexedAt: now,
          racy: startedAt - changeTime(stat) < RACY_MS,
        };
        if (row && row.sha256 === sha) {
          await writer.touchFile(row.id, identity);
          counts.unchanged++;
          return;
        }
        if (!row) {
          const moved = missingBySha.get(sha)?.find((r) => missing.has(r));
          if (moved) {
            missing.delete(moved);
            await writer.touchFile(moved.id, identity);
            await writer.clearProblem(source.id, file.path);
            counts.renamed++;
            return;
          }
        }
        let decoded: ReturnType<typeof decodeUtf8>;
        try {
          decoded = decodeUtf8(bytes, { subject: `file ${item.k}` });
        } catch (error) {
          if (!isToolError(error)) throw error;
          await fail(item, error.code, error.message);
          return;
        }
        const prepared = prepareFile(
          file.path,
          bytes,
          decoded.text,
          decoded.bom,
          ctx.language,
          ctx.limits.maxChunkWords,
        );
        const record = { ...identity, language: prepared.language };
        if (row) {
          await writer.replaceFile(row.id, record, prepared.chunks);
          counts.updated++;
        } else {
          await writer.addFile(record, prepared.chunks);
          if (before.has(item.k)) counts.updated++;
          else counts.added++;
        }
        await writer.clearProblem(source.id, file.path);
      };

      let next = 0;
      let stop = false;
      const worker = async () => {
        while (next < work.length && !stop) {
          if (signal?.aborted) throw cancelled();
          const item = work[next++]!;
          if (item.file.size > ctx.limits.maxFileBytes) {
            await fail(
              item,
              'FILE_TOO_LARGE',
              `file ${item.k} is ${item.file.size} bytes, over the ${ctx.limits.maxFileBytes}-byte limit; it is not indexed.`,
            );
          } else {
            let read: Awaited<ReturnType<typeof readFileInRoot>> | undefined;
            try {
              read = await readFileInRoot(item.source.root, item.file.path, {
                maxBytes: ctx.limits.maxFileBytes,
              });
            } catch (error) {
              if (!isToolError(error)) throw error;
              if (error.code === 'PATH_NOT_FOUND') {
                // Deleted since the walk: treat like any deleted file.
                if (item.row) missing.add(item.row);
              } else {
                await fail(item, error.code, error.message);
              }
            }
            // Another worker failed while this one was reading: write nothing more.
            if (stop) return;
            if (read) await apply(w, item, read.bytes, read.stat);
          }
          done++;
          await report(done === total);
        }
      };
      const settled = await Promise.allSettled(
        Array.from({ length: Math.min(READ_CONCURRENCY, Math.max(1, total)) }, async () => {
          try {
            await worker();
          } catch (error) {
            stop = true;
            throw error;
          }
        }),
      );
      for (const r of settled) if (r.status === 'rejected') throw r.reason;
      if (signal?.aborted) throw cancelled();

      for (const row of missing) {
        await w.removeFile(row.id);
        counts.removed++;
      }
      return w.finish({
        sources: ctx.sources.map((s) => ({ id: s.id, root: s.root.path })),
        indexedAt: now,
        full,
        language: ctx.language,
      });
    },
    { signal, busyTimeoutMs: ctx.limits.busyTimeoutMs },
  );
  errors.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    full,
    ...counts,
    errors,
    files: totals.files,
    chunks: totals.chunks,
    duration_ms: Math.round(performance.now() - t0),
    unlisted: mergeUnlisted(unlisted),
    warnings,
  };
}
