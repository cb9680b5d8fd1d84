import { suggest, ToolError } from '@lectern/core';
import type { Extract, Section } from '@lectern/markdown';
import { z } from 'zod';
import {
  DEFAULT_MAX_DOC_BYTES,
  DocChangedError,
  type DocsIndex,
  type IndexedDoc,
} from './docs-index.js';
import type { DocOutline } from './stored.js';

/** The anchor of a section (or of the document root when `section` is null). */
export function anchorOf(doc: IndexedDoc, section: Section | null): string {
  if (doc.docId === null) return section ? section.slug : '';
  return section ? `${doc.docId}#${section.slug}` : doc.docId;
}

/** Characters of a section with its subsections. */
export function sectionChars(model: DocOutline, s: Section): number {
  return model.sectionChars[s.index] ?? 0;
}

/** The innermost section containing `line`, or null when the line precedes every heading. */
export function sectionAtLine(model: DocOutline, line: number): Section | null {
  let found: Section | null = null;
  for (const s of model.sections) {
    if (s.startLine > line) break;
    found = s;
  }
  return found;
}

/** Splits an anchor at its last `#`. */
export function splitAnchor(anchor: string): { docId: string; slug: string | null } {
  const i = anchor.lastIndexOf('#');
  return i === -1
    ? { docId: anchor, slug: null }
    : { docId: anchor.slice(0, i), slug: anchor.slice(i + 1) };
}

const slugMaps = new WeakMap<DocOutline, Map<string, Section>>();

/** Sections of a document by slug (built once per parse). */
export function slugIndex(model: DocOutline): Map<string, Section> {
  let map = slugMaps.get(model);
  if (!map) {
    map = new Map(model.sections.map((s) => [s.slug, s]));
    slugMaps.set(model, map);
  }
  return map;
}

/** Finds a section by slug; throws `ANCHOR_NOT_FOUND` suggesting that document's anchors. */
export function sectionBySlug(doc: IndexedDoc, slug: string, shown: string): Section {
  const found = slugIndex(doc.model).get(slug);
  if (found) return found;
  const anchors = doc.model.sections.map((s) => anchorOf(doc, s));
  const lowered = slug.toLowerCase();
  const byHeading = doc.model.sections.find((s) => s.heading.toLowerCase() === lowered);
  const closest = suggest(doc.docId === null ? slug : `${doc.docId}#${slug}`, anchors);
  throw new ToolError(
    'ANCHOR_NOT_FOUND',
    anchors.length === 0
      ? `anchor "${shown}" does not exist: the document has no headings; read it whole with its doc_id.`
      : `anchor "${shown}" does not exist in this document; its closest anchors are listed as suggestions.`,
    {
      suggestions: byHeading
        ? [
            anchorOf(doc, byHeading),
            ...closest.filter((a) => a !== anchorOf(doc, byHeading)),
          ].slice(0, 5)
        : closest,
    },
  );
}

/**
 * Resolves `<doc_id>#<slug>` (or `<doc_id>` for the whole document). An unknown document
 * suggests the closest anchors and doc ids of the roots; a known document with an unknown slug
 * suggests that document's closest anchors.
 */
export async function resolveAnchor(
  index: DocsIndex,
  anchor: string,
): Promise<{ doc: IndexedDoc; section: Section | null }> {
  const trimmed = anchor.trim();
  const isMissing = (e: unknown) => e instanceof Error && (e as ToolError).code === 'DOC_NOT_FOUND';
  const { docId, slug } = splitAnchor(trimmed);
  let doc: IndexedDoc;
  try {
    doc = await index.getDocument(docId);
  } catch (e) {
    if (!isMissing(e)) throw e;
    if (slug !== null) {
      // a doc_id may itself contain '#'
      try {
        return { doc: await index.getDocument(trimmed), section: null };
      } catch (e2) {
        if (!isMissing(e2)) throw e2;
      }
    }
    throw await unknownAnchor(index, trimmed);
  }
  if (slug === null || slug === '') return { doc, section: null };
  return { doc, section: sectionBySlug(doc, slug, trimmed) };
}

async function unknownAnchor(index: DocsIndex, anchor: string): Promise<ToolError> {
  const { docs } = await index.listDocuments();
  const { docId } = splitAnchor(anchor);
  const ids = docs.map((d) => d.docId!);
  // closest documents first, then the closest anchors inside the three closest documents
  const nearDocs = suggest(docId, ids, { max: 3 });
  const candidates: string[] = [...nearDocs];
  for (const id of nearDocs) {
    const d = docs.find((x) => x.docId === id)!;
    for (const s of d.model.sections) candidates.push(anchorOf(d, s));
  }
  const all = docs.reduce((n, d) => n + d.model.sections.length, 0);
  if (all <= 20000)
    for (const d of docs) for (const s of d.model.sections) candidates.push(anchorOf(d, s));
  return new ToolError(
    'ANCHOR_NOT_FOUND',
    `anchor "${anchor}" does not exist: no document has doc_id "${docId}". Anchors look like <doc_id>#<slug>, as returned by the outline, search and where tools; the closest ones are listed as suggestions.`,
    { suggestions: suggest(anchor, candidates) },
  );
}

/** The line range of a section, or of the whole document when `section` is null. */
export function rangeOf(
  doc: IndexedDoc,
  section: Section | null,
  withSubsections: boolean,
): { first: number; last: number } {
  if (section) {
    return {
      first: section.startLine,
      last: withSubsections ? section.endLine : section.ownEndLine,
    };
  }
  return { first: 1, last: withSubsections ? doc.model.rootEndLine : doc.model.rootOwnEndLine };
}

