// Tool folders with their own package.json and lockfile (scripts/conformance-modern/, bench/) stay out
// of the main install and are installed from their lockfile the first time a script needs them.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs `npm ci` in `dir` unless every direct dependency is installed there at its locked version.
 * Lifecycle scripts stay off (`--ignore-scripts`): the packages used ship prebuilt binaries or wasm.
 * `what` names the folder in the error thrown when the install fails.
 */
export async function installLocked(dir: string, what: string): Promise<void> {
  if (isInstalled(dir)) return;
  const { code, output } = await runQuietly('npm', ['ci', '--prefix', dir, '--ignore-scripts', '--no-audit', '--no-fund']);
  if (code !== 0) throw new Error(`installing ${what} with npm ci --prefix ${dir} failed:\n${output}`);
}

interface Lockfile {
  packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
}

function isInstalled(dir: string): boolean {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as Lockfile;
  return Object.keys(lock.packages['']?.dependencies ?? {}).every((name) => {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (!existsSync(manifest)) return false;
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
    return version === lock.packages[`node_modules/${name}`]?.version;
  });
}

function runQuietly(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => done({ code, output }));
  });
}
