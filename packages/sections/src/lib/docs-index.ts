import type { Dirent, Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  checkOutputBytes,
  createRootSync,
  decodeUtf8,
  isToolError,
  Mutex,
  type OpenedDir,
  openDirInRootSync,
  openInRoot,
  type Root,
  resolveInRoot,
  sha256,
  showPath,
  statInRootSync,
  suggest,
  ToolError,
  unnamedEntries,
} from '@lectern/core';
import {
  buildDocumentAsync,
  computeLineStarts,
  type DocModel,
  type Extract,
  extractLines,
  type ParserUsed,
  type Section,
} from '@lectern/markdown';
import { OWN_MAPPING_BYTES } from './malloc.js';
import type { ParsedFile } from './parse.js';
import {
  collectSoon,
  PARSE_WORKER_MIN_BYTES,
  parseInWorker,
  parseWorkerAvailable,
} from './parse-pool.js';
import {
  buildSearchData,
  buildSearchDataInSlices,
  type DocSearchData,
  searchDataBytes,
  TermTable,
} from './search.js';
import {
  byteRange,
  type DocOutline,
  fileLines,
  outlineOf,
  type StoredModel,
  storedBytes,
  storeModel,
  trimLineBreak,
  unpackBlocks,
} from './stored.js';

/** Default size cap of one document: 10 MiB. */
export const DEFAULT_MAX_DOC_BYTES = 10 * 1024 * 1024;

/** Default memory budget of the index (outlines, line tables and search data): 256 MiB. */
export const DEFAULT_MAX_INDEX_BYTES = 256 * 1024 * 1024;

/** File extensions read as Markdown, in the order that wins a doc_id clash. */
export const MARKDOWN_EXTENSIONS = ['.md', '.markdown', '.mdx'] as const;

/** What the section tools are configured with. */
export interface SectionsOptions {
  /**
   * Documentation roots; each id is a short name (letters, digits, `_`, `-`, `.`). Files with
   * several hard links are refused unless the root sets `allowHardLinks`.
   */
  roots: Array<{ id: string; path: string; allowHardLinks?: boolean }>;
  /** Largest document read, in bytes (default 10 MiB); larger files are refused or skipped. */
  maxFileBytes?: number;
  /**
   * Largest response of one tool call, in bytes of compact JSON (default core's
   * `DEFAULT_OUTPUT_BYTES`, 64 KiB): outlines, chunks and sections stop before it with a way to
   * continue.
   */
  maxOutputBytes?: number;
  /**
   * Memory budget of the index in bytes (default 256 MiB): past it, the documents used least
   * recently are dropped and parsed again when next needed.
   */
  maxIndexBytes?: number;
  /** Called after every parse (not for cache hits): a hook for tests and metrics. */
  onParse?: (event: ParseEvent) => void;
}

/** Reported by {@link DocsIndex} after each parse. */
export interface ParseEvent {
  /** Root id, or null for inline text. */
  root: string | null;
  /** Path relative to the root, or null for inline text. */
  path: string | null;
  /** Size of the parsed text in UTF-16 code units. */
  chars: number;
  /** Which parser decided the outline (`mixed`: remark decided some windows). */
  parser: ParserUsed;
}

/**
 * A parsed document of a root (or of inline text, with null ids). The index keeps its outline
 * and where its lines are, not its text: text is read back from the file when asked for, and
 * a file that changed since it was parsed makes those reads throw {@link DocChangedError}.
 */
export interface IndexedDoc {
  /** Document id (`guide/install`), or null for inline text. */
  docId: string | null;
  /** Root id, or null for inline text. */
  rootId: string | null;
  /** File path relative to its root, or null for inline text. */
  relPath: string | null;
  /** `relPath` as callers see it: prefixed with the root id when there are several roots. */
  displayPath: string | null;
  /** The outline and figures of the document (no text). */
  model: DocOutline;
  /** SHA-256 of the raw bytes (of the UTF-8 text for inline text). */
  version: string;
  /** Lines `first..last` (1-based, inclusive) of this version of the document. */
  extract(first: number, last: number): Promise<Extract>;
  /** The whole parsed document with its text, as this version of the file holds it. */
  fullModel(): Promise<DocModel>;
  /** The search index, built on first use (reading the text back once). */
  search(): Promise<DocSearchData>;
}

/**
 * Thrown by the text reads of an {@link IndexedDoc} when its file changed (or went away) after
 * it was parsed: the caller looks the document up again, which parses the new version.
 */
export class DocChangedError extends Error {
  constructor(readonly path: string) {
    super(`document ${path} changed on disk after it was indexed`);
    this.name = 'DocChangedError';
  }
}

