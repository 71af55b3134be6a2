// `npm start` runs this instead of compiling on every start: it builds (scripts/build.mjs, as `npm run
// build` does) only when a source or build setting is newer than the last compile, or dist/ is missing. A check
// costs a directory walk (0.16 s with node's own start, measured on a 2-core machine) instead of
// the compile's 20 s or so.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
const inputs = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'scripts/build-view.mjs'].map((f) => join(root, f));
for (const entry of readdirSync(join(root, 'src'), { recursive: true })) inputs.push(join(root, 'src', String(entry)));

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
const newest = Math.max(...inputs.filter((f) => existsSync(f)).map((f) => statSync(f).mtimeMs));
if (built < newest || !existsSync(join(root, 'dist', 'src', 'main.js'))) {
  // A first compile takes about 20 s on a 2-core machine (22 s measured at load 7): say so, on stderr, so a silent terminal is
  // not taken for a hang and stdout stays the server's JSON log.
  const reason = built < 0 ? 'no previous build' : 'sources changed since the last build';
  process.stderr.write(`corpus-mcp: compiling TypeScript to dist/ (${reason}); this takes about 20 s on a small machine, once...\n`);
  const started = Date.now();
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.stderr.write(`corpus-mcp: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
