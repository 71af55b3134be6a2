// `npm run build` (and `npm start`'s build-if-stale.mjs): compiles src/ to dist/ with tsc, then bundles
// the server's entry, dist/src/main.js, with the packages it loads into a few files, written over
// tsc's main.js. Node's ES module loader spends most of a start on the ~400 small files the server
// loads (600 ms of a 700 ms start on a 2-core machine, before any work); one bundle loads in less than
// half that (docs/BENCHMARKS.md, "Growth, step 10"). The other entry points (index-cli.js, the build
// child, the worker threads) stay as tsc wrote them, and so does everything the bundle copies: they
// load the same code from dist/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildLandingHostJs, buildViewHtml } from './build-view.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const srcOut = join(root, 'dist', 'src');
const entry = join(srcOut, 'main.js');
const BANNER = '// corpus-mcp: bundled by scripts/build.mjs';

/**
 * Packages the bundle leaves to node_modules, and why: each is loaded at run time as installed.
 * Every other package the server imports is bundled.
 */
const EXTERNAL = [
  'better-sqlite3', // a native addon
  'pg', // requires the optional pg-native when present
  'piscina', // starts its worker threads from its own files
  'pino', // starts transport threads from its own files
  'chokidar', // optional fsevents on macOS
  'oidc-provider', // sign-in's: loaded only when LOGIN_PROVIDER is set
  'openid-client',
  'arctic',
  'unpdf', // the extractors run in the build's workers, loading from node_modules
  'mammoth',
];

execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (readFileSync(entry, 'utf8').startsWith(BANNER)) throw new Error(`${entry} is already a bundle: tsc did not write it`);
for (const name of readdirSync(srcOut)) if (name.startsWith('main-chunk-')) rmSync(join(srcOut, name));

await build({
  entryPoints: [entry],
  bundle: true,
  splitting: true, // modules main.ts imports lazily (sign-in, the stores) stay out of the start
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: srcOut,
  allowOverwrite: true,
  chunkNames: 'main-chunk-[hash]',
  external: EXTERNAL,
  sourcemap: 'linked',
  // Our errors take their name from their class (coded-error.ts): a class renamed to avoid a clash
  // in the bundle would change the names in logs and answers.
  keepNames: true,
  logLevel: 'warning',
  banner: { js: `${BANNER}\nimport { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);` },
  plugins: [
    {
      // A module finds its worker and child entry files, and engine-version.ts its sources, from its
      // own URL: in the bundle that is the bundle's, so each module is given the URL it had in dist/.
      name: 'own-module-url',
      setup(bundler) {
        bundler.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, (args) => {
          let contents = readFileSync(args.path, 'utf8');
          // Only the URL is given back; the module's folder or file name would be the bundle's.
          const unsupported = /import\.meta\.(dirname|filename)\b|\b__(dirname|filename)\b/.exec(contents);
          if (unsupported) throw new Error(`${args.path} uses ${unsupported[0]}, which the bundle would change: derive it from import.meta.url`);
          const own = `./${relative(srcOut, args.path).split('\\').join('/')}`;
          contents = contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`);
          return { contents, loader: 'js', resolveDir: dirname(args.path) };
        });
      },
    },
  ],
});
if (!existsSync(entry)) throw new Error(`the bundle did not write ${entry}`);

// The MCP Apps view (src/view/), one self-contained HTML file that main.js reads and mcp/ serves.
const viewerHtml = await buildViewHtml();
mkdirSync(join(root, 'dist', 'view'), { recursive: true });
writeFileSync(join(root, 'dist', 'view', 'viewer.html'), viewerHtml);
// The landing page's host of the view, for a server without authentication.
writeFileSync(join(root, 'dist', 'view', 'landing-host.js'), await buildLandingHostJs());
