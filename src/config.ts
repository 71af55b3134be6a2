// The only reader of the environment. Every setting is validated here, once, at boot; a bad value
// fails the start with one message that lists every problem, so an operator fixes them in one go.
import { z } from 'zod';

/** The search engine's default chunk length, needed to check CHUNK_OVERLAP_WORDS when only it is set. */
const DEFAULT_CHUNK_WORDS = 180;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Typed, validated settings. Units are in the names; defaults are in `describeConfig` below. */
export interface Config {
  /** Folder of documents to serve (resolved by the caller against the working directory). */
  corpusDir: string;
  /** Interface to bind. Default 127.0.0.1 (loopback only). */
  host: string;
  /** TCP port, 0–65535 (0 picks a free port). Default 8080. */
  port: number;
  /** Origin under which clients reach the server, no trailing slash. Default `http://HOST:PORT`. */
  publicUrl: string;
  /** Sessions kept at once; the least recently used is closed beyond this. Default 1000. */
  maxSessions: number;
  /** Seconds of inactivity after which a session is closed. Default 1800. */
  sessionIdleTtlSeconds: number;
  /** Longest chunk in words, 20–5000; undefined leaves the search engine's default (180). */
  chunkWords: number | undefined;
  /** Words shared by consecutive chunks, at most half of chunkWords; undefined leaves the default (40). */
  chunkOverlapWords: number | undefined;
  /** BM25 term-frequency saturation, 0–10; undefined leaves the search engine's default. */
  bm25K1: number | undefined;
  /** BM25 length normalisation, 0–1; undefined leaves the search engine's default. */
  bm25B: number | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Whether query text may appear in logs. Default false. */
  logQueries: boolean;
  /** Milliseconds SIGTERM/SIGINT waits for in-flight requests before cutting them off, 100–600000. Default 10000. */
  drainTimeoutMs: number;
}

/** Thrown by `loadConfig`; `problems` has one line per bad variable. */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const integer = (min: number, max: number) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .optional(),
  );

const decimal = (min: number, max: number, minExclusive = false) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .refine((n) => Number.isFinite(n), { error: 'must be a finite number' })
      .refine((n) => (minExclusive ? n > min : n >= min), {
        error: minExclusive ? `must be greater than ${min}` : `must be at least ${min}`,
      })
      .refine((n) => n <= max, { error: `must be at most ${max}` })
      .optional(),
  );

const text = z.preprocess(blankToUndefined, z.string().optional());

const boolean = z.preprocess(
  blankToUndefined,
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? undefined : ['true', '1', 'yes'].includes(v))),
);

const url = z.preprocess(
  blankToUndefined,
  z
    .url({ protocol: /^https?$/, error: 'must be an absolute http:// or https:// URL, e.g. https://docs.example.com' })
    .optional(),
);

const envSchema = z.object({
  CORPUS_DIR: text,
  HOST: text,
  PORT: integer(0, 65535),
  PUBLIC_URL: url,
  MAX_SESSIONS: integer(1, 1_000_000),
  SESSION_IDLE_TTL: integer(1, 7 * 24 * 3600),
  CHUNK_WORDS: integer(20, 5000),
  CHUNK_OVERLAP_WORDS: integer(0, 2500),
  BM25_K1: decimal(0, 10),
  BM25_B: decimal(0, 1),
  LOG_LEVEL: z.preprocess(
    (v) => (typeof blankToUndefined(v) === 'string' ? String(v).toLowerCase() : undefined),
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).optional(),
  ),
  LOG_QUERIES: boolean,
  DRAIN_TIMEOUT_MS: integer(100, 600_000),
});

/** `http://HOST:PORT`, bracketing an IPv6 literal. */
function defaultPublicUrl(host: string, port: number): string {
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${hostPart}:${port}`;
}

/**
 * Reads and validates the settings. Throws `ConfigError` naming every bad variable and its value.
 * Blank variables count as unset.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '?');
      return `${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const problems: string[] = [];
  const chunkWords = e.CHUNK_WORDS ?? DEFAULT_CHUNK_WORDS;
  if (e.CHUNK_OVERLAP_WORDS !== undefined && e.CHUNK_OVERLAP_WORDS * 2 > chunkWords) {
    problems.push(
      `CHUNK_OVERLAP_WORDS=${JSON.stringify(env.CHUNK_OVERLAP_WORDS)}: must be at most half of CHUNK_WORDS (${chunkWords})`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const host = e.HOST ?? '127.0.0.1';
  const port = e.PORT ?? 8080;
  return {
    corpusDir: e.CORPUS_DIR ?? './corpus',
    host,
    port,
    publicUrl: (e.PUBLIC_URL ?? defaultPublicUrl(host, port)).replace(/\/+$/, ''),
    maxSessions: e.MAX_SESSIONS ?? 1000,
    sessionIdleTtlSeconds: e.SESSION_IDLE_TTL ?? 1800,
    chunkWords: e.CHUNK_WORDS,
    chunkOverlapWords: e.CHUNK_OVERLAP_WORDS,
    bm25K1: e.BM25_K1,
    bm25B: e.BM25_B,
    logLevel: e.LOG_LEVEL ?? 'info',
    logQueries: e.LOG_QUERIES ?? false,
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS ?? 10_000,
  };
}