/** What the index holds in memory (see {@link DocsIndex.stats}). */
export interface IndexStats {
  /** Documents held. */
  documents: number;
  /** Of those, how many have their search data built. */
  searchable: number;
  /** Estimated bytes held by outlines, line tables and search data. */
  bytes: number;
  /** The budget (`maxIndexBytes`). */
  maxBytes: number;
  /** Documents dropped so far to stay within the budget. */
  evicted: number;
}

/** One document in the cache: its file identity, stored model and search data. */
interface Stored {
  /** Cache key (absolute path), or null for inline text. */
  key: string | null;
  root: RootEntry | null;
  relPath: string | null;
  size: number;
  mtimeMs: number;
  /** Inode change time: an edit that restores the mtime (`touch -r`, `cp -p`) still moves it. */
  ctimeMs: number;
  ino: number;
  model: StoredModel;
  /** Inline text keeps its parsed model (it is never cached). */
  inline: DocModel | null;
  search: DocSearchData | null;
  searching: Promise<DocSearchData> | null;
  bytes: number;
}

interface CacheEntry {
  stored: Stored;
  doc: IndexedDoc;
}

interface RootEntry {
  id: string;
  root: Root;
}

/** One document found by a walk. */
interface Listed {
  root: RootEntry;
  relPath: string;
  stat: Stats;
}

/** A file a walk could not index. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** Files from this many bytes on are read into a buffer of at least {@link RESERVE_BYTES}. */
const RESERVE_FROM_BYTES = 1024 * 1024;

/**
 * A large file's buffer: one of {@link OWN_MAPPING_BYTES}, so that freeing it does not make
 * malloc keep later blocks (each re-parse of a large file used to leave memory behind).
 */
const RESERVE_BYTES = OWN_MAPPING_BYTES;

/**
 * Reads a whole opened file: at most the size fstat saw plus one byte, so growth past the cap
 * during the read is refused rather than read. The bytes start a buffer of their own (a large
 * file's is larger than the bytes, see {@link RESERVE_BYTES}).
 */
async function readAll(
  handle: FileHandle,
  size: number,
  cap: number,
  shown: string,
): Promise<Buffer> {
  const want = size + 1;
  const buf = Buffer.allocUnsafe(size >= RESERVE_FROM_BYTES ? Math.max(want, RESERVE_BYTES) : want);
  let total = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buf, total, want - total, total);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total === want) break;
  }
  if (total > size && total > cap) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `file ${shown} grew past the ${cap}-byte limit while being read.`,
    );
  }
  return buf.subarray(0, Math.min(total, size));
}

const ROOT_ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

function isMarkdownPath(p: string): boolean {
  const lower = p.toLowerCase();
  return MARKDOWN_EXTENSIONS.some((e) => lower.endsWith(e));
}

function extensionOf(p: string): string {
  const lower = p.toLowerCase();
  return MARKDOWN_EXTENSIONS.find((e) => lower.endsWith(e)) ?? '';
}

function skipName(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** `value` when it is a positive whole number; otherwise `INVALID_LIMIT` naming the option. */
function positiveLimit(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new ToolError('INVALID_LIMIT', `${name} must be a positive whole number, got ${value}.`);
  }
  return value;
}

/**
 * The documents of one or more roots, parsed on demand and cached by (path, size, mtime,
 * inode): a second request for an unchanged file does no parsing, a file whose stat changed
 * is hashed and parsed again only if its bytes did, and a deleted one disappears from
 * listings. Every file access goes through the `@lectern/core` root guard; walks use lstat
 * and skip links, hidden entries and `node_modules`.
 */
export class DocsIndex {
  /** Configured roots, in order. */
  readonly roots: readonly RootEntry[];
  /** Size cap of one document in bytes. */
  readonly maxFileBytes: number;
  /** Byte budget of one response (see {@link SectionsOptions.maxOutputBytes}). */
  readonly maxOutputBytes: number;
  /** Parses done so far (cache hits excluded). */
  parseCount = 0;
  /** Of {@link parseCount}, how many needed remark for all or part of the text. */
  remarkCount = 0;
  /** Memory budget of the index in bytes. */
  readonly maxIndexBytes: number;
  private readonly onParse: ((event: ParseEvent) => void) | undefined;
  /** Cached documents by absolute path, least recently used first. */
  private readonly cache = new Map<string, CacheEntry>();
  /** Estimated bytes of the cached documents. */
  private cacheBytes = 0;
  private evicted = 0;
  /** Term strings shared by the documents' search data. */
  private readonly terms = new TermTable();
  private lastIds: string[] = [];
  /** doc_id -> file, remembered from earlier lookups (revalidated with lstat on use). */
  private readonly resolved = new Map<
    string,
    { root: RootEntry; rel: string; key: string; shadows: string[] }
  >();
  /** Reads in progress by absolute path, so concurrent requests share one parse. */
  private readonly inflight = new Map<string, Promise<IndexedDoc>>();
  /** Reads overlap, but parses run in the order the reads were started: a stable parse order. */
  private parseTurn: Promise<void> = Promise.resolve();
  /** Large documents are indexed for search on this thread one at a time. */
  private readonly searchLock = new Mutex();

