// Folder boundaries from docs/ARCHITECTURE.md, enforced here rather than by hope. Data flows one way:
// corpus → search → mcp → http; auth is framework-free and http adapts it; only mcp/ touches an MCP SDK.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const hono = { group: ['hono', 'hono/*', '@hono/*'], message: 'Only src/http/ may import hono.' };
const folder = (name, why) => ({
  group: [`../${name}`, `../${name}/*`, `../../${name}`, `../../${name}/*`],
  message: why,
});
const restrict = (...patterns) => ['error', { patterns }];
/** A part beside the server (`dir` names it, plural): it knows nothing of the corpus, MCP, HTTP or auth, and gets typed options. */
const besideTheServer = (dir) => [
  folder('corpus', `${dir}/ know nothing of the corpus.`),
  folder('mcp', `${dir}/ know nothing of MCP.`),
  folder('http', `${dir}/ know nothing of the HTTP server.`),
  folder('auth', `${dir}/ know nothing of auth.`),
  { group: ['../config', '../config.js', '../config/*'], message: `${dir}/ get typed options, never config.` },
  { group: ['@modelcontextprotocol/*'], message: `${dir}/ know nothing of MCP.` },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Use named exports, not export *.' },
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    // Entry points print: the server, the auth tool, the snapshot builder, the launch options, the model fetcher.
    ignores: ['src/main.ts', 'src/auth-tool.ts', 'src/index-cli.ts', 'src/node-args.ts', 'src/models-cli.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/config/**/*.ts', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/config/ reads the environment.' },
      ],
    },
  },
  {
    // mcp/ owns the protocol: every other folder reaches an MCP SDK through it, so an SDK upgrade or
    // a third era touches one folder. Types cross the boundary freely (AuthInfo, Tool). A rule of its
    // own (the typescript-eslint twin of no-restricted-imports), so the folders' import rules below
    // do not replace it.
    files: ['src/**/*.ts'],
    ignores: ['src/mcp/**', 'src/view/**', 'src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@modelcontextprotocol/*'],
              allowTypeImports: true,
              message: 'Only src/mcp/ imports an MCP SDK by value; import what you need from src/mcp/ (types are fine).',
            },
          ],
        },
      ],
    },
  },
  {
    // config/ is a leaf the other folders read typed values from: it knows nothing of the server it
    // configures, so a constant both share lives here (or in a neutral module), never in http/ or mcp/.
    files: ['src/config/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('http', 'config/ knows nothing of HTTP: http/ imports its constants from config/.'),
        folder('mcp', 'config/ knows nothing of MCP: mcp/ imports its limits from config/.'),
        { group: ['@modelcontextprotocol/*'], message: 'config/ knows nothing of MCP.' },
      ),
    },
  },
  {
    files: ['src/corpus/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('search', 'corpus/ turns files into documents and knows nothing of search.'),
        folder('index-service', 'corpus/ knows nothing of the index lifecycle.'),
        folder('mcp', 'corpus/ knows nothing of MCP.'),
        folder('http', 'corpus/ knows nothing of HTTP.'),
        folder('auth', 'corpus/ knows nothing of auth.'),
        { group: ['@modelcontextprotocol/*'], message: 'corpus/ knows nothing of MCP.' },
      ),
    },
  },
  {
    files: ['src/search/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        // The contract module (corpus/document.ts: types, the source ordering, page lookup) is pure
        // and shared; everything else of corpus/ only as types.
        {
          group: ['../corpus/*', '!../corpus/document.js', '../../corpus/*', '!../../corpus/document.js'],
          message: 'search/ is pure: it may use corpus types and corpus/document.ts, never its I/O.',
          allowTypeImports: true,
        },
        folder('mcp', 'search/ knows nothing of MCP.'),
        folder('index-service', 'search/ is pure: snapshots are bytes here, files in index-service/.'),
        folder('http', 'search/ knows nothing of HTTP.'),
        folder('auth', 'search/ knows nothing of auth.'),
        { group: ['../config', '../config.js', '../config/*'], message: 'search/ gets typed options, never config.' },
        { group: ['node:fs', 'node:fs/*', 'fs', 'node:http', 'node:net', '@modelcontextprotocol/*'], message: 'search/ does no I/O.' },
      ),
    },
  },
  {
    // Specifications of the chunker and the index are written in Markdown, read by the real extractor.
    files: ['src/search/**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['../corpus/*', '!../corpus/document.js', '!../corpus/extract'], message: 'search tests may use the extractors only.' },
      ),
    },
  },
  {
    files: ['src/index-service/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('mcp', 'index-service/ hands indexes to mcp/ through an interface and never imports it.'),
        folder('http', 'index-service/ knows nothing of HTTP.'),
        folder('auth', 'index-service/ knows nothing of auth.'),
        { group: ['../config', '../config.js', '../config/*'], message: 'index-service/ gets typed options, never config.' },
        { group: ['@modelcontextprotocol/*'], message: 'index-service/ knows nothing of MCP.' },
      ),
    },
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('http', 'mcp/ knows nothing of HTTP routing: it is mounted as one fetch-style handler.'),
        folder('index-service', 'mcp/ reads the index through its holder, never the service that builds it.'),
        { group: ['node:fs', 'node:fs/*', 'fs'], message: 'mcp/ serves from the index, never from disk.' },
      ),
    },
  },
  {
    files: ['src/providers/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('search', 'providers/ are HTTP clients only: ranking lives in search/.'),
        ...besideTheServer('providers'),
      ),
    },
  },
  {
    // A local model runtime beside providers/: the semantic service asks it for vectors as it asks an
    // endpoint, and it knows nothing of what they are for.
    files: ['src/local-models/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('search', 'local-models/ turn texts into vectors and scores: ranking lives in search/.'),
        folder('semantic', 'local-models/ know nothing of the semantic service that calls them.'),
        ...besideTheServer('local-models'),
      ),
    },
  },
  {
    files: ['src/semantic/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('mcp', 'semantic/ knows nothing of MCP: the tools call it.'),
        folder('http', 'semantic/ knows nothing of the HTTP server.'),
        folder('auth', 'semantic/ knows nothing of auth.'),
        { ...folder('corpus', 'semantic/ works on the index, not on files.'), allowTypeImports: true },
        { group: ['@modelcontextprotocol/*'], message: 'semantic/ knows nothing of MCP.' },
      ),
    },
  },
  {
    files: ['src/git-source/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('mcp', 'git-source/ fills CORPUS_DIR; it knows nothing of MCP.'),
        folder('http', 'git-source/ knows nothing of HTTP: http/ mounts its webhook.'),
        folder('search', 'git-source/ knows nothing of search.'),
        folder('index-service', 'git-source/ asks for reloads through the function it is given.'),
        { group: ['../config', '../config.js', '../config/*'], message: 'git-source/ gets typed options, never config.' },
        { group: ['@modelcontextprotocol/*'], message: 'git-source/ knows nothing of MCP.' },
      ),
    },
  },
  {
    files: ['src/auth/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('http', 'auth/ is framework-free.'),
        folder('mcp', 'auth/ knows nothing of MCP servers.'),
        folder('search', 'auth/ knows nothing of search.'),
        folder('corpus', 'auth/ knows nothing of the corpus.'),
      ),
    },
  },
  {
    files: ['src/store/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        hono,
        folder('http', 'store/ keeps records; it knows nothing of HTTP.'),
        folder('auth', 'store/ keeps records; what they mean is auth/server/\'s business.'),
        folder('mcp', 'store/ knows nothing of MCP.'),
        folder('search', 'store/ knows nothing of search.'),
        folder('corpus', 'store/ knows nothing of the corpus.'),
        { group: ['../config', '../config.js', '../config/*'], message: 'store/ gets typed options, never config.' },
      ),
    },
  },
  {
    // view/ is the MCP Apps view, a browser bundle (scripts/build-view.mjs): it talks to its host
    // through the Apps SDK's App and nothing else, so it imports no server folder, no Node module and
    // no other MCP package.
    files: ['src/view/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': restrict(
        hono,
        { group: ['../*', '!./*'], message: 'view/ is a browser bundle: it imports no server folder (it reads tool results as data).' },
        { group: ['node:*'], message: 'view/ runs in a browser.' },
        { group: ['@modelcontextprotocol/*', '!@modelcontextprotocol/ext-apps'], message: 'view/ talks to its host through @modelcontextprotocol/ext-apps only.' },
      ),
    },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
