import {
  decodeUtf8,
  isToolError,
  jsonBytes,
  paginateChars,
  planLines,
  readFileInRoot,
  sha256,
  splitLines,
} from '@lectern/core';
import { closest, fileKey, parseFilePath, type StoreContext } from './context.js';
import { MemoryError } from './lib/errors.js';
import { fragmentBytes, MAX_FRAGMENT_LINES } from './limits.js';
import type { Fragment, ReadFragmentOptions } from './types.js';

/** Checks a fragment request before any work: the file's path and the line range. */
export function checkFragment(ctx: StoreContext, options: ReadFragmentOptions) {
  const { source, rel } = parseFilePath(ctx, options.path);
  const { startLine, endLine, startChar } = options;
  if (startChar !== undefined && !(Number.isInteger(startChar) && startChar >= 0)) {
    throw new MemoryError(
      'INVALID_RANGE',
      `{param:startChar} must be a whole number of at least 0, got ${startChar}.`,
      { param: 'startChar' },
    );
  }
  for (const [param, v] of [
    ['startLine', startLine],
    ['endLine', endLine],
  ] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1)) {
      throw new MemoryError(
        'INVALID_RANGE',
        `{param:${param}} must be a whole number of at least 1, got ${v}.`,
        { param },
      );
    }
  }
  if (startLine !== undefined && endLine !== undefined && endLine < startLine) {
    throw new MemoryError(
      'INVALID_RANGE',
      `{param:endLine} ${endLine} is before {param:startLine} ${startLine}; {param:endLine} is the last line to return, inclusive.`,
      { param: 'endLine' },
    );
  }
  const start =
    startLine ?? (endLine !== undefined ? Math.max(1, endLine - MAX_FRAGMENT_LINES + 1) : 1);
  const count = endLine !== undefined ? endLine - start + 1 : MAX_FRAGMENT_LINES;
  if (count > MAX_FRAGMENT_LINES) {
    throw new MemoryError(
      'RANGE_TOO_LARGE',
      `lines ${start}-${endLine} are ${count} lines; at most ${MAX_FRAGMENT_LINES} can be read per call. Ask for {param:startLine} ${start} to {param:endLine} ${start + MAX_FRAGMENT_LINES - 1}, then continue from there.`,
      {
        param: 'endLine',
        details: {
          max_lines: MAX_FRAGMENT_LINES,
          suggested_end_line: start + MAX_FRAGMENT_LINES - 1,
        },
      },
    );
  }
  return { source, rel, start, count, startChar: startChar ?? 0 };
}

/** Reads numbered lines of an indexed file as it is on disk now (see `MemoryStore.readFragment`). */
export async function readFragmentLines(
  ctx: StoreContext,
  checked: ReturnType<typeof checkFragment>,
): Promise<Fragment> {
  const { source, rel, start, count, startChar } = checked;
  const budget = fragmentBytes(ctx.limits.maxOutputBytes);
  const shown = fileKey(source.id, rel);
  const found = await ctx.backend.lookup(source.id, rel);
  if (found.kind === 'problem') {
    throw new MemoryError(
      'NOT_INDEXED',
      `${shown} is not indexed: the last reindex could not index it (${found.problem.code}: ${found.problem.message}).`,
      { param: 'path', literal: true, details: { reason: found.problem.code } },
    );
  }
  if (found.kind === 'none') {
    const candidates = (await ctx.backend.paths(source.id)).map((p) => fileKey(source.id, p));
    throw new MemoryError(
      'NOT_INDEXED',
      `${escapeBraces(shown)} is not in the memory index; only indexed files can be read. Use a path from {op:search}, or run {op:reindex} if the file is new.`,
      { param: 'path', suggestions: closest(shown, candidates) },
    );
  }
  const row = found.file;
  let bytes: Buffer;
  try {
    ({ bytes } = await readFileInRoot(source.root, rel, { maxBytes: ctx.limits.maxFileBytes }));
  } catch (error) {
    if (isToolError(error) && error.code === 'PATH_NOT_FOUND') {
      throw new MemoryError(
        'FILE_DELETED',
        `${escapeBraces(shown)} was indexed but no longer exists on disk; run {op:reindex}, then search again.`,
        { param: 'path' },
      );
    }
    throw isToolError(error) ? MemoryError.about(error, 'path') : error;
  }
  const version = sha256(bytes);
  let text: string;
  try {
    ({ text } = decodeUtf8(bytes, { subject: `file ${shown}` }));
  } catch (error) {
    throw isToolError(error) ? MemoryError.about(error, 'path') : error;
  }
  const lines = splitLines(text);
  if (startChar > 0 && start <= lines.length && startChar > lines[start - 1]!.length) {
    throw new MemoryError(
      'INVALID_RANGE',
      `{param:startChar} ${startChar} is past the end of line ${start}, which has ${lines[start - 1]!.length} characters.`,
      { param: 'startChar', details: { line_chars: lines[start - 1]!.length } },
    );
  }
  // The first line from startChar on (a cut line read on); the others whole.
  const lineText = (n: number) =>
    n === start && startChar > 0 ? lines[n - 1]!.slice(startChar) : lines[n - 1]!;
  // Each line costs its JSON string body, its number, a tab and a line break (escaped).
  const prefix = String(Math.min(lines.length, start + count)).length + 4;
  let plan: ReturnType<typeof planLines>;
  let cut: { content: string; next: number; chars: number } | null = null;
  try {
    plan = planLines({
      totalLines: lines.length,
      startLine: start,
      lineCount: count,
      maxBytes: budget,
      lineBytes: (n) => jsonBytes(lineText(n)) - 2 + prefix,
    });
  } catch (error) {
    if (isToolError(error) && error.code === 'LINE_TOO_LONG') {
      // One line longer than the whole budget: its first part, cut with a marker, and where to
      // read on (next_start_line is the same line, next_start_char the first character left).
      const line = lines[start - 1]!;
      const page = paginateChars(line, {
        offset: startChar,
        maxChars: line.length,
        maxBytes: budget - prefix - 256,
      });
      cut = { content: page.content, next: page.next_offset ?? line.length, chars: line.length };
      plan = {
        start_line: start,
        end_line: start,
        total_lines: lines.length,
        has_more: true,
        has_earlier: start > 1,
        next_start_line: start,
        limited_by_bytes: true,
      };
    } else if (isToolError(error) && error.code === 'LINE_OUT_OF_RANGE') {
      throw MemoryError.about(error, 'startLine');
    } else {
      throw error;
    }
  }
  const width = String(plan.end_line).length;
  const out: string[] = [];
  if (cut) {
    out.push(
      `${start}\t${cut.content} … [line ${start} cut: characters ${startChar} to ${cut.next} of ${cut.chars}; continue at next_start_char]`,
    );
  } else {
    for (let n = plan.start_line; n <= plan.end_line; n++) {
      out.push(`${String(n).padStart(width, ' ')}\t${lineText(n)}`);
    }
  }
  return {
    path: shown,
    source: source.id,
    start_line: plan.start_line,
    end_line: plan.end_line,
    total_lines: plan.total_lines,
    content: out.join('\n'),
    has_more: plan.has_more,
    next_start_line: plan.next_start_line,
    next_start_char: cut ? cut.next : null,
    version,
    indexed_version: row.sha256,
    stale: version !== row.sha256,
  };
}

/** A file path inside a message template: its braces cannot be taken for placeholders. */
function escapeBraces(text: string): string {
  return text.replace(/\{(param|op):/g, '{\u200b$1:');
}
