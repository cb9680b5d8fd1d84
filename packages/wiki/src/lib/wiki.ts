import type { Dirent, Stats } from 'node:fs';
import {
  createRootSync,
  decodeUtf8,
  isToolError,
  type OpenedDir,
  openDirInRoot,
  openInRoot,
  type Root,
  readFileInRoot,
  resolveInRoot,
  sha256,
  sha256Handle,
  showPath,
  statInRoot,
  suggest,
  ToolError,
  unnamedEntries,
} from '@lectern/core';
import { analyzePage, type PageAnalysis } from './page.js';
import { LinkResolver } from './resolve.js';

/** One wiki the tools can open. */
export interface WikiConfig {
  /** Short id the tools take as `wiki` (letters, digits, `_`, `-`, `.`). */
  id: string;
  /** Folder holding the wiki; must exist. */
  path: string;
  /** Human title shown by list_wikis; defaults to the id. */
  title?: string;
  /** Root file with the conventions for agents (default `SCHEMA.md`). */
  schemaFile?: string;
  /**
   * Read pages that have more than one hard link (default false: refused with `PATH_HARD_LINK`,
   * since another name of the file may be outside the wiki).
   */
  allowHardLinks?: boolean;
}

/** Options of {@link wikiTools}. */
export interface WikiOptions {
  /** The wikis to serve; ids must be unique. */
  wikis: WikiConfig[];
  /** Largest page, in bytes, that can be read or written (default 1 MiB, at most 16 MiB). */
  maxPageBytes?: number;
  /** File extensions that are pages (default `['.md']`); other files are never listed or written. */
  allowedExtensions?: string[];
  /**
   * Largest response of one read tool call, in bytes of compact JSON (default core's
   * `DEFAULT_OUTPUT_BYTES`, 64 KiB, at least 4096): listings, hits and page windows stop before
   * it with `has_more` and `next_offset`.
   */
  maxOutputBytes?: number;
}

/** Default {@link WikiOptions.maxPageBytes}: 1 MiB. */
export const DEFAULT_MAX_PAGE_BYTES = 1024 * 1024;
const MAX_PAGE_BYTES_LIMIT = 16 * 1024 * 1024;
/**
 * Most files a wiki may hold: a batch that would add a file past it is refused
 * (`WIKI_TOO_LARGE`). A wiki that grew past it by other means is still read, listed, searched
 * and edited (deletes included) up to {@link scanLimitFor} files.
 */
export const MAX_FILES = 200_000;

/** Most files a scan reads for a wiki whose file limit is `maxFiles` (a quarter more). */
export function scanLimitFor(maxFiles: number): number {
  return maxFiles + Math.ceil(maxFiles / 4);
}
/** Deepest folder nesting listing and search accept (`WIKI_TOO_DEEP`). */
export const MAX_DEPTH = 64;
/**
 * Characters no new page name may contain: C0 and C1 controls (newlines and tabs included),
 * DEL, the line and paragraph separators, and the bidirectional marks, embeddings, overrides
 * and isolates that make a name display differently from what it is (U+202E and friends).
 */
const UNSAFE_NAME_CHARS =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
/**
 * Characters that show as nothing, so two names that look the same differ: the soft hyphen,
 * zero-width space, non-joiner and joiner, word joiner and invisible operators, the byte-order
 * mark (zero-width no-break space), the combining grapheme joiner, Hangul fillers, Mongolian
 * free variation selectors and vowel separator, deprecated format controls, interlinear
 * annotation controls and the tag characters.
 */
const INVISIBLE_NAME_CHARS =
  /\u034f|\u17b4|\u17b5|\u180b|\u180c|\u180d|\u180f|[\u00ad\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\u206a-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}]/u;
const ANALYSIS_CACHE_CHARS = 32 * 1024 * 1024;

