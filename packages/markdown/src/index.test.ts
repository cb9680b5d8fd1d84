import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names', async () => {
    const api = await import('./index.js');
    expect(Object.keys(api).sort()).toEqual([
      'DEFAULT_MAX_CHUNK_WORDS',
      'HEADING_SEPARATOR',
      'MAX_NESTING',
      'REMARK_DOCUMENT_CHARS',
      'REMARK_HEADINGS_TOTAL_CHARS',
      'REMARK_HEADING_CHARS',
      'REMARK_TOTAL_CHARS',
      'REMARK_WINDOW_CHARS',
      'WORKER_MIN_CHARS',
      'WorkerHost',
      'buildDocument',
      'buildDocumentAsync',
      'chunkDocument',
      'chunkLines',
      'codeSpans',
      'computeLineStarts',
      'documentFrom',
      'extractLines',
      'findWikiLinks',
      'findWorkerScript',
      'formatWikiLink',
      'headingSource',
      'inSpans',
      'inlineCodeSpans',
      'isMarkdownPath',
      'lineEndOffset',
      'lineStartOffset',
      'outlineInWorker',
      'outlineOf',
      'parseWikiLinkBody',
      'remarkAffordable',
      'remarkOutline',
      'rootExtract',
      'scanOutline',
      'sectionAtLine',
      'sectionExtract',
      'slugsFor',
      'trimBlankTail',
    ]);
  });

  it('exports the test corpus from @lectern/markdown/testing', async () => {
    const testing = await import('./testing.js');
    expect(Object.keys(testing).sort()).toEqual([
      'PATHOLOGICAL_KINDS',
      'createRng',
      'pathologicalDocument',
      'realisticDocument',
      'tortureDocument',
    ]);
  });

  it('reads one document into sections with slugs, paths and code ranges', async () => {
    const { buildDocument } = await import('./index.js');
    const doc = buildDocument('# Guide\n\n## Install\n\n```sh\n# not a heading\n```\n');
    expect(doc.sections.map((s) => [s.slug, s.headingPath])).toEqual([
      ['guide', ['Guide']],
      ['install', ['Guide', 'Install']],
    ]);
    expect(doc.blocks).toEqual([{ kind: 'code', startLine: 5, endLine: 7 }]);
    expect(doc.exact).toBe(true);
  });
});
