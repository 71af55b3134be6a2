import { describe, expect, it } from 'vitest';
import { availableCpus } from '../available-cpus.js';
import { ConfigError } from './config-error.js';
import { loadConfig } from './load-config.js';
import { problemsOf } from '../../test/support/config-problems.js';
import { DEFAULT_TOOL_LIMITS, resolveToolLimits, TOOL_LIMIT_RANGES } from '../mcp/tools/tool-limits.js';
import { checkTopK, MAX_TOP_K } from '../search/top-k.js';

describe('config', () => {
  describe('loadConfig', () => {
    it('defaults to a loopback server on port 8080 serving ./corpus', () => {
      expect(loadConfig({})).toMatchObject({
        corpusDir: './corpus',
        host: '127.0.0.1',
        port: 8080,
        publicUrl: 'http://127.0.0.1:8080',
        maxSessions: 1000,
        sessionIdleTtlSeconds: 1800,
        logLevel: 'info',
        logQueries: false,
      });
    });

    it('derives PUBLIC_URL from HOST and PORT, bracketing IPv6, and strips a trailing slash from a given one', () => {
      expect(loadConfig({ HOST: '::1', PORT: '9000' }).publicUrl).toBe('http://[::1]:9000');
      expect(loadConfig({ PUBLIC_URL: 'https://docs.example.com/' }).publicUrl).toBe('https://docs.example.com');
    });

    it('reads numbers, booleans and levels', () => {
      expect(
        loadConfig({ PORT: '0', MAX_SESSIONS: '5', SESSION_IDLE_TTL: '60', CHUNK_WORDS: '200', CHUNK_OVERLAP_WORDS: '50', BM25_K1: '0.9', BM25_B: '0.4', LOG_LEVEL: 'DEBUG', LOG_QUERIES: 'true' }),
      ).toMatchObject({ port: 0, maxSessions: 5, sessionIdleTtlSeconds: 60, chunkWords: 200, chunkOverlapWords: 50, bm25K1: 0.9, bm25B: 0.4, logLevel: 'debug', logQueries: true });
    });

    it('treats blank variables as unset', () => {
      expect(loadConfig({ PORT: '', HOST: '  ' })).toMatchObject({ port: 8080, host: '127.0.0.1' });
    });

    it('lists every bad value in one ConfigError', () => {
      let error: unknown;
      try {
        loadConfig({ PORT: '70000', MAX_SESSIONS: '1.5', BM25_B: '2', PUBLIC_URL: 'ftp://x', LOG_QUERIES: 'maybe', SESSION_IDLE_TTL: 'soon' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const { problems, code } = error as ConfigError;
      expect(code).toBe('invalid_config');
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^PORT="70000": must be at most 65535/),
          expect.stringMatching(/^MAX_SESSIONS="1.5": must be a whole number/),
          expect.stringMatching(/^BM25_B="2": must be at most 1/),
          expect.stringMatching(/^PUBLIC_URL="ftp:\/\/x": must be an absolute http/),
          expect.stringMatching(/^LOG_QUERIES="maybe": must be true or false/),
          expect.stringMatching(/^SESSION_IDLE_TTL="soon": must be a number/),
        ]),
      );
    });

    it('runs local models with EMBEDDINGS_PROVIDER=local and RERANK_PROVIDER=local, their defaults and their contradictions', () => {
      const local = loadConfig({ EMBEDDINGS_PROVIDER: 'local', RERANK_PROVIDER: 'local', MODELS_DIR: '/srv/models', VECTOR_SCAN_THREADS: '2' }, { cpus: 8 }).semantic;
      expect(local).toMatchObject({ embeddings: undefined, rerank: undefined, scanThreads: 2 });
      expect(local.local).toEqual({ embeddingsModel: 'Xenova/bge-small-en-v1.5', rerankModel: 'Xenova/ms-marco-MiniLM-L-6-v2', modelsDir: '/srv/models', download: true, hubUrl: 'https://huggingface.co', threads: 4 });
      expect(loadConfig({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: 'BAAI/bge-base', MODELS_DOWNLOAD: 'false', MODEL_THREADS: '3' }, { cpus: 2 }).semantic.local).toMatchObject({ embeddingsModel: 'BAAI/bge-base', rerankModel: undefined, download: false, threads: 3 });
      expect(loadConfig({ EMBEDDINGS_PROVIDER: 'local' }, { cpus: 2 }).semantic.local?.threads).toBe(1);
      expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_MODEL: 'm' })).toThrow(/EMBEDDINGS_PROVIDER="local": contradicts EMBEDDINGS_URL/);
      expect(() => loadConfig({ RERANK_MODEL: 'x/y' })).toThrow(/RERANK_MODEL="x\/y": has no effect without RERANK_URL or RERANK_PROVIDER=local/);
      expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'http' })).toThrow(/EMBEDDINGS_PROVIDER="http": needs EMBEDDINGS_URL/);
      expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'onnx' })).toThrow(/EMBEDDINGS_PROVIDER="onnx": must be one of http, local/);
    });

    it('leaves semantic search off without EMBEDDINGS_URL and RERANK_URL', () => {
      expect(loadConfig({}).semantic).toMatchObject({ embeddings: undefined, rerank: undefined });
    });

    it('lets a vector scan use the CPUs this process may use, at most 4, unless VECTOR_SCAN_THREADS says otherwise', () => {
      expect(loadConfig({}, { cpus: availableCpus() }).semantic.scanThreads).toBe(Math.min(availableCpus(), 4));
      expect(loadConfig({}, { cpus: 2 }).semantic.scanThreads).toBe(2);
      expect(loadConfig({}, { cpus: 64 }).semantic.scanThreads).toBe(4);
      expect(loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_MODEL: 'm', VECTOR_SCAN_THREADS: '1' }).semantic.scanThreads).toBe(1);
      expect(loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_MODEL: 'm', VECTOR_SCAN_THREADS: '8' }).semantic.scanThreads).toBe(8);
      expect(() => loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_MODEL: 'm', VECTOR_SCAN_THREADS: '0' })).toThrow(/VECTOR_SCAN_THREADS="0": must be at least 1/);
      expect(() => loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_MODEL: 'm', VECTOR_SCAN_THREADS: '17' })).toThrow(/VECTOR_SCAN_THREADS="17": must be at most 16/);
      expect(() => loadConfig({ VECTOR_SCAN_THREADS: '2' })).toThrow(/VECTOR_SCAN_THREADS="2": has no effect without EMBEDDINGS_URL/);
    });

    it('reads the embeddings and rerank endpoints', () => {
      const { semantic } = loadConfig({
        EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1',
        EMBEDDINGS_MODEL: 'nomic-embed-text',
        EMBEDDINGS_API_KEY: 'secret-embed',
        EMBEDDINGS_DIMENSIONS: '256',
        RERANK_URL: 'https://api.example.com/v2',
        RERANK_API_KEY: 'secret-rerank',
      }, { cpus: availableCpus() });
      expect(semantic).toEqual({
        embeddings: { url: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', apiKey: 'secret-embed', dimensions: 256 },
        rerank: { url: 'https://api.example.com/v2', model: undefined, apiKey: 'secret-rerank' },
        scanThreads: Math.min(availableCpus(), 4),
        local: expect.objectContaining({ embeddingsModel: undefined, rerankModel: undefined }),
      });
    });

    it('lists every embeddings and rerank problem in one error, and never quotes an API key', () => {
      expect(problemsOf({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_DIMENSIONS: '0', RERANK_MODEL: 'r', RERANK_API_KEY: 'secret-rerank-key' })).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^EMBEDDINGS_DIMENSIONS="0": must be at least 1/),
        ]),
      );
      const env = { EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', RERANK_MODEL: 'r', RERANK_API_KEY: 'secret-rerank-key', EMBEDDINGS_API_KEY: 'x' };
      expect(problemsOf(env)).toEqual([
        expect.stringMatching(/^EMBEDDINGS_MODEL="": is required with EMBEDDINGS_URL/),
        expect.stringMatching(/^RERANK_MODEL="r": has no effect without RERANK_URL/),
        'RERANK_API_KEY (value hidden): has no effect without RERANK_URL',
      ]);
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret-rerank-key') }));
      expect(() => loadConfig({ EMBEDDINGS_API_KEY: 'secret-embed-key' })).toThrow(/^(?![\s\S]*secret-embed-key)[\s\S]*EMBEDDINGS_API_KEY \(value hidden\): has no effect without EMBEDDINGS_URL/);
    });

    it('refuses a provider URL that carries a user name, password or query string, and never quotes them', () => {
      const withPassword = problemsOf({ EMBEDDINGS_URL: 'https://alice:S3CRET-PW@api.example.com/v1', EMBEDDINGS_MODEL: 'm' });
      expect(withPassword).toEqual([expect.stringMatching(/^EMBEDDINGS_URL="https:\/\/…@api\.example\.com\/v1": must not carry a user name or password; put the key in/)]);
      const withQuery = problemsOf({ RERANK_URL: 'https://rerank.example.com/v1?key=QS-SECRET' });
      expect(withQuery).toEqual([expect.stringMatching(/^RERANK_URL="https:\/\/rerank\.example\.com\/v1\?…": must be a base URL without a query string/)]);
      const wrongScheme = problemsOf({ EMBEDDINGS_URL: 'ftp://alice:S3CRET-PW@files.example.com/v1', EMBEDDINGS_MODEL: 'm' });
      expect(wrongScheme).toContainEqual(expect.stringMatching(/^EMBEDDINGS_URL="ftp:\/\/…@files\.example\.com\/v1": must be an absolute http/));
      expect([...withPassword, ...withQuery, ...wrongScheme].join('\n')).not.toMatch(/S3CRET-PW|QS-SECRET|alice/);
      expect(problemsOf({ EMBEDDINGS_URL: 'https://api.example.com/v1', EMBEDDINGS_MODEL: 'm' })).toEqual([]);
    });

    it('refuses an http provider URL on a host that is not loopback while its API key is set, naming the variables and never the key, unless ALLOW_HTTP_PROVIDER_URL=true', () => {
      const keyed = {
        EMBEDDINGS_URL: 'http://embed.example.com/v1',
        EMBEDDINGS_MODEL: 'm',
        EMBEDDINGS_API_KEY: 'sk-EMBED-SECRET',
        RERANK_URL: 'http://10.0.0.7:8080',
        RERANK_API_KEY: 'rk-RERANK-SECRET',
      };
      const problems = problemsOf(keyed);
      expect(problems).toEqual([
        expect.stringMatching(/^EMBEDDINGS_URL="http:\/\/embed\.example\.com\/v1": is http on a host that is not loopback while EMBEDDINGS_API_KEY is set.*ALLOW_HTTP_PROVIDER_URL=true/),
        expect.stringMatching(/^RERANK_URL="http:\/\/10\.0\.0\.7:8080": is http on a host that is not loopback while RERANK_API_KEY is set.*ALLOW_HTTP_PROVIDER_URL=true/),
      ]);
      expect(problems.join('\n')).not.toMatch(/EMBED-SECRET|RERANK-SECRET/);
      expect(problemsOf({ ...keyed, ALLOW_HTTP_PROVIDER_URL: 'true' })).toEqual([]);
      // ALLOW_HTTP_PUBLIC_URL vouches for the clients' link to this server, not for this server's link to a provider.
      expect(problemsOf({ ...keyed, ALLOW_HTTP_PUBLIC_URL: 'true' })).toHaveLength(2);
      // Without a key there is nothing to leak; on loopback (or https) nothing leaves the machine in the clear.
      expect(problemsOf({ EMBEDDINGS_URL: 'http://embed.example.com/v1', EMBEDDINGS_MODEL: 'm', RERANK_URL: 'http://10.0.0.7:8080' })).toEqual([]);
      for (const url of ['http://localhost:11434/v1', 'http://127.0.0.1:8080/v1', 'http://[::1]:8080/v1', 'https://embed.example.com/v1']) {
        expect(problemsOf({ EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: 'm', EMBEDDINGS_API_KEY: 'sk-EMBED-SECRET' })).toEqual([]);
      }
    });

    it('refuses a chunk overlap above half the chunk length', () => {
      expect(() => loadConfig({ CHUNK_WORDS: '100', CHUNK_OVERLAP_WORDS: '60' })).toThrow(/CHUNK_OVERLAP_WORDS="60": must be at most half of CHUNK_WORDS \(100\)/);
      expect(() => loadConfig({ CHUNK_OVERLAP_WORDS: '100' })).toThrow(/half of CHUNK_WORDS \(180\)/);
    });

    it.each([
      ['MAX_QUERY_CHARS', 'maxQueryChars'],
      ['MAX_TOP_K', 'maxTopK'],
      ['MAX_DOCUMENT_CHARS', 'maxDocumentChars'],
      ['MAX_PAGE_SIZE', 'maxPageSize'],
    ] as const)('accepts %s exactly where the tools accept %s, and defaults to theirs', (variable, key) => {
      const [min, max] = TOOL_LIMIT_RANGES[key];
      expect(loadConfig({}).toolLimits[key]).toBe(DEFAULT_TOOL_LIMITS[key]);
      for (const value of [min, max]) {
        const limits = loadConfig({ [variable]: String(value) }).toolLimits;
        expect(limits[key]).toBe(value);
        expect(resolveToolLimits(limits)[key]).toBe(value);
      }
      for (const value of [min - 1, max + 1]) {
        expect(() => loadConfig({ [variable]: String(value) })).toThrow(new RegExp(`${variable}="${value}": must be at (least ${min}|most ${max})`));
        expect(() => resolveToolLimits({ [key]: value })).toThrow(RangeError);
      }
    });

    it("lets MAX_TOP_K reach the search engine's own ceiling and no further", () => {
      expect(TOOL_LIMIT_RANGES.maxTopK[1]).toBe(MAX_TOP_K);
      expect(() => checkTopK(loadConfig({ MAX_TOP_K: String(MAX_TOP_K) }).toolLimits.maxTopK)).not.toThrow();
    });

    describe('sessions and the shared store', () => {
      it('keeps sessions on with a per-process secret, a 24 h max age and no database by default', () => {
        expect(loadConfig({})).toMatchObject({ sessions: { enabled: true, secret: undefined, maxAgeSeconds: 86_400 }, databaseUrl: undefined });
      });

      it('reads MCP_SESSIONS, SESSION_SECRET, SESSION_MAX_AGE and DATABASE_URL', () => {
        const secret = 's'.repeat(32);
        expect(loadConfig({ MCP_SESSIONS: 'OFF', SESSION_SECRET: secret, SESSION_MAX_AGE: '3600', DATABASE_URL: 'postgresql://u:p@db:5432/corpus' })).toMatchObject({
          sessions: { enabled: false, secret, maxAgeSeconds: 3600 },
          databaseUrl: 'postgresql://u:p@db:5432/corpus',
        });
      });

      it('refuses a short SESSION_SECRET, a bad MCP_SESSIONS and a non-postgres DATABASE_URL without quoting the secrets', () => {
        let error: unknown;
        try {
          loadConfig({ SESSION_SECRET: 'short-secret-value', MCP_SESSIONS: 'maybe', SESSION_MAX_AGE: '10', DATABASE_URL: 'mysql://u:hunter2@db/x' });
        } catch (e) {
          error = e;
        }
        const { problems } = error as ConfigError;
        expect(problems).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^SESSION_SECRET: is 18 characters, must be at least 32/),
            expect.stringMatching(/^MCP_SESSIONS="maybe": must be on or off/),
            expect.stringMatching(/^SESSION_MAX_AGE="10": must be at least 60/),
            expect.stringMatching(/^DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/),
          ]),
        );
        expect(problems.join('\n')).not.toMatch(/short-secret-value|hunter2/);
      });
    });
  });
});