/** The index file, log file and default schema file at a wiki's root. */
export const INDEX_FILE = 'index.md';
export const LOG_FILE = 'log.md';
export const DEFAULT_SCHEMA_FILE = 'SCHEMA.md';
/** Folder under a wiki root where Lectern keeps its lock and journal. */
export const STATE_DIR = '.lectern';

/** A file seen by a scan of the wiki (hidden names, links and special files are skipped). */
export interface FileEntry {
  path: string;
  size: number;
  mtimeMs: number;
  /** size, mtime, ctime and inode: changes whenever the file does. */
  key: string;
}

/** What a page's listing and index need, cached by {@link FileEntry.key}. */
export interface PageMeta extends FileEntry {
  /** SHA-256 of the bytes; null only when the file could not be read at all. */
  version: string | null;
  title: string;
  aliases: string[];
  tags: string[];
  /** Why the page cannot be read as text (invalid UTF-8, binary, over the size cap). */
  problem: { code: string; message: string } | null;
  /** Search statistics, filled by the search index on first use. */
  search?: unknown;
}

/** A page read in full. */
export interface LoadedPage {
  path: string;
  bytes: Buffer;
  text: string;
  bom: boolean;
  version: string;
  analysis: PageAnalysis;
  stat: Stats;
}

/** True when any segment of a relative path starts with `.` (hidden files and folders). */
export function isHiddenPath(rel: string): boolean {
  return rel.split('/').some((s) => s.startsWith('.'));
}

/** The file name without its folder and the given extension. */
export function baseName(path: string, extensions: readonly string[]): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const lower = name.toLowerCase();
  const ext = extensions.find((e) => lower.endsWith(e));
  return ext ? name.slice(0, -ext.length) : name;
}

function normaliseExtensions(list: readonly string[] | undefined): string[] {
  const raw = list ?? ['.md'];
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new ToolError(
      'INVALID_OPTIONS',
      'allowedExtensions must list at least one extension, e.g. [".md"].',
    );
  }
  return [
    ...new Set(
      raw.map((e) => {
        if (typeof e !== 'string' || !/^\.?[A-Za-z0-9_-]{1,16}$/.test(e)) {
          throw new ToolError(
            'INVALID_OPTIONS',
            `allowedExtensions entry ${JSON.stringify(e)} is not an extension like ".md".`,
          );
        }
        return (e.startsWith('.') ? e : `.${e}`).toLowerCase();
      }),
    ),
  ];
}

/** Text cache keyed by version, bounded by total characters. */
class AnalysisCache {
  private readonly map = new Map<string, { text: string; analysis: PageAnalysis }>();
  private chars = 0;

  get(version: string, text: string): PageAnalysis {
    const hit = this.map.get(version);
    if (hit) {
      this.map.delete(version);
      this.map.set(version, hit);
      return hit.analysis;
    }
    const analysis = analyzePage(text);
    this.map.set(version, { text, analysis });
    this.chars += text.length;
    while (this.chars > ANALYSIS_CACHE_CHARS && this.map.size > 1) {
      const [oldest, entry] = this.map.entries().next().value as [
        string,
        { text: string; analysis: PageAnalysis },
      ];
      this.map.delete(oldest);
      this.chars -= entry.text.length;
    }
    return analysis;
  }
}

/** One configured wiki: its guarded root, limits and caches. */
export class Wiki {
  readonly id: string;
  readonly title: string;
  readonly root: Root;
  readonly schemaFile: string;
  readonly maxPageBytes: number;
  readonly extensions: readonly string[];
  /** File limit of this wiki ({@link MAX_FILES}; lowered by tests). */
  maxFiles = MAX_FILES;
  private readonly metas = new Map<string, PageMeta>();
  private readonly analyses = new AnalysisCache();

