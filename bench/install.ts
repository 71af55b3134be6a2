// Run before each benchmark in this folder (see package.json): installs the packages the benchmarks
// compare against from bench/package-lock.json if they are missing or stale, then type-checks this
// folder against them, which the root `npm run typecheck` cannot do without them.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { installLocked } from '../scripts/lib/install-locked.js';

const benchDir = import.meta.dirname;
await installLocked(benchDir, 'bench/ (the packages the benchmarks compare against)');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const check = spawnSync(process.execPath, [tsc, '-p', benchDir, '--noEmit'], { stdio: 'inherit' });
process.exitCode = check.status ?? 1;
