/** Log levels, most severe first. */
export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A logger that writes to stderr only: stdout belongs to the MCP protocol on stdio. */
export interface Logger {
  level: LogLevel;
  error: (message: string) => void;
  warn: (message: string) => void;
  info: (message: string) => void;
  debug: (message: string) => void;
}

/** Longest message a log line carries; the rest is cut (a request can hold megabytes). */
export const MAX_LOG_MESSAGE_CHARS = 4000;

/** Cuts a message to {@link MAX_LOG_MESSAGE_CHARS}, saying how much was left out. */
export function truncateLogMessage(message: string): string {
  if (message.length <= MAX_LOG_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_LOG_MESSAGE_CHARS)}… [${message.length - MAX_LOG_MESSAGE_CHARS} more characters cut]`;
}

/**
 * Creates a stderr {@link Logger} that prints messages at `level` and more severe ones, each
 * cut to {@link MAX_LOG_MESSAGE_CHARS} characters.
 */
export function createLogger(
  level: LogLevel = 'info',
  write: (s: string) => void = (s) => void process.stderr.write(s),
): Logger {
  const rank = LOG_LEVELS.indexOf(level);
  const at = (l: LogLevel) => (message: string) => {
    if (LOG_LEVELS.indexOf(l) <= rank) write(`[lectern] ${l}: ${truncateLogMessage(message)}\n`);
  };
  return { level, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
