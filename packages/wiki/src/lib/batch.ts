import { posix } from 'node:path';
import {
  decodeUtf8,
  detectLineEndings,
  isToolError,
  openInRoot,
  readFileInRoot,
  resolveForWrite,
  sha256,
  sha256Handle,
  ToolError,
} from '@lectern/core';
import { formatWikiLink } from '@lectern/markdown';
import { unifiedDiff } from './diff.js';
import { headingKey } from './markdown.js';
import { formatLogEntry, nameKey } from './names.js';
import type { PageAnalysis } from './page.js';
import { LinkResolver } from './resolve.js';
import { LOG_FILE, type Wiki } from './wiki.js';
import { spliceAll } from './wikilinks.js';

/** One write_batch operation, as validated by the tool's schema. */
export type Operation =
  | { op: 'put'; path: string; content: string; expected_version?: string | undefined }
  | { op: 'append'; path: string; content: string; expected_version?: string | undefined }
  | {
      op: 'replace';
      path: string;
      old_text: string;
      new_text: string;
      expected_occurrences?: number | undefined;
      expected_version?: string | undefined;
    }
  | { op: 'delete'; path: string; expected_version?: string | undefined }
  | { op: 'move'; path: string; new_path: string; expected_version?: string | undefined };

/** Why one operation was refused. */
export interface OperationFailure {
  index: number;
  op: Operation['op'];
  path: string;
  code: string;
  message: string;
  /** The page's version before the batch, null when it does not exist. */
  current_version: string | null;
  suggestions?: string[];
}

/** One page the batch changes. */
export interface PlannedChange {
  path: string;
  action: 'create' | 'update' | 'delete';
  cause: 'operation' | 'link_update' | 'log';
  before: Buffer | null;
  after: Buffer | null;
  previous_version: string | null;
  version: string | null;
  /** Rewritten wikilinks / Markdown links, for link updates. */
  links_updated?: number;
}

/** A wikilink that resolves to no page, heading or block after the batch. */
export interface BrokenLink {
  path: string;
  line: number;
  link: string;
  reason: 'missing_page' | 'missing_heading' | 'missing_block';
}

/** The outcome of planning a batch against the wiki's current state. */
export interface BatchPlan {
  failures: OperationFailure[];
  operations: Array<{
    index: number;
    op: Operation['op'];
    path: string;
    new_path?: string;
    version: string | null;
    replacements?: number;
    links_updated?: number;
  }>;
  changes: PlannedChange[];
  broken_links: BrokenLink[];
  broken_links_truncated: boolean;
  log_entry: string | null;
  warnings: string[];
}

const MAX_BROKEN_LINKS = 100;

const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UTF8 = new TextEncoder();

/** The page as the batch sees it: its state on disk and its state after the operations so far. */
interface Slot {
  path: string;
  diskExists: boolean;
  diskBytes: Buffer | null;
  diskVersion: string | null;
  /** Present when the page cannot be edited as text (over the cap, not UTF-8). */
  problem: ToolError | null;
  exists: boolean;
  /** Current text (without BOM) when the page is text. */
  text: string | null;
  bom: boolean;
  /** Current bytes when the page is not text (moved verbatim). */
  rawBytes: Buffer | null;
  /** An earlier operation of this batch already checked and changed this page. */
  pinned: boolean;
  /** How the slot was last changed. */
  cause: PlannedChange['cause'] | null;
  linksUpdated: number;
  /** Memo of the version of `text` (hashing is the costly part of {@link versionOf}). */
  memo?: { text: string | null; bom: boolean; exists: boolean; version: string | null };
}

