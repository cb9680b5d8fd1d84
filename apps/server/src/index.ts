export { main } from './cli.js';
export {
  type Composition,
  compose,
  configFromFlags,
  defaultConfig,
  type IndexableStore,
  presetConfig,
  type RootFlags,
} from './compose.js';
export {
  type Config,
  ConfigError,
  ConfigSchema,
  configJsonSchema,
  loadConfigFile,
  PACKAGES,
  PRESET_NAMES,
  type PresetName,
  parseConfig,
} from './config.js';
export { examplesDir } from './examples.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  type HttpHandle,
  type HttpOptions,
  HttpStartError,
  isLoopback,
  startHttp,
} from './http.js';
export { MAX_MESSAGE_BYTES } from './lib/limits.js';
export { LineTransport, type LineTransportOptions } from './lib/stdio.js';
export { createLogger, LOG_LEVELS, type Logger, type LogLevel } from './log.js';
export {
  type ConfigRoot,
  PACKAGE_PRESETS,
  type PackageEntry,
  PackageLoadError,
  type PackageName,
  type PresetEntry,
  REGISTRY,
} from './registry.js';
export { createMcpServer } from './server.js';
export { VERSION } from './version.js';
