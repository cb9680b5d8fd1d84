import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names', async () => {
    const api = await import('./index.js');
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "CORE_MESSAGES_ES",
        "DEFAULT_MAX_FILE_BYTES",
        "MAX_NAME_BYTES",
        "MAX_PATH_BYTES",
        "OpenedDir",
        "STATE_DIR_NAME",
        "TEMP_PREFIX",
        "ToolError",
        "adaptTool",
        "anchorMode",
        "assertVersion",
        "checkLimits",
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
        "isBroadRoot",
        "isDirectorySync",
        "isTempName",
        "isToolError",
        "isVersion",
        "localizeError",
        "localizedMessage",
        "messageData",
        "openDirInRoot",
        "openDirInRootSync",
        "openInRoot",
        "openInRootSync",
        "openStateDirSync",
        "paginateChars",
        "paginateLines",
        "planLines",
        "readFileInRoot",
        "readFileInRootSync",
        "registerTools",
        "removeFileInRoot",
        "removeFileInRootSync",
        "resolveForWrite",
        "resolveInRoot",
        "resolveToolNames",
        "sha256",
        "sha256Handle",
        "showPath",
        "splitLines",
        "statInRoot",
        "statInRootSync",
        "suggest",
        "tempNameFor",
        "writeFileAtomic",
        "writeFileInRoot",
        "writeFileInRootSync",
      ]
    `);
  });

  it('keeps the testing helper on its own entry point', async () => {
    const testing = await import('./testing.js');
    expect(Object.keys(testing).sort()).toEqual([
      'bySize',
      'connectTools',
      'errorOf',
      'startExchangeLoop',
      'testDepth',
    ]);
  });
});
