import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names', async () => {
    const api = await import('./index.js');
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "CORE_MESSAGES_ES",
        "DEFAULT_MAX_FILE_BYTES",
        "TEMP_PREFIX",
        "ToolError",
        "adaptTool",
        "assertVersion",
        "createRoot",
        "createRootSync",
        "decodeUtf8",
        "defineTool",
        "describeZodError",
        "detectLineEndings",
        "editDistance",
        "errorPayload",
        "fileKind",
        "findInvalidUtf8",
        "findNul",
        "fsyncDirectory",
        "hasBom",
        "invokeTool",
        "isBinary",
        "isDirectorySync",
        "isTempName",
        "isToolError",
        "isVersion",
        "localizeError",
        "localizedMessage",
        "messageData",
        "openInRoot",
        "openInRootSync",
        "paginateChars",
        "paginateLines",
        "planLines",
        "readFileInRoot",
        "readFileInRootSync",
        "registerTools",
        "resolveForWrite",
        "resolveInRoot",
        "resolveToolNames",
        "sha256",
        "sha256Handle",
        "splitLines",
        "statInRoot",
        "suggest",
        "writeFileAtomic",
      ]
    `);
  });

  it('keeps the testing helper on its own entry point', async () => {
    const testing = await import('./testing.js');
    expect(Object.keys(testing).sort()).toEqual(['bySize', 'connectTools', 'errorOf', 'testDepth']);
  });
});
