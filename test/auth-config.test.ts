// The authentication settings of src/config/: parsing, the rules every value must follow, and the
// secure default (no auth → loopback only), all reported in the one ConfigError with the other settings.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../src/config/loopback-host.js';
import { loadConfig } from '../src/config/load-config.js';
import { ConfigError } from '../src/config/config-error.js';
import { realPath } from '../src/real-path.js';
import { problemsOf } from './support/config-problems.js';

const tokenA = 'a'.repeat(32);
const tokenB = 'b'.repeat(40);


describe('config', () => {
  describe('loadConfig: authentication', () => {
    it('leaves auth off by default, on a loopback HOST', () => {
      expect(loadConfig({}).auth).toEqual({
        enabled: false,
        staticTokens: [],
        tokensFile: undefined,
        oauth: undefined,
        resource: 'http://127.0.0.1:8080/mcp',
        allowUnauthenticated: false,
        allowHttpPublicUrl: false,
        metricsToken: undefined,
      });
    });

    it('reads AUTH_TOKENS comma-separated, AUTH_TOKENS_FILE as a path, and METRICS_TOKEN', () => {
      const { auth } = loadConfig({ AUTH_TOKENS: ` ${tokenA}, ${tokenB},`, AUTH_TOKENS_FILE: '/run/secrets/tokens', METRICS_TOKEN: tokenB });
      expect(auth).toMatchObject({ enabled: true, staticTokens: [tokenA, tokenB], tokensFile: '/run/secrets/tokens', metricsToken: tokenB });
    });

    it('RFC 8707: defaults OAUTH_AUDIENCE to the canonical resource URL, PUBLIC_URL + /mcp', () => {
      const { auth } = loadConfig({ PUBLIC_URL: 'https://docs.example.com/', OAUTH_ISSUER: 'https://tenant.auth0.com/' });
      expect(auth.resource).toBe('https://docs.example.com/mcp');
      expect(auth.oauth).toEqual({ issuer: 'https://tenant.auth0.com/', jwksUrl: undefined, audience: 'https://docs.example.com/mcp', requiredScopes: [] });
    });

    it('reads OAUTH_REQUIRED_SCOPES separated by commas or spaces, OAUTH_AUDIENCE and OAUTH_JWKS_URL', () => {
      const { auth } = loadConfig({
        OAUTH_ISSUER: 'https://kc.example.com/realms/corp',
        OAUTH_JWKS_URL: 'https://kc.example.com/realms/corp/protocol/openid-connect/certs',
        OAUTH_AUDIENCE: 'corpus-api',
        OAUTH_REQUIRED_SCOPES: 'docs:read, docs:search  docs:read',
      });
      expect(auth.oauth).toMatchObject({ audience: 'corpus-api', requiredScopes: ['docs:read', 'docs:search'], jwksUrl: expect.stringContaining('/certs') });
    });

    it('refuses to bind a non-loopback HOST without auth, saying how to configure it', () => {
      const problems = problemsOf({ HOST: '0.0.0.0', PUBLIC_URL: 'https://docs.example.com' });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^HOST="0.0.0.0": is not a loopback address and no authentication is configured/);
      expect(problems[0]).toContain('AUTH_TOKENS');
      expect(problems[0]).toContain('OAUTH_ISSUER');
      expect(problems[0]).toContain('ALLOW_UNAUTHENTICATED=true');
    });

    it.each([
      { HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'true', PUBLIC_URL: 'http://docs.internal' },
      { HOST: '0.0.0.0', AUTH_TOKENS: tokenA, PUBLIC_URL: 'https://docs.example.com' },
      { HOST: '0.0.0.0', AUTH_TOKENS_FILE: '/run/secrets/tokens', PUBLIC_URL: 'https://docs.example.com' },
      { HOST: '0.0.0.0', AUTH_TOKENS: tokenA, PUBLIC_URL: 'http://127.0.0.1:8080' },
      { HOST: '0.0.0.0', AUTH_TOKENS: tokenA, PUBLIC_URL: 'http://docs.internal', ALLOW_HTTP_PUBLIC_URL: 'true' },
      { AUTH_TOKENS: tokenA, PUBLIC_URL: 'http://docs.internal' },
      { AUTH_TOKENS_FILE: '/srv/corpus-tokens', CORPUS_DIR: '/srv/corpus' },
      { HOST: '::', OAUTH_ISSUER: 'https://as.example', PUBLIC_URL: 'https://docs.example.com' },
      { HOST: 'localhost' },
      { HOST: '127.0.0.2' },
      { HOST: '::1' },
    ] as Record<string, string>[])('starts with %j', (env) => {
      expect(problemsOf(env)).toEqual([]);
    });

    it('lists auth problems together with every other bad value, never quoting a secret', () => {
      const shortSecret = 'hunter2-is-short';
      const problems = problemsOf({
        PORT: 'eighty',
        AUTH_TOKENS: `${tokenA},${shortSecret}`,
        METRICS_TOKEN: 'metrics with spaces in it, long enough to pass',
        OAUTH_ISSUER: 'not a url',
        ALLOW_UNAUTHENTICATED: 'maybe',
      });
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^PORT="eighty"/),
          expect.stringMatching(/^AUTH_TOKENS entry 2 is 16 characters; use at least 32/),
          expect.stringMatching(/^METRICS_TOKEN contains characters a bearer token cannot carry/),
          expect.stringMatching(/^OAUTH_ISSUER="not a url": must be an absolute http/),
          expect.stringMatching(/^ALLOW_UNAUTHENTICATED="maybe": must be true or false/),
        ]),
      );
      expect(problems.join('\n')).not.toContain(shortSecret);
      expect(problems.join('\n')).not.toContain('metrics with spaces');
    });

    it('refuses contradictory or incomplete OAuth settings', () => {
      expect(problemsOf({ OAUTH_JWKS_URL: 'https://as.example/jwks', OAUTH_REQUIRED_SCOPES: 'a' })).toEqual([
        expect.stringMatching(/^OAUTH_JWKS_URL="https:\/\/as.example\/jwks": has no effect without OAUTH_ISSUER/),
        expect.stringMatching(/^OAUTH_REQUIRED_SCOPES="a": has no effect without OAUTH_ISSUER/),
      ]);
      expect(problemsOf({ AUTH_TOKENS: tokenA, ALLOW_UNAUTHENTICATED: 'true' })).toEqual([expect.stringMatching(/^ALLOW_UNAUTHENTICATED="true": contradicts/)]);
      expect(problemsOf({ HOST: '0.0.0.0', OAUTH_ISSUER: 'https://as.example' })).toEqual([expect.stringMatching(/needs PUBLIC_URL/)]);
    });

    it('refuses a non-loopback HOST without PUBLIC_URL, since every URL clients see derives from it', () => {
      expect(problemsOf({ HOST: '0.0.0.0', AUTH_TOKENS: tokenA })).toEqual([
        expect.stringMatching(/^HOST="0.0.0.0": is not a loopback address, so it needs PUBLIC_URL, the URL clients use/),
      ]);
      expect(problemsOf({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'true' })).toEqual([expect.stringMatching(/needs PUBLIC_URL/)]);
    });

    it('refuses an http PUBLIC_URL with auth on a non-loopback HOST, as tokens would cross the network in the clear, unless ALLOW_HTTP_PUBLIC_URL=true', () => {
      expect(problemsOf({ HOST: '0.0.0.0', AUTH_TOKENS: tokenA, PUBLIC_URL: 'http://docs.example.com' })).toEqual([
        expect.stringMatching(/^PUBLIC_URL="http:\/\/docs.example.com": must be an https:\/\/ URL when authentication is on.*ALLOW_HTTP_PUBLIC_URL=true/),
      ]);
      expect(problemsOf({ HOST: '::', OAUTH_ISSUER: 'https://as.example', PUBLIC_URL: 'http://docs.example.com' })).toHaveLength(1);
      expect(loadConfig({ HOST: '0.0.0.0', AUTH_TOKENS: tokenA, PUBLIC_URL: 'http://docs.internal', ALLOW_HTTP_PUBLIC_URL: 'yes' }).auth.allowHttpPublicUrl).toBe(true);
    });

    it.each([
      ['/srv/corpus/tokens.txt', '/srv/corpus'],
      ['/srv/corpus/.secrets/tokens', '/srv/corpus/'],
      ['./corpus/tokens', undefined],
      ['/srv/docs/../corpus/t', '/srv/corpus'],
    ])('refuses AUTH_TOKENS_FILE=%j inside CORPUS_DIR=%j, where it would be indexed and served', (file, dir) => {
      expect(problemsOf({ AUTH_TOKENS_FILE: file, ...(dir === undefined ? {} : { CORPUS_DIR: dir }) })).toEqual([
        expect.stringMatching(/^AUTH_TOKENS_FILE=".*": is inside CORPUS_DIR, so it would be indexed and served/),
      ]);
    });

    it('refuses AUTH_TOKENS_FILE inside CORPUS_DIR once symbolic links are resolved (CORPUS_DIR a link to the folder holding it)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-tokens-link-'));
      try {
        await mkdir(join(dir, 'real', 'docs'), { recursive: true });
        await writeFile(join(dir, 'real', 'docs', 'tokens.txt'), `${tokenA}\n`);
        await symlink(join(dir, 'real', 'docs'), join(dir, 'docs'));
        const env = { CORPUS_DIR: join(dir, 'docs'), AUTH_TOKENS_FILE: join(dir, 'real', 'docs', 'tokens.txt') };
        const load = () => loadConfig(env, { cpus: 1, realPath });
        expect(load).toThrow(ConfigError);
        expect(() => load()).toThrow(/AUTH_TOKENS_FILE=".*": is inside CORPUS_DIR once symbolic links are resolved/);
        // And the other way round: the tokens file named through a link into the corpus.
        await symlink(join(dir, 'real'), join(dir, 'alias'));
        expect(() => loadConfig({ CORPUS_DIR: join(dir, 'real', 'docs'), AUTH_TOKENS_FILE: join(dir, 'alias', 'docs', 'tokens.txt') }, { cpus: 1, realPath })).toThrow(/once symbolic links are resolved/);
        // A tokens file truly outside loads.
        await writeFile(join(dir, 'real', 'tokens.txt'), `${tokenA}\n`);
        expect(loadConfig({ CORPUS_DIR: join(dir, 'docs'), AUTH_TOKENS_FILE: join(dir, 'real', 'tokens.txt') }, { cpus: 1, realPath }).auth.tokensFile).toBe(join(dir, 'real', 'tokens.txt'));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('reads METRICS_PORT and refuses it equal to PORT', () => {
      expect(loadConfig({ METRICS_PORT: '9091' }).metricsPort).toBe(9091);
      expect(loadConfig({}).metricsPort).toBeUndefined();
      expect(problemsOf({ PORT: '9091', METRICS_PORT: '9091' })).toEqual([expect.stringMatching(/^METRICS_PORT="9091": must differ from PORT \(9091\)/)]);
    });

    it('RFC 8414 §2: requires an https issuer, except on loopback', () => {
      expect(problemsOf({ OAUTH_ISSUER: 'http://as.example' })).toEqual([expect.stringMatching(/^OAUTH_ISSUER="http:\/\/as.example": must be an https:\/\/ URL/)]);
      expect(problemsOf({ OAUTH_ISSUER: 'http://127.0.0.1:9000/realms/test' })).toEqual([]);
    });
  });

  describe('isLoopbackHost', () => {
    it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is loopback', (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    });
    it.each(['0.0.0.0', '::', '10.0.0.1', 'docs.example.com', '127.0.0.1.evil.example', 'localhost.evil.example'])('%s is not', (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    });
  });
});
