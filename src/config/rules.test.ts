import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../test/support/config-problems.js';
import type { Variable } from './schema.js';
import { SERVER_VARIABLES, VARIABLES } from './schema.js';
import { SERVER_DEFAULTS, TOOL_LIMIT_DEFAULTS } from './server-defaults.js';
import { loadConfig } from './load-config.js';

/** A value of `variable`'s kind that it accepts on its own. */
function sample(variable: Variable): string {
  if (variable.secret === true) return 'S3CRET-'.repeat(6);
  if (variable.range !== undefined) return String(variable.range.min);
  if (variable.type === 'boolean') return 'true';
  if (variable.type === 'URL') return 'https://sample.example.com';
  return 'sample';
}

describe('the rules that tie one variable to another', () => {
  const dependent = Object.entries(VARIABLES).filter(([, variable]) => variable.requires !== undefined);

  it.each(dependent)('refuses %s without the variable it requires, and never quotes a secret', (name, variable) => {
    const problems = problemsOf({ [name]: sample(variable) });
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${name}\\b.*: has no effect without ${variable.requires!}`))]);
    expect(problems.join('\n')).not.toContain('S3CRET');
  });
});

describe('the schema\'s defaults', () => {
  it('are what loadConfig gives, and what the HTTP layer and the tools fall back to', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: SERVER_VARIABLES.PORT.default,
      host: SERVER_VARIABLES.HOST.default,
      maxSessions: SERVER_DEFAULTS.maxSessions,
      sessionIdleTtlSeconds: SERVER_DEFAULTS.sessionIdleTtlSeconds,
      maxSessionsPerPrincipal: SERVER_DEFAULTS.maxSessionsPerPrincipal,
      drainTimeoutMs: SERVER_DEFAULTS.drainTimeoutMs,
      maxBodyBytes: SERVER_DEFAULTS.maxBodyBytes,
      requestTimeoutMs: SERVER_DEFAULTS.requestTimeoutMs,
      maxConcurrentPerSession: SERVER_DEFAULTS.maxConcurrentPerSession,
      maxConcurrentPerPrincipal: SERVER_DEFAULTS.maxConcurrentPerPrincipal,
      maxConcurrentPerAddress: SERVER_DEFAULTS.maxConcurrentPerAddress,
      maxListenStreamsPerPrincipal: SERVER_DEFAULTS.maxListenStreamsPerPrincipal,
      maxListenStreamsPerAddress: SERVER_DEFAULTS.maxListenStreamsPerAddress,
      listenIdleTtlSeconds: SERVER_DEFAULTS.listenIdleTtlSeconds,
      writeTimeoutMs: SERVER_DEFAULTS.writeTimeoutMs,
      sessions: { maxAgeSeconds: SERVER_DEFAULTS.sessionMaxAgeSeconds },
      toolLimits: TOOL_LIMIT_DEFAULTS,
    });
  });
});