  constructor(config: WikiConfig, shared: { maxPageBytes: number; extensions: string[] }) {
    this.id = config.id;
    this.title = config.title?.trim() || config.id;
    this.root = createRootSync(config.path, {
      maxFileBytes: shared.maxPageBytes,
      allowHardLinks: config.allowHardLinks ?? false,
    });
    this.maxPageBytes = shared.maxPageBytes;
    this.extensions = shared.extensions;
    const schema = config.schemaFile ?? DEFAULT_SCHEMA_FILE;
    const resolved = resolveInRoot(this.root, schema);
    if (resolved.relative === '' || isHiddenPath(resolved.relative)) {
      throw new ToolError(
        'INVALID_OPTIONS',
        `schemaFile ${JSON.stringify(schema)} of wiki ${config.id} must name a visible file inside the wiki.`,
      );
    }
    this.schemaFile = resolved.relative;
  }

  /** True when `rel` has one of the page extensions (or is the schema file). */
  isPagePath(rel: string): boolean {
    if (rel === this.schemaFile) return true;
    const lower = rel.toLowerCase();
    return this.extensions.some((e) => lower.endsWith(e) && lower.length > e.length);
  }

  /**
   * Checks a page path from a request and returns it normalised (relative, `/`-separated).
   * Refuses paths outside the root (core errors), the root itself, hidden files and folders
   * (`PATH_HIDDEN`) and files that are not pages (`PATH_NOT_PAGE`).
   */
  checkPagePath(input: string, field = 'path'): string {
    const rel = resolveInRoot(this.root, input).relative;
    if (rel === '') {
      throw new ToolError(
        'PATH_IS_DIRECTORY',
        `${field} ${JSON.stringify(input)} names the wiki root folder; give a page path such as "wiki/topic.md".`,
      );
    }
    if (isHiddenPath(rel)) {
      throw new ToolError(
        'PATH_HIDDEN',
        `${field} ${JSON.stringify(input)} is inside a hidden file or folder (a name starting with "."); hidden paths such as .obsidian, .git and .lectern are never read or written.`,
      );
    }
    if (!this.isPagePath(rel)) {
      throw new ToolError(
        'PATH_NOT_PAGE',
        `${field} ${JSON.stringify(input)} is not a page: only files ending in ${this.extensions.join(', ')} are pages in wiki ${this.id}.`,
        { details: { allowed_extensions: [...this.extensions] } },
      );
    }
    return rel;
  }

