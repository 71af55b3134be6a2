// The logging contract every folder codes against, and the one place that builds the real logger.
// A pino logger satisfies `Logger` as is; tests and library callers that want silence use
// `silentLogger`. Only src/main.ts decides where lines go (stdout in production).
import { createHash } from 'node:crypto';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

type LogMethod = (fields: Record<string, unknown>, message?: string) => void;

/** The subset of pino's API the project uses: structured fields first, then a message. */
export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

const ignore: LogMethod = () => {};

/** A logger that drops everything. */
export const silentLogger: Logger = Object.freeze({ debug: ignore, info: ignore, warn: ignore, error: ignore });

/**
 * How a session id appears in logs: the first 16 characters of its SHA-256 (base64url). Session ids
 * are self-contained tokens that let their holder use the session, so the id itself is never written;
 * the digest still ties a session's lines together.
 */
export const sessionLogId = (sessionId: string): string => createHash('sha256').update(sessionId).digest('base64url').slice(0, 16);

/** pino's level names, plus 'silent' to turn logging off; LOG_LEVEL accepts exactly these. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The full pino logger, for the HTTP layer that binds request ids with `child()`. */
export type AppLogger = PinoLogger;

export interface CreateLoggerOptions {
  /** Minimum level written. Default 'info'. */
  level?: LogLevel;
  /** Where JSON lines go. Default: stdout (file descriptor 1), written synchronously. */
  destination?: DestinationStream;
  /** Fields bound to every line, e.g. `{ service: 'corpus-mcp', version }`. Default none. */
  base?: Record<string, unknown>;
}

/**
 * Header and field paths censored on every line. Nothing in the code logs a credential; this is
 * defence in depth for the day someone logs a whole request or header bag by mistake.
 */
export const REDACT_PATHS: readonly string[] = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  'headers["proxy-authorization"]',
  'req.headers["proxy-authorization"]',
  'headers.cookie',
  'req.headers.cookie',
  'token',
  'accessToken',
  'access_token',
  '*.token',
  '*.accessToken',
  '*.access_token',
];

/** Builds the process's JSON logger: one line per event, ISO timestamps, level names not numbers. */
export function createLogger(options: CreateLoggerOptions = {}): AppLogger {
  const { level = 'info', destination, base = {} } = options;
  const config = {
    level,
    base,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
  };
  return destination ? pino(config, destination) : pino(config, pino.destination({ dest: 1, sync: true }));
}
