import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names', async () => {
    const api = await import('./index.js');
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ConfigError",
        "ConfigSchema",
        "DEFAULT_MAX_SESSIONS",
        "DEFAULT_SESSION_IDLE_MS",
        "HttpStartError",
        "LOG_LEVELS",
        "LineTransport",
        "MAX_MESSAGE_BYTES",
        "PACKAGES",
        "PACKAGE_PRESETS",
        "PRESET_NAMES",
        "PackageLoadError",
        "REGISTRY",
        "VERSION",
        "compose",
        "configFromFlags",
        "configJsonSchema",
        "createLogger",
        "createMcpServer",
        "defaultConfig",
        "examplesDir",
        "isLoopback",
        "loadConfigFile",
        "main",
        "parseConfig",
        "presetConfig",
        "startHttp",
      ]
    `);
  });
});