/**
 * The content of a section, or of the whole document when `section` is null, read from the
 * document's file (or inline text). Throws {@link DocChangedError} when the file changed since
 * it was parsed (see {@link retryChanged}).
 */
export function contentOf(
  doc: IndexedDoc,
  section: Section | null,
  withSubsections: boolean,
): Promise<Extract> {
  const { first, last } = rangeOf(doc, section, withSubsections);
  return doc.extract(first, last);
}

/** Attempts of {@link retryChanged} before it gives up on a file that keeps changing. */
export const CHANGED_ATTEMPTS = 3;

/**
 * Runs `work` (which looks its documents up and reads their text) again when a file changed
 * between the lookup and the read, so the answer always comes from one version of each file.
 * A file that changes at every attempt is a `DOC_CHANGED` error.
 */
export async function retryChanged<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (e) {
      if (!(e instanceof DocChangedError)) throw e;
      if (attempt >= CHANGED_ATTEMPTS) {
        throw new ToolError(
          'DOC_CHANGED',
          `${e.path} changed on disk while it was being read, ${attempt} times in a row; call again once it is no longer being written.`,
          { details: { path: e.path } },
        );
      }
    }
  }
}

/** Longest path, doc_id, anchor, heading or scope a tool accepts, in characters. */
export const MAX_NAME_CHARS = 4096;
/** Longest search query a tool accepts, in characters. */
export const MAX_QUERY_CHARS = 1000;
/**
 * Longest inline Markdown `text` a tool accepts, in characters: the default file size limit
 * (a character is at least one byte of UTF-8, so no text within the byte limit is refused here).
 */
export const MAX_TEXT_CHARS = DEFAULT_MAX_DOC_BYTES;

/** Input fields naming one document: a doc_id, a file path in a root, or inline text. */
export const sourceFields = {
  doc_id: z
    .string()
    .max(4096, 'a path is at most 4096 characters')
    .min(1)
    .optional()
    .describe('Document id.'),
  path: z
    .string()
    .max(4096, 'a path is at most 4096 characters')
    .min(1)
    .optional()
    .describe('File path in a docs root.'),
  text: z.string().max(MAX_TEXT_CHARS).optional().describe('Inline Markdown instead of a file.'),
};

/** The three ways to name a document. */
export type SourceKey = 'doc_id' | 'path' | 'text';

/** Options of {@link checkSource} and {@link loadSource}. */
export interface SourceOptions {
  /** Whether one source must be given (default true); without one, null means all documents. */
  required?: boolean;
  /** The sources this tool offers, in the order messages list them (default all three). */
  sources?: readonly SourceKey[];
}

/**
 * Which one of the offered sources `input` gives: throws `SOURCE_CONFLICT` for two or more and,
 * when one is required, `SOURCE_MISSING` for none. Messages name the parameters as data (a
 * function of the names), so a preset that spells them otherwise shows its own names.
 */
export function checkSource(
  input: { doc_id?: unknown; path?: unknown; text?: unknown },
  options: SourceOptions = {},
): SourceKey | undefined {
  const sources = options.sources ?? (['doc_id', 'path', 'text'] as const);
  const given = sources.filter((k) => input[k] !== undefined);
  const list = (n: (p: string) => string) => sources.map(n).join(', ');
  if (given.length > 1) {
    throw new ToolError(
      'SOURCE_CONFLICT',
      (n) => `give only one of ${list(n)}; got ${given.map(n).join(' and ')}.`,
      { details: { params: [...given] } },
    );
  }
  const which = given[0];
  if (which === undefined && options.required !== false) {
    throw new ToolError('SOURCE_MISSING', (n) => `give one of ${list(n)} to name the document.`, {
      details: { params: [...sources] },
    });
  }
  return which;
}

/**
 * The document named by exactly one of doc_id, path and text (see {@link checkSource}); with
 * `required` false and none given, null (meaning: all documents).
 */
export async function loadSource(
  index: DocsIndex,
  input: { doc_id?: string | undefined; path?: string | undefined; text?: string | undefined },
  options: SourceOptions = {},
): Promise<IndexedDoc | null> {
  const which = checkSource(input, options);
  if (which === undefined) return null;
  if (which === 'text') return index.parseText(input.text!);
  if (which === 'path') return index.loadPath(input.path!);
  return index.getDocument(input.doc_id!);
}

/** Output shape of one section reference in results. */
export const sectionRefSchema = {
  anchor: z
    .string()
    .describe('Anchor to pass to docs_read: <doc_id>#<slug>, or <doc_id> for a whole document.'),
  doc_id: z.string().describe('Document id.'),
  path: z
    .string()
    .describe(
      'File path of the document, relative to its root (root id first when several roots are served).',
    ),
  heading: z.string().describe("Heading text, or the document title for a document's own text."),
  heading_path: z
    .array(z.string())
    .describe('Headings from the outermost ancestor down to this section.'),
  level: z
    .number()
    .int()
    .describe('Heading level 1 to 6; 0 for the text before the first heading.'),
  start_line: z.number().int().describe('First line of the section (1-based).'),
  end_line: z.number().int().describe('Last line of the section including subsections (1-based).'),
};

/** The section reference fields of a result. */
export function sectionRef(doc: IndexedDoc, section: Section | null) {
  return {
    anchor: anchorOf(doc, section),
    doc_id: doc.docId ?? '',
    path: doc.displayPath ?? '',
    heading: section ? section.heading : (doc.model.title ?? doc.docId ?? ''),
    heading_path: section ? section.headingPath : [],
    level: section ? section.level : 0,
    start_line: section ? section.startLine : 1,
    end_line: section ? section.endLine : doc.model.rootEndLine,
  };
}
