export { main } from './cli.js';
export {
  type Composition,
  compose,
  configFromFlags,
  defaultConfig,
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
export { type HttpHandle, type HttpOptions, startHttp } from './http.js';
export { createLogger, LOG_LEVELS, type Logger, type LogLevel } from './log.js';
export { createMcpServer } from './server.js';
export { VERSION } from './version.js';