function bytesOf(slot: Slot): Buffer | null {
  if (!slot.exists) return null;
  if (slot.text === null) return slot.rawBytes;
  const body = Buffer.from(UTF8.encode(slot.text));
  return slot.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

/** U+FEFF: the character a UTF-8 byte order mark decodes to. */
const BOM = '\ufeff';

/**
 * Sets a page's whole text as an agent wrote it: a leading U+FEFF is the page's byte order mark
 * (read_page raw=true returns it that way), so a page read raw and written back is unchanged.
 */
function setVerbatim(slot: Slot, text: string): void {
  slot.bom = text.startsWith(BOM);
  slot.text = slot.bom ? text.slice(1) : text;
}

function versionOf(slot: Slot): string | null {
  const m = slot.memo;
  if (
    m &&
    m.text === slot.text &&
    m.bom === slot.bom &&
    m.exists === slot.exists &&
    slot.text !== null
  ) {
    return m.version;
  }
  const b = bytesOf(slot);
  const version = b === null ? null : sha256(b);
  slot.memo = { text: slot.text, bom: slot.bom, exists: slot.exists, version };
  return version;
}

function fail(code: string, message: string, suggestions?: string[]): ToolError {
  return new ToolError(code, message, suggestions ? { suggestions } : {});
}

function lineEnding(text: string): string {
  return detectLineEndings(text) === 'crlf' ? '\r\n' : '\n';
}

function countOccurrences(text: string, needle: string): { count: number; lines: number[] } {
  let count = 0;
  const lines: number[] = [];
  let at = text.indexOf(needle);
  while (at !== -1) {
    count++;
    if (lines.length < 10) {
      let line = 1;
      for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
      lines.push(line);
    }
    at = text.indexOf(needle, at + needle.length);
  }
  return { count, lines };
}

function encodeMarkdownPath(path: string): string {
  return path.replace(/%/g, '%25').replace(/ /g, '%20').replace(/\(/g, '%28').replace(/\)/g, '%29');
}

/** Resolves a Markdown link destination: relative to the page first, then like a wikilink. */
function resolveMarkdown(resolver: LinkResolver, dest: string, from: string): string | null {
  const relative = dest.startsWith('./') || dest.startsWith('../') ? dest : `./${dest}`;
  return (
    resolver.resolve(relative, from) ?? (dest.startsWith('.') ? null : resolver.resolve(dest, from))
  );
}

/**
 * Plans a batch: loads every page it touches, applies the operations in order to an in-memory
 * copy, rewrites links for moves, appends the log entry, checks sizes and collects what would
 * be written and which links would point nowhere. Reads only; call it under the wiki lock so
 * the plan stays true until it is applied.
 */
export class BatchPlanner {
  private readonly slots = new Map<string, Slot>();
  private present = new Set<string>();
  /** Present paths by {@link nameKey}: who a new path would be confused with. */
  private readonly keyPresent = new Map<string, string>();
  /** Folders of present paths by {@link nameKey}. */
  private readonly keyFolders = new Map<string, string>();
  private readonly warnings: string[] = [];
  /** Pages with several hard links, left out of link checks and rewrites. */
  private readonly hardLinked = new Set<string>();

  constructor(
    private readonly wiki: Wiki,
    files: readonly string[],
  ) {
    for (const f of files) this.addPresent(f);
  }

  private addPresent(path: string): void {
    this.present.add(path);
    this.keyPresent.set(nameKey(path), path);
    for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
      const folder = path.slice(0, i);
      if (!this.keyFolders.has(nameKey(folder))) this.keyFolders.set(nameKey(folder), folder);
    }
  }

  private removePresent(path: string): void {
    this.present.delete(path);
    const key = nameKey(path);
    if (this.keyPresent.get(key) === path) {
      this.keyPresent.delete(key);
      for (const p of this.present) if (nameKey(p) === key) this.keyPresent.set(key, p);
    }
  }

  private async slot(path: string): Promise<Slot> {
    const cached = this.slots.get(path);
    if (cached) return cached;
    const target = await resolveForWrite(this.wiki.root, path);
    const slot: Slot = {
      path,
      diskExists: target.existing !== null,
      diskBytes: null,
      diskVersion: null,
      problem: null,
      exists: target.existing !== null,
      text: null,
      bom: false,
      rawBytes: null,
      pinned: false,
      cause: null,
      linksUpdated: 0,
    };
    if (target.existing) {
      try {
        const { bytes } = await readFileInRoot(this.wiki.root, path, {
          maxBytes: this.wiki.maxPageBytes,
        });
        slot.diskBytes = bytes;
        slot.diskVersion = sha256(bytes);
        slot.rawBytes = bytes;
        try {
          const decoded = decodeUtf8(bytes, { subject: `page ${path}` });
          slot.text = decoded.text;
          slot.bom = decoded.bom;
        } catch (e) {
          if (!isToolError(e)) throw e;
          slot.problem = e;
        }
      } catch (e) {
        if (!isToolError(e) || e.code !== 'FILE_TOO_LARGE') throw e;
        slot.problem = new ToolError(
          'PAGE_TOO_LARGE',
          `page ${path} is over the ${this.wiki.maxPageBytes}-byte page limit, so write_batch cannot change it.`,
        );
        const opened = await openInRoot(this.wiki.root, path, {
          maxBytes: Number.MAX_SAFE_INTEGER,
        });
        try {
          slot.diskVersion = await sha256Handle(opened.handle);
        } finally {
          await opened.handle.close();
        }
      }
    }
    this.slots.set(path, slot);
    return slot;
  }

  private analysis(slot: Slot): PageAnalysis | null {
    if (slot.text === null) return null;
    return this.wiki.analyze(versionOf(slot) ?? '', slot.text);
  }

  /** Checks `expected_version` against the page's state; throws a ToolError on a mismatch. */
  private checkVersion(op: Operation, slot: Slot): void {
    const expected = op.expected_version?.toLowerCase();
    if (slot.pinned) {
      if (expected !== undefined && expected !== slot.diskVersion && expected !== versionOf(slot)) {
        throw fail(
          'VERSION_MISMATCH',
          `expected_version ${expected} matches neither the version of ${slot.path} before the batch nor its version after the earlier operations on it.`,
        );
      }
      return;
    }
    if (slot.exists) {
      if (expected === undefined) {
        throw fail(
          'VERSION_REQUIRED',
          `page ${slot.path} exists, so this operation needs expected_version (the version from read_page or list_pages).`,
        );
      }
      if (expected !== slot.diskVersion) {
        throw fail(
          'VERSION_MISMATCH',
          `page ${slot.path} changed since it was read: expected version ${expected}, current ${slot.diskVersion}. Read it again and rebuild the operation.`,
        );
      }
      return;
    }
    if (expected !== undefined) {
      throw fail(
        'PAGE_NOT_FOUND',
        `page ${slot.path} does not exist, yet expected_version was given; omit expected_version to create it.`,
      );
    }
  }

  private checkCreatable(path: string, except?: string): void {
    this.wiki.checkNewPagePath(path, this.present.size - (except === undefined ? 0 : 1));
    let clash = this.keyPresent.get(nameKey(path));
    let shown = clash ?? '';
    let same = path;
    if (clash === undefined || clash === path || clash === except) {
      // a folder spelled like an existing one in another case or Unicode form
      clash = undefined;
      for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
        const folder = path.slice(0, i);
        const known = this.keyFolders.get(nameKey(folder));
        if (known !== undefined && known !== folder) {
          clash = known;
          shown = `folder ${known}`;
          same = folder;
          break;
        }
      }
    }
    if (clash === undefined) return;
    if (clash.normalize('NFC') !== same.normalize('NFC')) {
      throw fail(
        'PATH_CASE_CONFLICT',
        `${path} differs only in letter case from the existing ${shown}; links could not tell them apart. Use ${clash} or another name.`,
      );
    }
    throw fail(
      'PATH_UNICODE_CONFLICT',
      `${path} is the existing ${shown} written with other Unicode code points (the same letters composed differently, e.g. "é" as one character or as "e" plus an accent); they would list and link as one name. Use ${clash} as it is, or another name.`,
      [clash],
    );
  }

  private checkText(text: string, field: string): void {
    if (LONE_SURROGATE_RE.test(text)) {
      throw fail(
        'INVALID_TEXT',
        `${field} contains an unpaired surrogate, which is not valid Unicode text.`,
      );
    }
    if (text.includes('\0')) {
      throw fail('INVALID_TEXT', `${field} contains a NUL character; pages must be text.`);
    }
  }

  private checkSize(slot: Slot): void {
    const b = bytesOf(slot);
    if (b !== null && b.length > this.wiki.maxPageBytes) {
      throw fail(
        'PAGE_TOO_LARGE',
        `page ${slot.path} would be ${b.length} bytes, over the ${this.wiki.maxPageBytes}-byte page limit.`,
        undefined,
      );
    }
  }

  private editable(slot: Slot, what: string): string {
    if (slot.problem) {
      throw fail(
        slot.problem.code === 'PAGE_TOO_LARGE' ? 'PAGE_TOO_LARGE' : 'PAGE_NOT_TEXT',
        `cannot ${what} page ${slot.path}: ${slot.problem.message}`,
      );
    }
    return slot.text ?? '';
  }

  private async missing(path: string): Promise<ToolError> {
    return this.wiki.notFound(path, path);
  }

  /** Applies one operation to the in-memory state; throws a ToolError when it cannot. */
  private async apply(op: Operation, result: BatchPlan['operations'][number]): Promise<void> {
    const path = this.wiki.checkPagePath(op.path);
    result.path = path;
    const slot = await this.slot(path);
    if (slot.exists && slot.problem?.code === 'PAGE_TOO_LARGE') this.editable(slot, op.op);
    switch (op.op) {
      case 'put': {
        this.checkText(op.content, 'content');
        if (UTF8.encode(op.content).length > this.wiki.maxPageBytes) {
          throw fail(
            'PAGE_TOO_LARGE',
            `content is over the ${this.wiki.maxPageBytes}-byte page limit.`,
          );
        }
        this.checkVersion(op, slot);
        if (!slot.exists) this.checkCreatable(path);
        setVerbatim(slot, op.content);
        slot.problem = null;
        break;
      }
      case 'append': {
        this.checkText(op.content, 'content');
        this.checkVersion(op, slot);
        if (!slot.exists) {
          this.checkCreatable(path);
          setVerbatim(slot, op.content);
        } else {
          const text = this.editable(slot, 'append to');
          const sep = text === '' || text.endsWith('\n') ? '' : lineEnding(text);
          slot.text = text + sep + op.content;
        }
        break;
      }
      case 'replace': {
        if (!slot.exists) throw await this.missing(path);
        this.checkVersion(op, slot);
        // The page as read_page raw=true shows it: a byte order mark is its first character.
        const text = (slot.bom ? BOM : '') + this.editable(slot, 'edit');
        if (op.old_text === '') throw fail('INVALID_OPERATION', 'old_text must not be empty.');
        this.checkText(op.new_text, 'new_text');
        const expected = op.expected_occurrences ?? 1;
        const { count, lines } = countOccurrences(text, op.old_text);
        if (count !== expected) {
          throw new ToolError(
            'OCCURRENCE_MISMATCH',
            count === 0
              ? `old_text was not found in ${path}; copy it exactly from read_page with raw=true (line breaks and spaces included).`
              : `old_text occurs ${count} times in ${path} (lines ${lines.join(', ')}${count > lines.length ? ', ...' : ''}), but expected_occurrences is ${expected}; widen old_text to pick one or set expected_occurrences to ${count}.`,
            { details: { found: count, expected, lines } },
          );
        }
        setVerbatim(slot, text.split(op.old_text).join(op.new_text));
        result.replacements = count;
        break;
      }
      case 'delete': {
        if (!slot.exists) throw await this.missing(path);
        this.checkVersion(op, slot);
        break;
      }
      case 'move': {
        if (!slot.exists) throw await this.missing(path);
        this.checkVersion(op, slot);
        const dest = this.wiki.checkPagePath(op.new_path, 'new_path');
        result.new_path = dest;
        if (dest === path)
          throw fail('INVALID_OPERATION', `new_path is the same as path (${path}).`);
        const destSlot = await this.slot(dest);
        if (destSlot.exists) {
          throw fail(
            'PAGE_EXISTS',
            `cannot move ${path} to ${dest}: a page already exists there; delete or rename it first.`,
          );
        }
        this.checkCreatable(dest, path);
        break;
      }
    }
    // All checks passed: commit the operation's effect.
    if (op.op === 'delete') {
      slot.exists = false;
      this.removePresent(path);
    } else if (op.op === 'move') {
      const dest = result.new_path!;
      const destSlot = this.slots.get(dest)!;
      destSlot.exists = true;
      destSlot.text = slot.text;
      destSlot.bom = slot.bom;
      destSlot.rawBytes = slot.rawBytes;
      destSlot.problem = slot.problem;
      destSlot.pinned = true;
      destSlot.cause = 'operation';
      slot.exists = false;
      slot.text = null;
      const before = new LinkResolver(this.present, this.wiki.extensions);
      this.removePresent(path);
      this.addPresent(dest);
      result.links_updated = await this.rewriteLinks(before, path, dest);
    } else {
      if (!slot.exists) this.addPresent(path);
      slot.exists = true;
      slot.rawBytes = null;
      this.checkSize(slot);
    }
    slot.pinned = true;
    slot.cause = 'operation';
  }

  /** Every page in the current state, loaded. */
  private async allPages(): Promise<Slot[]> {
    const out: Slot[] = [];
    for (const p of [...this.present].sort()) {
      if (!this.wiki.isPagePath(p) || this.hardLinked.has(p)) continue;
      let s: Slot;
      try {
        s = await this.slot(p);
      } catch (e) {
        // A page with another name elsewhere (a hard link) is never read: its links are not
        // checked or rewritten, and the batch goes on with a warning naming it.
        if (!isToolError(e) || e.code !== 'PATH_HARD_LINK') throw e;
        this.hardLinked.add(p);
        continue;
      }
      if (s.exists) out.push(s);
    }
    return out;
  }

  /**
   * After a move from `from` to `to`: every link in the wiki that pointed at `from` now points
   * at `to`, and every other link that would now resolve differently (the moved page's own
   * relative links, or a name the new path makes ambiguous) is respelled to keep its target.
   * Alias, heading and block parts are kept, and so is each link's spelling style.
   */
  private async rewriteLinks(before: LinkResolver, from: string, to: string): Promise<number> {
    const after = new LinkResolver(this.present, this.wiki.extensions);
    let total = 0;
    for (const slot of await this.allPages()) {
      const a = this.analysis(slot);
      if (!a || slot.text === null) {
        if (slot.problem && slot.problem.code !== 'PAGE_TOO_LARGE') {
          this.warnings.push(`links in ${slot.path} were not checked: ${slot.problem.message}`);
        }
        continue;
      }
      const source = slot.path === to ? from : slot.path;
      const edits: Array<{ start: number; end: number; text: string }> = [];
      for (const link of a.links) {
        if (link.target.trim() === '') continue;
        const was = before.resolve(link.target, source);
        if (was === null) continue;
        const want = was === from ? to : was;
        if (after.resolve(link.target, slot.path) === want) continue;
        const { style, withExtension } = before.styleOf(link.target);
        const spelled = after.linkPathFor(want, slot.path, style, withExtension);
        edits.push({ start: link.start, end: link.end, text: formatWikiLink(link, spelled) });
      }
      for (const md of a.markdownLinks) {
        const was = resolveMarkdown(before, md.path, source);
        if (was === null) continue;
        const want = was === from ? to : was;
        if (resolveMarkdown(after, md.path, slot.path) === want) continue;
        const folder = slot.path.includes('/')
          ? slot.path.slice(0, slot.path.lastIndexOf('/'))
          : '';
        let rel = posix.relative(folder, want);
        if (md.path.startsWith('./') && !rel.startsWith('../')) rel = `./${rel}`;
        const dest = md.angle ? `<${rel}${md.suffix}>` : encodeMarkdownPath(rel) + md.suffix;
        edits.push({ start: md.start, end: md.end, text: dest });
      }
      if (edits.length === 0) continue;
      slot.text = spliceAll(slot.text, edits);
      slot.linksUpdated += edits.length;
      total += edits.length;
      if (!slot.pinned) slot.cause = 'link_update';
      this.checkSize(slot);
    }
    return total;
  }

  /** Finds wikilinks in the given pages that point at no page, heading or block. */
  private async brokenLinks(sources: Slot[]): Promise<{ links: BrokenLink[]; truncated: boolean }> {
    const resolver = new LinkResolver(this.present, this.wiki.extensions);
    const out: BrokenLink[] = [];
    let truncated = false;
    for (const slot of sources) {
      const a = this.analysis(slot);
      if (!a || slot.text === null) continue;
      for (const link of a.links) {
        const target = resolver.resolve(link.target, slot.path);
        let reason: BrokenLink['reason'] | null = null;
        if (target === null) reason = 'missing_page';
        else if (
          link.fragment !== null &&
          link.fragment.trim() !== '' &&
          this.wiki.isPagePath(target)
        ) {
          const t = await this.slot(target);
          const ta = this.analysis(t);
          if (ta) {
            const frag = link.fragment.trim();
            if (frag.startsWith('^')) {
              if (!ta.structure.blockIds.includes(frag.slice(1))) reason = 'missing_block';
            } else {
              const last =
                frag
                  .split('#')
                  .filter((p) => p.trim() !== '')
                  .at(-1) ?? '';
              // a heading is named by its plain text or by its Markdown as written
              const keys = new Set(
                ta.structure.headings.flatMap((h) => [headingKey(h.text), headingKey(h.source)]),
              );
              if (last !== '' && !keys.has(headingKey(last))) reason = 'missing_heading';
            }
          }
        }
        if (reason === null) continue;
        if (out.length >= MAX_BROKEN_LINKS) {
          truncated = true;
          break;
        }
        const line = slot.text.slice(0, link.start).split('\n').length;
        out.push({ path: slot.path, line, link: slot.text.slice(link.start, link.end), reason });
      }
    }
    return { links: out, truncated };
  }

  /** Plans the whole batch. Failures are collected per operation; nothing is written. */
  async plan(
    operations: readonly Operation[],
    options: { log?: string | undefined; now?: Date; diffs?: boolean } = {},
  ): Promise<BatchPlan & { diffs: Map<string, string> }> {
    const failures: OperationFailure[] = [];
    const results: BatchPlan['operations'] = [];
    const removed = new Set<string>();
    const originalPresent = new Set(this.present);
    for (let index = 0; index < operations.length; index++) {
      const op = operations[index]!;
      const result: BatchPlan['operations'][number] = {
        index,
        op: op.op,
        path: op.path,
        version: null,
      };
      try {
        await this.apply(op, result);
        if (op.op === 'delete' || op.op === 'move') removed.add(result.path);
        results.push(result);
      } catch (e) {
        if (!isToolError(e)) throw e;
        let current: string | null = null;
        try {
          current = (await this.slot(this.wiki.checkPagePath(op.path))).diskVersion;
        } catch {
          current = null;
        }
        failures.push({
          index,
          op: op.op,
          path: op.path,
          code: e.code,
          message: e.message,
          current_version: current,
          ...(e.suggestions ? { suggestions: [...e.suggestions] } : {}),
        });
      }
    }
    let logEntry: string | null = null;
    if (failures.length === 0 && options.log !== undefined) {
      const summary = results.map((r) =>
        r.op === 'move' ? `move ${r.path} -> ${r.new_path}` : `${r.op} ${r.path}`,
      );
      logEntry = formatLogEntry(options.log, summary, options.now ?? new Date());
      let slot: Slot | undefined;
      try {
        slot = await this.slot(LOG_FILE);
        this.checkText(options.log, 'log');
        if (slot.exists && slot.problem) this.editable(slot, 'append to');
        const text = slot.exists ? (slot.text ?? '') : '';
        const nl = slot.exists ? lineEnding(text) : '\n';
        let prefix = '';
        if (!slot.exists) prefix = `# Log${nl}${nl}`;
        else if (text !== '' && !text.endsWith(`${nl}${nl}`))
          prefix = text.endsWith(nl) ? nl : nl + nl;
        const before = { text: slot.text, exists: slot.exists };
        slot.text = text + prefix + logEntry.replace(/\n/g, nl);
        slot.exists = true;
        try {
          this.checkSize(slot);
          if (!this.present.has(LOG_FILE)) this.wiki.checkNewPagePath(LOG_FILE, this.present.size);
        } catch (e) {
          slot.text = before.text;
          slot.exists = before.exists;
          throw e;
        }
        // a new log.md is a file like any other: it was counted against the file limit above
        if (!this.present.has(LOG_FILE)) this.addPresent(LOG_FILE);
        if (!slot.pinned) slot.cause = 'log';
      } catch (e) {
        if (!isToolError(e)) throw e;
        failures.push({
          index: -1,
          op: 'append',
          path: LOG_FILE,
          code: e.code,
          message: `the log entry cannot be added: ${e.message}`,
          current_version: slot?.diskVersion ?? null,
        });
      }
    }
    const changes: PlannedChange[] = [];
    for (const slot of [...this.slots.values()].sort((a, b) => (a.path < b.path ? -1 : 1))) {
      const after = bytesOf(slot);
      const before = slot.diskExists ? slot.diskBytes : null;
      if (slot.diskExists && slot.diskBytes === null) {
        // Over the cap and never loaded: only a refused operation can have touched it.
        continue;
      }
      if (before === null && after === null) continue;
      if (before !== null && after !== null && before.equals(after)) continue;
      changes.push({
        path: slot.path,
        action: before === null ? 'create' : after === null ? 'delete' : 'update',
        cause: slot.cause ?? 'operation',
        before,
        after,
        previous_version: slot.diskVersion,
        version: after === null ? null : sha256(after),
        ...(slot.linksUpdated > 0 ? { links_updated: slot.linksUpdated } : {}),
      });
    }
    for (const r of results) {
      const final = this.slots.get(r.new_path ?? r.path);
      r.version = final ? versionOf(final) : null;
    }
    let broken: { links: BrokenLink[]; truncated: boolean } = { links: [], truncated: false };
    if (failures.length === 0) {
      const sources = new Map<string, Slot>();
      for (const c of changes) {
        const s = this.slots.get(c.path);
        if (s?.exists) sources.set(s.path, s);
      }
      if (removed.size > 0) {
        // Pages that linked to a removed page, judged by the links as they were before.
        const before = new LinkResolver(originalPresent, this.wiki.extensions);
        for (const s of await this.allPages()) {
          const a = this.analysis(s);
          if (!a || sources.has(s.path)) continue;
          if (a.links.some((l) => removed.has(before.resolve(l.target, s.path) ?? '')))
            sources.set(s.path, s);
        }
      }
      broken = await this.brokenLinks(
        [...sources.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
      );
    }
    if (this.hardLinked.size > 0) {
      const list = [...this.hardLinked].sort();
      this.warnings.push(
        `links in ${list.length} page(s) with more than one hard link were not read, checked or rewritten (another name of such a file may lie outside the wiki): ${list.slice(0, 10).join(', ')}${list.length > 10 ? ', ...' : ''}. A link there to a moved page keeps its old target.`,
      );
    }
    const diffs = new Map<string, string>();
    if (options.diffs && failures.length === 0) {
      for (const c of changes) {
        const text = (b: Buffer | null) => {
          if (b === null) return null;
          try {
            return decodeUtf8(b).text;
          } catch {
            return `(${b.length} bytes that are not UTF-8 text)\n`;
          }
        };
        diffs.set(c.path, unifiedDiff(c.path, c.path, text(c.before), text(c.after)));
      }
    }
    return {
      failures,
      operations: results,
      changes,
      broken_links: broken.links,
      broken_links_truncated: broken.truncated,
      log_entry: logEntry,
      warnings: this.warnings,
      diffs,
    };
  }
}