  /** Resolves every root once (realpath); throws `ToolError` `ROOT_*` for a bad root. */
  constructor(options: SectionsOptions) {
    if (!options || !Array.isArray(options.roots) || options.roots.length === 0) {
      throw new ToolError(
        'ROOT_EMPTY',
        'sections needs at least one root: { roots: [{ id, path }] }.',
      );
    }
    const seen = new Set<string>();
    this.roots = options.roots.map((r) => {
      if (typeof r.id !== 'string' || !ROOT_ID_RE.test(r.id) || r.id === '.' || r.id === '..') {
        throw new ToolError(
          'ROOT_ID_INVALID',
          `root id ${JSON.stringify(r.id)} is invalid: use 1 to 64 letters, digits, '_', '-' or '.'.`,
        );
      }
      if (seen.has(r.id)) {
        throw new ToolError(
          'ROOT_ID_DUPLICATE',
          `root id "${r.id}" is used twice; ids must be unique.`,
        );
      }
      seen.add(r.id);
      return {
        id: r.id,
        root: createRootSync(r.path, { allowHardLinks: r.allowHardLinks ?? false }),
      };
    });
    this.maxFileBytes = positiveLimit(
      'maxFileBytes',
      options.maxFileBytes ?? DEFAULT_MAX_DOC_BYTES,
    );
    this.maxOutputBytes = checkOutputBytes(options.maxOutputBytes);
    this.maxIndexBytes = positiveLimit(
      'maxIndexBytes',
      options.maxIndexBytes ?? DEFAULT_MAX_INDEX_BYTES,
    );
    this.onParse = options.onParse;
  }

  /** What the index holds in memory now. */
  stats(): IndexStats {
    let searchable = 0;
    for (const e of this.cache.values()) if (e.stored.search) searchable++;
    return {
      documents: this.cache.size,
      searchable,
      bytes: this.cacheBytes,
      maxBytes: this.maxIndexBytes,
      evicted: this.evicted,
    };
  }

  /** Adds a document to the cache (replacing the one at `key`) and keeps to the budget. */
  private remember(key: string, entry: CacheEntry): void {
    this.forget(key);
    this.cache.set(key, entry);
    this.cacheBytes += entry.stored.bytes;
    this.evict(key);
  }

  /** Drops the document at `key` from the cache. */
  private forget(key: string): void {
    const old = this.cache.get(key);
    if (!old) return;
    this.cache.delete(key);
    this.cacheBytes -= old.stored.bytes;
  }

  /** Marks the document at `key` as just used. */
  private touch(key: string, entry: CacheEntry): void {
    this.cache.delete(key);
    this.cache.set(key, entry);
  }

  /**
   * A cached parse served again: under `docId` (the id a file is reached by can change, e.g. a
   * new `.md` beside its `.mdx`), and moved to the recent end of the cache while it is there.
   */
  private reuse(key: string, hit: CacheEntry, docId: string): IndexedDoc {
    if (hit.doc.docId !== docId) hit.doc = { ...hit.doc, docId };
    if (this.cache.get(key) === hit) this.touch(key, hit);
    return hit.doc;
  }

  /** Drops the least recently used documents until the cache fits its budget (never `keep`). */
  private evict(keep: string): void {
    if (this.cacheBytes <= this.maxIndexBytes) return;
    for (const key of this.cache.keys()) {
      if (this.cacheBytes <= this.maxIndexBytes) break;
      if (key === keep) continue;
      this.forget(key);
      this.evicted++;
    }
  }

  /** Accounts for search data just built for `stored` (when it is still cached). */
  private grew(stored: Stored, delta: number): void {
    stored.bytes += delta;
    const e = stored.key === null ? undefined : this.cache.get(stored.key);
    if (e?.stored !== stored) return; // dropped or replaced meanwhile
    this.cacheBytes += delta;
    this.touch(stored.key!, e);
    this.evict(stored.key!);
  }

  private get multi(): boolean {
    return this.roots.length > 1;
  }

  private displayPath(root: RootEntry, rel: string): string {
    return this.multi ? `${root.id}/${rel}` : rel;
  }

