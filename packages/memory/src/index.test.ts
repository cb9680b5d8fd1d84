import { expect, test } from 'vitest';
import * as api from './index.js';

test('the public API is exactly this set of names', () => {
  expect(Object.keys(api).sort()).toEqual([
    'API_NAMES',
    'DEFAULT_EXCLUDE',
    'DEFAULT_INCLUDE',
    'DEFAULT_MEMORY_MAX_FILE_BYTES',
    'DEFAULT_SEARCH_LIMIT',
    'MAX_FRAGMENT_BYTES',
    'MAX_FRAGMENT_LINES',
    'MAX_QUERY_CHARS',
    'MAX_RANKED_CHUNKS',
    'MAX_SEARCH_LIMIT',
    'MAX_SEARCH_OFFSET',
    'MEMORY_LIST_SOURCES',
    'MEMORY_READ_FRAGMENT',
    'MEMORY_REINDEX',
    'MEMORY_SEARCH',
    'MemoryError',
    'RawQueryError',
    'TOOL_NAMES',
    'buildFtsQuery',
    'createMemory',
    'fragmentOutputSchema',
    'isMemoryError',
    'isPostgresUrl',
    'memoriaTools',
    'memoryListSourcesTool',
    'memoryPackage',
    'memoryReadFragmentTool',
    'memoryReindexTool',
    'memorySearchTool',
    'memoryTools',
    'parseQuery',
    'postgresBackend',
    'reindexOutputSchema',
    'renderError',
    'searchOutputSchema',
    'sourcesOutputSchema',
    'sqliteBackend',
  ]);
});

test('limits and defaults', () => {
  expect(api.MAX_FRAGMENT_LINES).toBe(200);
  expect(api.DEFAULT_SEARCH_LIMIT).toBe(10);
  expect(api.MAX_SEARCH_LIMIT).toBe(50);
  expect(api.MAX_RANKED_CHUNKS).toBe(2000);
  expect(api.DEFAULT_INCLUDE).toEqual(['**/*.md', '**/*.markdown', '**/*.txt']);
});
