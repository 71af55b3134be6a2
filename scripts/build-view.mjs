// Builds the MCP Apps view (src/view/) into one self-contained HTML file: its script and stylesheet
// inlined, nothing loaded from any origin, so a host's default Content-Security-Policy holds. Called by
// scripts/build.mjs (written to dist/view/viewer.html) and by the tests, which serve it from sources.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const viewDir = join(root, 'src', 'view');

/**
 * zod (which the Apps SDK validates its messages with) registers every language's error messages;
 * the view never shows them, and they were two thirds of the file (264 of 403 KB). English stays.
 */
const dropZodLocales = {
  name: 'drop-zod-locales',
  setup(bundler) {
    bundler.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, (args) => (/[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'empty' } : undefined));
    bundler.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/** One script of src/view/ and what it imports, minified for the browser, in memory. */
function bundleForBrowser(entry, format) {
  return build({
    entryPoints: [join(viewDir, entry)],
    bundle: true,
    minify: true,
    format,
    platform: 'browser',
    target: 'es2022',
    write: false,
    legalComments: 'none',
    plugins: [dropZodLocales],
    logLevel: 'warning',
  });
}

/**
 * The landing page's own host (src/view/landing-host.ts) as one script, inlined into the page a
 * server without authentication serves at /.
 */
export async function buildLandingHostJs() {
  const result = await bundleForBrowser('landing-host.ts', 'iife');
  const js = result.outputFiles[0].text;
  if (/<\/script/i.test(js)) throw new Error('the landing host bundle contains a closing </script>: it cannot be inlined');
  return js;
}

/** The view as one HTML document (a string). */
export async function buildViewHtml() {
  const [script, style] = await Promise.all([
    bundleForBrowser('main.ts', 'esm'),
    build({ entryPoints: [join(viewDir, 'viewer.css')], bundle: true, minify: true, write: false, logLevel: 'warning' }),
  ]);
  const js = script.outputFiles[0].text;
  const css = style.outputFiles[0].text;
  // Inlined, a "</script" or "</style" inside them would end the element early.
  if (/<\/script/i.test(js) || /<\/style/i.test(css)) throw new Error('the view bundle contains a closing </script> or </style>: it cannot be inlined');
  const template = readFileSync(join(viewDir, 'index.html'), 'utf8');
  // Functions as replacements: a "$&" in the bundle must not be read as a replacement pattern.
  return template.replace('/*VIEW_CSS*/', () => css).replace('/*VIEW_JS*/', () => js);
}