  /** Parses inline Markdown (not cached). Throws `TEXT_TOO_LARGE` over the size cap. */
  async parseText(text: string): Promise<IndexedDoc> {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.maxFileBytes) {
      throw new ToolError(
        'TEXT_TOO_LARGE',
        `text is ${bytes} bytes of UTF-8, over the ${this.maxFileBytes}-byte limit; pass a smaller text or a file path.`,
        { details: { size: bytes, max_bytes: this.maxFileBytes } },
      );
    }
    const model = await this.parse(text, null, null);
    const stored: Stored = {
      key: null,
      root: null,
      relPath: null,
      size: 0,
      mtimeMs: 0,
      ctimeMs: 0,
      ino: 0,
      model: {
        outline: outlineOf(model),
        lines: { starts: new Uint32Array(0), textStart: 0, end: 0 },
        blocks: new Uint32Array(0),
      },
      inline: model,
      search: null,
      searching: null,
      bytes: 0,
    };
    return this.wrap(stored, null, null, null, sha256(text));
  }

  /**
   * Parses one document; a large one in `@lectern/markdown`'s worker thread, so a heavy parse
   * never keeps the server from answering other requests.
   */
  private async parse(text: string, root: string | null, path: string | null): Promise<DocModel> {
    const model = await buildDocumentAsync(text);
    this.counted(model.text.length, model.parser, root, path);
    return model;
  }

  /** Counts one parse and reports it. */
  private counted(chars: number, parser: ParserUsed, root: string | null, path: string | null) {
    this.parseCount++;
    if (parser !== 'scanner') this.remarkCount++;
    this.onParse?.({ root, path, chars, parser });
  }

  /**
   * Decodes and parses a file's bytes on this thread (a large text is still outlined on
   * `@lectern/markdown`'s worker). Throws the decoding `ToolError` for bytes that are not text.
   */
  private async parseHere(input: Uint8Array, subject: string): Promise<ParsedFile> {
    let bytes: Uint8Array | null = input;
    const { text, bom } = decodeUtf8(bytes, { subject });
    const lines = fileLines(bytes, text, bom);
    bytes = null; // a large file's bytes go before its parse
    const model = await buildDocumentAsync(text);
    return { stored: storeModel(model, lines), chars: model.text.length, parser: model.parser };
  }

  /**
   * {@link parseHere} on the parse worker thread; `bytes` (read by `readAll`, so they start a
   * buffer of their own) are handed over to it with that whole buffer.
   */
  private async parseOnWorker(bytes: Uint8Array, subject: string): Promise<ParsedFile> {
    const parsed = await parseInWorker(bytes, { wholeBuffer: true });
    if (!(parsed instanceof Uint8Array)) return parsed;
    // not text: decoding here gives the exact error (and parses, should it ever decode)
    return this.parseHere(parsed, subject);
  }

  private wrap(
    stored: Stored,
    docId: string | null,
    root: RootEntry | null,
    relPath: string | null,
    version: string,
  ): IndexedDoc {
    return {
      docId,
      rootId: root?.id ?? null,
      relPath,
      displayPath: root && relPath !== null ? this.displayPath(root, relPath) : null,
      model: stored.model.outline,
      version,
      extract: (first, last) => this.extractOf(stored, first, last),
      fullModel: () => this.fullModelOf(stored),
      search: () => this.searchOf(stored),
    };
  }

  /** Where `stored`'s file is, for messages. */
  private shown(stored: Stored): string {
    return stored.root && stored.relPath !== null
      ? this.displayPath(stored.root, stored.relPath)
      : '(inline text)';
  }

  /**
   * Opens `stored`'s file and checks it is still the file that was parsed (same size,
   * modification time and inode); else throws {@link DocChangedError}. The caller closes it.
   */
  private async reopen(stored: Stored): Promise<FileHandle> {
    const shown = this.shown(stored);
    let opened: Awaited<ReturnType<typeof openInRoot>>;
    try {
      opened = await openInRoot(stored.root!.root, stored.relPath!, {
        maxBytes: this.maxFileBytes,
      });
    } catch (e) {
      if (isToolError(e)) throw new DocChangedError(shown);
      throw e;
    }
    if (!this.sameFile(stored, opened.stat)) {
      await opened.handle.close();
      throw new DocChangedError(shown);
    }
    return opened.handle;
  }

  private sameFile(stored: Stored, st: Stats): boolean {
    return (
      stored.size === st.size &&
      stored.mtimeMs === st.mtimeMs &&
      stored.ctimeMs === st.ctimeMs &&
      stored.ino === st.ino
    );
  }

  /** Reads bytes `from..to` of `stored`'s file, checking the file did not change meanwhile. */
  private async readBytes(stored: Stored, from: number, to: number): Promise<Buffer> {
    const handle = await this.reopen(stored);
    try {
      const buf = Buffer.allocUnsafe(to - from);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await handle.read(buf, got, buf.length - got, from + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      if (got < buf.length || !this.sameFile(stored, await handle.stat())) {
        throw new DocChangedError(this.shown(stored));
      }
      return buf;
    } finally {
      await handle.close();
    }
  }

  /** Decodes bytes read back from a file; bytes that no longer decode mean it changed. */
  private decode(stored: Stored, bytes: Uint8Array, base: number): string {
    try {
      return decodeUtf8(bytes, { subject: `file ${this.shown(stored)}`, baseOffset: base }).text;
    } catch (e) {
      if (isToolError(e)) throw new DocChangedError(this.shown(stored));
      throw e;
    }
  }

  private async extractOf(stored: Stored, first: number, last: number): Promise<Extract> {
    if (stored.inline) return extractLines(stored.inline, first, last);
    const range = byteRange(stored.model.lines, first, last);
    if (!range) return { startLine: first, endLine: first - 1, content: '' };
    const bytes = trimLineBreak(await this.readBytes(stored, range.from, range.to));
    // a range never starts at byte 0 inside a byte-order mark: line 1 starts after it
    return {
      startLine: first,
      endLine: last,
      content: this.decode(stored, bytes, range.from || 1),
    };
  }

  private async fullModelOf(stored: Stored): Promise<DocModel> {
    if (stored.inline) return stored.inline;
    const { lines, outline } = stored.model;
    const bytes = await this.readBytes(stored, lines.textStart, lines.end);
    const text = this.decode(stored, bytes, lines.textStart || 1);
    const lineStarts = computeLineStarts(text);
    if (lineStarts.length !== outline.totalLines) throw new DocChangedError(this.shown(stored));
    return {
      text,
      lineStarts,
      totalLines: outline.totalLines,
      sections: outline.sections,
      frontMatter: outline.frontMatter,
      blocks: unpackBlocks(stored.model.blocks),
      parser: outline.parser,
      exact: outline.exact,
      title: outline.title,
    };
  }

  private searchOf(stored: Stored): Promise<DocSearchData> {
    if (stored.search) return Promise.resolve(stored.search);
    stored.searching ??= (async () => {
      try {
        const { lines } = stored.model;
        const large = !stored.inline && lines.end - lines.textStart >= PARSE_WORKER_MIN_BYTES;
        // A large document is indexed here in slices (other requests are answered between
        // them): on the parse worker its text, garbage and answer came on top of a second
        // heap, and a peak about 20 MB higher for a 10 MB document.
        const data = large
          ? await this.searchInSlices(stored)
          : buildSearchData(await this.fullModelOf(stored), this.terms);
        stored.search = data;
        if (!stored.inline) this.grew(stored, searchDataBytes(data));
        if (large) collectSoon(lines.end - lines.textStart);
        return data;
      } finally {
        stored.searching = null;
      }
    })();
    return stored.searching;
  }

  /**
   * {@link buildSearchDataInSlices} of a large document, one document at a time: searches
   * build up to several documents' data at once, and each large one holds its text meanwhile.
   */
  private searchInSlices(stored: Stored): Promise<DocSearchData> {
    return this.searchLock.run(async () =>
      buildSearchDataInSlices(await this.fullModelOf(stored), this.terms),
    );
  }

  /**
   * Loads one file of a root through the guard, from cache when (size, mtime, inode) match.
   * `known` is the lstat a walk saw, used to skip opening an unchanged file.
   */
  private async load(
    root: RootEntry,
    relPath: string,
    docId: string,
    known?: Stats,
  ): Promise<IndexedDoc> {
    const key = join(root.root.path, relPath);
    const hit = this.cache.get(key);
    if (known && hit && this.sameFile(hit.stored, known)) return this.reuse(key, hit, docId);
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const work = this.readAndParse(root, relPath, docId, key, hit);
    this.inflight.set(key, work);
    try {
      return await work;
    } finally {
      this.inflight.delete(key);
    }
  }

  private async readAndParse(
    root: RootEntry,
    relPath: string,
    docId: string,
    key: string,
    hit: CacheEntry | undefined,
  ): Promise<IndexedDoc> {
    const before = this.parseTurn;
    let done = () => {};
    this.parseTurn = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      const opened = await openInRoot(root.root, relPath, { maxBytes: this.maxFileBytes });
      let bytes: Buffer | null;
      const st = opened.stat;
      try {
        if (hit && this.sameFile(hit.stored, st)) return this.reuse(key, hit, docId);
        bytes = await readAll(opened.handle, st.size, this.maxFileBytes, relPath);
      } finally {
        await opened.handle.close();
      }
      await before;
      const subject = `file ${this.displayPath(root, relPath)}`;
      const version = sha256(bytes);
      if (hit && hit.doc.version === version) {
        // The same bytes under a new stat (touched, checked out again, saved unchanged): its
        // parse would be this one. Keep it, and remember the file as it is now.
        hit.stored.size = st.size;
        hit.stored.mtimeMs = st.mtimeMs;
        hit.stored.ctimeMs = st.ctimeMs;
        hit.stored.ino = st.ino;
        if (this.cache.get(key) !== hit) this.remember(key, hit);
        return this.reuse(key, hit, docId);
      }
      // Parses start in the order their reads started; a long one (on a worker thread) does
      // not hold up the next document's turn. A large file's bytes are handed to the parse
      // worker, so its text never lives on this thread.
      const parsing =
        bytes.length >= PARSE_WORKER_MIN_BYTES && parseWorkerAvailable()
          ? this.parseOnWorker(bytes, subject)
          : this.parseHere(bytes, subject);
      bytes = null;
      done();
      const parsed = await parsing;
      this.counted(parsed.chars, parsed.parser, root.id, opened.relativePath);
      const storedModel = parsed.stored;
      const stored: Stored = {
        key,
        root,
        relPath,
        size: st.size,
        mtimeMs: st.mtimeMs,
        ctimeMs: st.ctimeMs,
        ino: st.ino,
        model: storedModel,
        inline: null,
        search: null,
        searching: null,
        bytes: storedBytes(storedModel) + 2 * (key.length + relPath.length + docId.length) + 400,
      };
      const doc = this.wrap(stored, docId, root, opened.relativePath, version);
      this.remember(key, { stored, doc });
      return doc;
    } finally {
      done();
    }
  }

  /**
   * Walks one root: Markdown regular files; links, hidden entries and `node_modules` skipped.
   * Each folder is opened inside its parent's descriptor without following links and listed
   * through it (core's `OpenedDir`), so a folder swapped for a link mid-walk is never entered.
   */
  private walk(
    root: RootEntry,
    out: Listed[],
    unnamed: Array<{ root: RootEntry; relPath: string }>,
  ): void {
    let top: OpenedDir;
    try {
      top = openDirInRootSync(root.root, '');
    } catch (e) {
      if (isToolError(e)) return;
      throw e;
    }
    // Depth first, one open folder per level: a root with many sibling folders never holds
    // more descriptors than it is deep.
    const visit = (dir: OpenedDir): void => {
      const rel = dir.relativePath;
      let entries: Dirent[];
      try {
        entries = dir.list();
      } catch {
        return; // vanished or unreadable folder
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // Names that are not UTF-8 cannot be read or named: reported, never dropped silently.
      const bad = unnamedEntries(dir, entries);
      for (const u of bad?.shown ?? []) {
        if (skipName(u.name) || (!u.isDir && !isMarkdownPath(u.name))) continue;
        const relPath = rel === '' ? u.name : `${rel}/${u.name}`;
        unnamed.push({ root, relPath: u.isDir ? `${relPath}/` : relPath });
      }
      for (const e of entries) {
        if (skipName(e.name) || bad?.lossy.has(e.name)) continue;
        const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
        if (e.isSymbolicLink()) continue;
        if (e.isDirectory()) {
          let child: OpenedDir;
          try {
            child = dir.openDir(e.name);
          } catch (err) {
            if (isToolError(err)) continue; // swapped for a link or removed: skipped
            throw err;
          }
          try {
            visit(child);
          } finally {
            child.close();
          }
          continue;
        }
        if (!e.isFile() || !isMarkdownPath(e.name)) continue;
        const st = dir.lstat(e.name);
        if (!st?.isFile()) continue;
        out.push({ root, relPath: childRel, stat: st });
      }
    };
    try {
      visit(top);
    } finally {
      top.close();
    }
  }

  /** Doc ids of the files of one root: the path without extension unless a sibling wins it. */
  private assignIds(files: Listed[]): Map<Listed, string> {
    const byStem = new Map<string, Listed[]>();
    for (const f of files) {
      const ext = extensionOf(f.relPath);
      const stem = `${f.root.id}\0${f.relPath.slice(0, f.relPath.length - ext.length)}`;
      const list = byStem.get(stem) ?? [];
      list.push(f);
      byStem.set(stem, list);
    }
    const ids = new Map<Listed, string>();
    for (const list of byStem.values()) {
      list.sort(
        (a, b) =>
          MARKDOWN_EXTENSIONS.indexOf(
            extensionOf(a.relPath) as (typeof MARKDOWN_EXTENSIONS)[number],
          ) -
            MARKDOWN_EXTENSIONS.indexOf(
              extensionOf(b.relPath) as (typeof MARKDOWN_EXTENSIONS)[number],
            ) || (a.relPath < b.relPath ? -1 : 1),
      );
      list.forEach((f, i) => {
        const ext = extensionOf(f.relPath);
        const bare = i === 0 ? f.relPath.slice(0, f.relPath.length - ext.length) : f.relPath;
        ids.set(f, this.multi ? `${f.root.id}/${bare}` : bare);
      });
    }
    return ids;
  }

  /**
   * Every document of every root, parsed (from cache when unchanged), sorted by doc_id.
   * Files that cannot be read as UTF-8 Markdown within the size cap are reported in `skipped`,
   * and so are files and folders whose names are not valid UTF-8 (escaped, a folder with `/`).
   * Cache entries of files that no longer exist are dropped.
   */
  async listDocuments(
    options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<{ docs: IndexedDoc[]; skipped: SkippedFile[] }> {
    const files: Listed[] = [];
    const unnamed: Array<{ root: RootEntry; relPath: string }> = [];
    for (const r of this.roots) this.walk(r, files, unnamed);
    const ids = this.assignIds(files);
    const docs: IndexedDoc[] = [];
    const skipped: SkippedFile[] = unnamed.map((u) => ({
      path: this.displayPath(u.root, u.relPath),
      reason: u.relPath.endsWith('/')
        ? 'a folder whose name is not valid UTF-8 (each invalid byte shown as \\xHH): not entered, since no request can name it; rename it to index what it holds'
        : 'the name is not valid UTF-8 (each invalid byte shown as \\xHH), so no request can name it; rename it to index it',
    }));
    const live = new Set<string>();
    let done = 0;
    const todo: Listed[] = [];
    for (const f of files) {
      live.add(join(f.root.root.path, f.relPath));
      if (f.stat.size > this.maxFileBytes) {
        skipped.push({
          path: this.displayPath(f.root, f.relPath),
          reason: `${f.stat.size} bytes, over the ${this.maxFileBytes}-byte limit`,
        });
      } else {
        todo.push(f);
      }
    }
    // Reads overlap in small batches; parsing is synchronous, one file at a time.
    const BATCH = 16;
    for (let i = 0; i < todo.length; i += BATCH) {
      if (options.signal?.aborted) {
        throw new ToolError(
          'CANCELLED',
          'the request was cancelled while documents were being indexed.',
        );
      }
      const batch = todo.slice(i, i + BATCH);
      const results = await Promise.allSettled(
        batch.map((f) => this.load(f.root, f.relPath, ids.get(f)!, f.stat)),
      );
      results.forEach((r, k) => {
        const f = batch[k]!;
        if (r.status === 'fulfilled') docs.push(r.value);
        else if (isToolError(r.reason)) {
          skipped.push({ path: this.displayPath(f.root, f.relPath), reason: r.reason.message });
        } else throw r.reason;
      });
      done += batch.length;
      options.onProgress?.(done, todo.length);
    }
    for (const key of [...this.cache.keys()]) {
      if (!live.has(key) && this.isUnderRoots(key)) this.forget(key);
    }
    docs.sort((a, b) => (a.docId! < b.docId! ? -1 : a.docId! > b.docId! ? 1 : 0));
    this.lastIds = docs.map((d) => d.docId!);
    return { docs, skipped };
  }

  private isUnderRoots(abs: string): boolean {
    return this.roots.some((r) => abs.startsWith(r.root.path));
  }

  /** Splits a root-qualified path (several roots) into its root and the rest. */
  private splitRoot(path: string, what: string): { root: RootEntry; rest: string } {
    if (!this.multi) return { root: this.roots[0]!, rest: path };
    const slash = path.indexOf('/');
    const id = slash === -1 ? path : path.slice(0, slash);
    const root = this.roots.find((r) => r.id === id);
    if (!root) {
      throw new ToolError(
        'ROOT_NOT_FOUND',
        `${what} ${JSON.stringify(path)} does not start with a known root id; with several roots it must begin with one of: ${this.roots.map((r) => r.id).join(', ')}.`,
        {
          suggestions: suggest(
            id,
            this.roots.map((r) => `${r.id}/`),
          ),
        },
      );
    }
    return { root, rest: slash === -1 ? '' : path.slice(slash + 1) };
  }

  /** lstat of a file of a root through the anchored guard; null when it cannot be reached. */
  private lstatQuiet(root: RootEntry, rel: string): Stats | null {
    try {
      return statInRootSync(root.root, rel).stat;
    } catch (e) {
      if (isToolError(e)) return null;
      throw e;
    }
  }

  /** Refuses a hidden file or folder (`.git`, dotfiles) named directly: they are never served. */
  private refuseHidden(rel: string, shown: string): void {
    if (rel.split('/').some((s) => s.startsWith('.'))) {
      throw new ToolError(
        'PATH_HIDDEN',
        `path ${showPath(shown)} is or is inside a hidden file or folder (a name starting with "."); the docs tools never read hidden files or .git.`,
      );
    }
  }

  /** The canonical doc_id of a file of a root. */
  private idOfFile(root: RootEntry, rel: string): string {
    const ext = extensionOf(rel);
    let bare = rel;
    if (ext) {
      const stem = rel.slice(0, rel.length - ext.length);
      const rank = MARKDOWN_EXTENSIONS.indexOf(ext as (typeof MARKDOWN_EXTENSIONS)[number]);
      const shadowed = MARKDOWN_EXTENSIONS.slice(0, rank).some((e) =>
        this.lstatQuiet(root, stem + e)?.isFile(),
      );
      bare = shadowed ? rel : stem;
    }
    return this.multi ? `${root.id}/${bare}` : bare;
  }

  /** Known doc ids (from the latest listing, made now if there is none) for suggestions. */
  async knownIds(): Promise<string[]> {
    if (this.lastIds.length === 0) await this.listDocuments();
    return this.lastIds;
  }

  /**
   * The document with this doc_id: `<path without extension>` (`.md`, then `.markdown`, then
   * `.mdx`), or a path with its extension; prefixed with `<root-id>/` when there are several
   * roots. Throws `DOC_NOT_FOUND` with the closest doc ids as suggestions.
   */
  async getDocument(docId: string): Promise<IndexedDoc> {
    // Warm path: a doc_id resolved before whose file still has the same lstat identity.
    const known = this.resolved.get(docId);
    if (known) {
      const hit = this.cache.get(known.key);
      const st = this.lstatQuiet(known.root, known.rel);
      if (
        hit &&
        st?.isFile() &&
        this.sameFile(hit.stored, st) &&
        // a file that now takes precedence for this doc_id (e.g. a new `.md` beside `.mdx`)
        !known.shadows.some((rel) => this.lstatQuiet(known.root, rel)?.isFile())
      ) {
        this.touch(known.key, hit);
        return hit.doc;
      }
      this.resolved.delete(docId);
    }
    const notFound = async (): Promise<ToolError> =>
      new ToolError(
        'DOC_NOT_FOUND',
        `no document has doc_id "${docId}"; doc_ids are paths without extension as listed by the outline tool.`,
        { suggestions: suggest(docId, await this.knownIds()) },
      );
    const { root, rest } = this.splitRoot(docId, 'doc_id');
    const rel = resolveInRoot(root.root, rest).relative;
    if (rel === '' || rel.split('/').some(skipName)) throw await notFound();
    const candidates = [...MARKDOWN_EXTENSIONS.map((e) => rel + e), rel];
    for (const [i, c] of candidates.entries()) {
      const st = this.lstatQuiet(root, c);
      if (st?.isFile()) {
        const doc = await this.load(root, c, this.idOfFile(root, c));
        if (this.resolved.size > 10_000) this.resolved.clear();
        this.resolved.set(docId, {
          root,
          rel: c,
          key: join(root.root.path, c),
          shadows: candidates.slice(0, i),
        });
        return doc;
      }
    }
    throw await notFound();
  }

  /**
   * Any text file inside a root (relative path, `<root-id>/...` with several roots, or an
   * absolute path under a root), through the guard. Throws the guard's `PATH_*` and
   * `FILE_TOO_LARGE` errors.
   */
  async loadPath(path: string): Promise<IndexedDoc> {
    if (path.startsWith('/')) {
      for (const r of this.roots) {
        try {
          const rel = resolveInRoot(r.root, path).relative;
          this.refuseHidden(rel, path);
          return this.load(r, rel, this.idOfFile(r, rel));
        } catch (e) {
          if (isToolError(e) && e.code === 'PATH_ABSOLUTE_OUTSIDE_ROOT') continue;
          throw e;
        }
      }
      throw new ToolError(
        'PATH_ABSOLUTE_OUTSIDE_ROOT',
        `absolute path ${path} is outside every documentation root; give a path inside a root.`,
      );
    }
    const { root, rest } = this.splitRoot(path, 'path');
    const rel = resolveInRoot(root.root, rest).relative;
    if (rel === '') {
      throw new ToolError(
        'PATH_IS_DIRECTORY',
        `path ${showPath(path)} names a root folder; a file is needed.`,
      );
    }
    this.refuseHidden(rel, path);
    return this.load(root, rel, this.idOfFile(root, rel));
  }

  /** Convenience for benchmarks and embedding: the outline of one document or of all. */
  async outline(docId?: string): Promise<Array<{ docId: string | null; sections: Section[] }>> {
    const docs =
      docId === undefined ? (await this.listDocuments()).docs : [await this.getDocument(docId)];
    return docs.map((d) => ({ docId: d.docId, sections: d.model.sections }));
  }
}