  /**
   * Every visible regular file under the root, sorted by path: names starting with `.` (and
   * everything below them), symbolic links and special files are skipped.
   */
  async scan(): Promise<FileEntry[]> {
    const out: FileEntry[] = [];
    const unnamed: string[] = [];
    const scanLimit = scanLimitFor(this.maxFiles);
    // Each folder is opened inside its parent's descriptor without following links and listed
    // through it, so a folder swapped for a link mid-scan is skipped, never followed.
    const walk = async (dir: OpenedDir, dirRel: string, depth: number): Promise<void> => {
      if (depth > MAX_DEPTH) {
        throw new ToolError(
          'WIKI_TOO_DEEP',
          `wiki ${this.id} has folders nested more than ${MAX_DEPTH} deep at ${dirRel}; flatten it or serve a subfolder.`,
        );
      }
      let entries: Dirent[];
      try {
        entries = await dir.listAsync();
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return;
        throw e;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // Names that are not UTF-8 name no file a request could reach: reported, never dropped.
      const bad = unnamedEntries(dir, entries);
      for (const u of bad?.shown ?? []) {
        if (u.name.startsWith('.')) continue;
        const rel = dirRel === '' ? u.name : `${dirRel}/${u.name}`;
        unnamed.push(u.isDir ? `${rel}/` : rel);
      }
      for (const d of entries) {
        if (d.name.startsWith('.') || bad?.lossy.has(d.name)) continue;
        const rel = dirRel === '' ? d.name : `${dirRel}/${d.name}`;
        const st = dir.lstat(d.name);
        if (st === null) continue;
        if (st.isDirectory()) {
          let child: OpenedDir;
          try {
            child = dir.openDir(d.name);
          } catch (e) {
            if (isToolError(e)) continue; // swapped for a link or removed since the listing
            throw e;
          }
          try {
            await walk(child, rel, depth + 1);
          } finally {
            child.close();
          }
        } else if (st.isFile()) {
          if (out.length >= scanLimit) {
            throw new ToolError(
              'WIKI_TOO_LARGE',
              `wiki ${this.id} holds more than ${scanLimit} files, too many to list or search (the limit for new files is ${this.maxFiles}); serve a smaller folder or remove files by hand.`,
              { details: { max_files: this.maxFiles, scan_limit: scanLimit } },
            );
          }
          out.push({
            path: rel,
            size: st.size,
            mtimeMs: st.mtimeMs,
            key: `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`,
          });
        }
      }
    };
    const top = await openDirInRoot(this.root, '');
    try {
      await walk(top, '', 0);
    } finally {
      top.close();
    }
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    this.lastUnnamed = unnamed.sort();
    return out;
  }

  /**
   * Entries the last {@link scan} passed over because their names are not valid UTF-8, each
   * invalid byte as `\xHH`, a folder (not entered) ending in `/`.
   */
  lastUnnamed: string[] = [];

  /**
   * Checks a page path that a write would create (a new page or a move's destination) against
   * every limit a reader enforces, so no write can leave the wiki unreadable: at most
   * {@link MAX_DEPTH} folders deep (`WIKI_TOO_DEEP`), no control characters, line breaks or
   * bidirectional controls in any name (`PAGE_NAME_INVALID`), and room under {@link MAX_FILES}
   * given `files` pages and files already there (`WIKI_TOO_LARGE`). Name and path lengths are
   * checked by the guard (`PATH_TOO_LONG`).
   */
  checkNewPagePath(rel: string, files: number, field = 'path'): void {
    const folders = rel.split('/').length - 1;
    if (folders > MAX_DEPTH) {
      throw new ToolError(
        'WIKI_TOO_DEEP',
        `${field} ${JSON.stringify(showPath(rel))} would sit ${folders} folders deep; wiki ${this.id} is read at most ${MAX_DEPTH} folders deep, so use a shallower path.`,
        { details: { max_depth: MAX_DEPTH } },
      );
    }
    const bad = UNSAFE_NAME_CHARS.exec(rel);
    if (bad) {
      const cp = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      throw new ToolError(
        'PAGE_NAME_INVALID',
        `${field} ${JSON.stringify(showPath(rel))} contains U+${cp}; page names may not contain control characters, line breaks or bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C).`,
      );
    }
    const invisible = INVISIBLE_NAME_CHARS.exec(rel);
    if (invisible) {
      const cp = invisible[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      throw new ToolError(
        'PAGE_NAME_INVALID',
        `${field} ${JSON.stringify(showPath(rel).replace(new RegExp(INVISIBLE_NAME_CHARS.source, 'gu'), (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`))} contains the invisible character U+${cp}; page names may not contain characters that show as nothing (zero-width spaces and joiners, U+FEFF, soft hyphens, ...), since two names would look the same.`,
      );
    }
    if (files >= this.maxFiles) {
      throw new ToolError(
        'WIKI_TOO_LARGE',
        `wiki ${this.id} already holds ${files} files, the most a batch may create files in (${this.maxFiles}); delete pages before creating new ones.`,
        { details: { files, max_files: this.maxFiles } },
      );
    }
  }

  /**
   * Checks a folder filter and returns it normalised (`''` for the whole wiki). Refuses hidden
   * folders and names that are not an existing folder (`FOLDER_NOT_FOUND`, with the closest).
   */
  async checkFolder(input: string | undefined, field = 'folder'): Promise<string> {
    if (input === undefined) return '';
    const rel = resolveInRoot(this.root, input).relative;
    if (rel === '') return '';
    if (isHiddenPath(rel)) {
      throw new ToolError(
        'PATH_HIDDEN',
        `${field} ${JSON.stringify(input)} is hidden (a name starting with "."); hidden folders are never listed.`,
      );
    }
    let isDir = false;
    try {
      isDir = (await statInRoot(this.root, rel)).stat.isDirectory();
    } catch (e) {
      if (!isToolError(e) || e.code !== 'PATH_NOT_FOUND') throw e;
    }
    if (!isDir) {
      const folders = new Set<string>();
      for (const f of await this.scan()) {
        const parts = f.path.split('/');
        for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
      }
      const suggestions = suggest(rel, folders, { max: 5 });
      throw new ToolError(
        'FOLDER_NOT_FOUND',
        `${field} ${JSON.stringify(input)} is not a folder of wiki ${this.id}${suggestions.length ? `; closest: ${suggestions.join(', ')}` : ''}.`,
        { suggestions },
      );
    }
    return rel;
  }

  /** Analysis of a page's text, cached by version. */
  analyze(version: string, text: string): PageAnalysis {
    return this.analyses.get(version, text);
  }

  /**
   * Reads, versions and decodes a page already known to be a page path. A page replaced by a
   * concurrent atomic write between the check and the open (`PATH_CHANGED`) is read again.
   */
  async loadPage(rel: string): Promise<LoadedPage> {
    let read: Awaited<ReturnType<typeof readFileInRoot>> | undefined;
    for (let attempt = 1; read === undefined; attempt++) {
      try {
        read = await readFileInRoot(this.root, rel, { maxBytes: this.maxPageBytes });
      } catch (e) {
        if (!isToolError(e) || e.code !== 'PATH_CHANGED' || attempt >= 5) throw e;
      }
    }
    const { bytes, stat, relativePath } = read;
    const version = sha256(bytes);
    const { text, bom } = decodeUtf8(bytes, { subject: `page ${relativePath}` });
    return {
      path: relativePath,
      bytes,
      text,
      bom,
      version,
      analysis: this.analyze(version, text),
      stat,
    };
  }

  /**
   * Reads a page named by a request. A missing page is refused with the closest existing
   * page paths (a link-style name such as "Queen bee" suggests the page it would open).
   */
  async readPage(input: string): Promise<LoadedPage> {
    let rel: string;
    try {
      rel = this.checkPagePath(input);
    } catch (e) {
      if (!isToolError(e) || e.code !== 'PATH_NOT_PAGE') throw e;
      const near = await this.notFound(input, resolveInRoot(this.root, input).relative);
      throw new ToolError(e.code, e.message, {
        suggestions: near.suggestions ?? [],
        ...(e.details ? { details: { ...e.details } } : {}),
      });
    }
    try {
      return await this.loadPage(rel);
    } catch (e) {
      if (isToolError(e) && e.code === 'PATH_NOT_FOUND') throw await this.notFound(input, rel);
      throw e;
    }
  }

  /** A `PAGE_NOT_FOUND` error with the closest page paths as suggestions. */
  async notFound(input: string, rel: string): Promise<ToolError> {
    const pages = (await this.scan()).filter((f) => this.isPagePath(f.path)).map((f) => f.path);
    const suggestions: string[] = [];
    const linked = new LinkResolver(pages, this.extensions).resolve(rel, '');
    if (linked) suggestions.push(linked);
    for (const s of suggest(rel, pages, { max: 5 }))
      if (!suggestions.includes(s)) suggestions.push(s);
    return new ToolError(
      'PAGE_NOT_FOUND',
      `page ${JSON.stringify(input)} does not exist in wiki ${this.id}${suggestions.length ? `; closest: ${suggestions.slice(0, 5).join(', ')}` : ''}. Use list_pages or search_wiki to find paths.`,
      { suggestions: suggestions.slice(0, 5) },
    );
  }

  /**
   * Listing data for every page (files with a page extension), cached by size, mtime, ctime
   * and inode, so only changed pages are read again.
   */
  async pageMetas(files?: FileEntry[]): Promise<PageMeta[]> {
    const all = files ?? (await this.scan());
    const out: PageMeta[] = [];
    const seen = new Set<string>();
    for (const f of all) {
      if (!this.isPagePath(f.path)) continue;
      seen.add(f.path);
      const cached = this.metas.get(f.path);
      if (cached && cached.key === f.key) {
        out.push(cached);
        continue;
      }
      const meta = await this.readMeta(f);
      this.metas.set(f.path, meta);
      out.push(meta);
    }
    for (const p of this.metas.keys()) if (!seen.has(p)) this.metas.delete(p);
    return out;
  }

  private async readMeta(f: FileEntry): Promise<PageMeta> {
    const fallbackTitle = baseName(f.path, this.extensions);
    try {
      const page = await this.loadPage(f.path);
      const a = page.analysis;
      return {
        ...f,
        version: page.version,
        title: a.title ?? fallbackTitle,
        aliases: a.aliases,
        tags: a.tags,
        problem: null,
      };
    } catch (e) {
      if (!isToolError(e)) throw e;
      let version: string | null = null;
      if (e.code === 'FILE_TOO_LARGE') {
        try {
          const opened = await openInRoot(this.root, f.path, { maxBytes: Number.MAX_SAFE_INTEGER });
          try {
            version = await sha256Handle(opened.handle);
          } finally {
            await opened.handle.close();
          }
        } catch {
          version = null;
        }
      } else if (e.code === 'INVALID_UTF8' || e.code === 'BINARY_CONTENT') {
        try {
          version = sha256(
            (await readFileInRoot(this.root, f.path, { maxBytes: this.maxPageBytes })).bytes,
          );
        } catch {
          version = null;
        }
      }
      return {
        ...f,
        version,
        title: fallbackTitle,
        aliases: [],
        tags: [],
        problem: { code: e.code, message: e.message },
      };
    }
  }
}

/** The configured wikis by id. */
export class WikiSet {
  private readonly byId = new Map<string, Wiki>();

  constructor(options: WikiOptions) {
    if (!options || !Array.isArray(options.wikis) || options.wikis.length === 0) {
      throw new ToolError(
        'INVALID_OPTIONS',
        'wikiTools needs at least one wiki: { wikis: [{ id, path }] }.',
      );
    }
    const maxPageBytes = options.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
    if (
      !Number.isInteger(maxPageBytes) ||
      maxPageBytes < 1 ||
      maxPageBytes > MAX_PAGE_BYTES_LIMIT
    ) {
      throw new ToolError(
        'INVALID_OPTIONS',
        `maxPageBytes must be a whole number from 1 to ${MAX_PAGE_BYTES_LIMIT}, got ${options.maxPageBytes}.`,
      );
    }
    const extensions = normaliseExtensions(options.allowedExtensions);
    for (const config of options.wikis) {
      if (typeof config?.id !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(config.id)) {
        throw new ToolError(
          'INVALID_OPTIONS',
          `wiki id ${JSON.stringify(config?.id)} is invalid: use 1 to 64 letters, digits, "_", "-" or ".".`,
        );
      }
      if (this.byId.has(config.id)) {
        throw new ToolError('INVALID_OPTIONS', `wiki id "${config.id}" is configured twice.`);
      }
      this.byId.set(config.id, new Wiki(config, { maxPageBytes, extensions }));
    }
  }

  /** All wikis in configuration order. */
  all(): Wiki[] {
    return [...this.byId.values()];
  }

  /** The wiki with this id, or `UNKNOWN_WIKI` with the closest ids. */
  get(id: string): Wiki {
    const wiki = this.byId.get(id);
    if (wiki) return wiki;
    const ids = [...this.byId.keys()];
    throw new ToolError(
      'UNKNOWN_WIKI',
      `no wiki has id ${JSON.stringify(id)}; known ids: ${ids.join(', ')}. Call list_wikis to see them.`,
      { suggestions: suggest(id, ids, { max: 3 }) },
    );
  }
}
