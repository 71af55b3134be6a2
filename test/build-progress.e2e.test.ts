// Build progress on a real process (src/main.ts): while the boot's build runs, /readyz answers 503
// with the phase and its done/total, and /metrics has the corpus_mcp_index_build_progress gauge; while
// a reload runs, the previous index serves (200) and /readyz says a build is under way and how far it
// has got. The build process is held in its 'read' phase by a test hook (support/build-gate.ts) until
// the test lets it go, so nothing here depends on how fast the machine is.
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SAMPLE_SOURCES } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer } from './support/spawned-server.js';
import type { SpawnedServer } from './support/spawned-server.js';
import { eventually } from './support/eventually.js';

const WITHIN = { timeoutMs: 60_000, intervalMs: 25 };
const GATE_HOOK = new URL('./support/build-gate.ts', import.meta.url).href;

const dirs: string[] = [];
let gate: string | undefined;
afterEach(async () => {
  // A build process still held would outlive its server: let it go (it finds its server gone and exits).
  if (gate !== undefined) await release(gate).catch(() => {});
  gate = undefined;
  await cleanUpSpawnedServers();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Opens the gate for the build process waiting at it; fails (ENXIO) when none is waiting. */
async function release(fifo: string): Promise<void> {
  const handle = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  await handle.close();
}

async function readyz(server: SpawnedServer): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.base}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function buildPhase(server: SpawnedServer): Promise<string | undefined> {
  return ((await readyz(server)).body.build as { phase?: string } | undefined)?.phase;
}

async function metrics(server: SpawnedServer): Promise<string> {
  return (await fetch(`${server.base}/metrics`)).text();
}

async function startGated(): Promise<SpawnedServer> {
  const dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-build-progress-'));
  dirs.push(dir);
  gate = join(dir, 'gate');
  execFileSync('mkfifo', [gate]);
  return spawnServer({ BUILD_GATE_FIFO: gate }, { until: 'listening', nodeArgs: ['--import', GATE_HOOK] });
}

const building = { phase: 'read', done: 0, total: SAMPLE_SOURCES.length, unit: 'files', read: 0 };

describe('build progress', { timeout: 180_000 }, () => {
  it('/readyz reports the boot build’s phase and done/total with its 503, and /metrics the progress gauge', async () => {
    const server = await startGated();
    await eventually(async () => (await buildPhase(server)) === 'read', { ...WITHIN, what: '/readyz to report the read phase' });
    expect(await readyz(server)).toEqual({ status: 503, body: { status: 'starting', reason: 'the index is being built', build: building } });
    const exposition = await metrics(server);
    expect(exposition).toContain('# TYPE corpus_mcp_index_build_progress gauge');
    expect(exposition).toMatch(/^corpus_mcp_index_build_progress\{phase="read"\} 0$/m);

    await release(gate!);
    await eventually(async () => (await readyz(server)).status === 200, { ...WITHIN, what: '/readyz 200 once the build is done' });
    const ready = await readyz(server);
    expect(ready.body).toMatchObject({ status: 'ready', reloading: false, documents: SAMPLE_SOURCES.length });
    expect(ready.body).not.toHaveProperty('build');
    expect(await metrics(server)).not.toMatch(/^corpus_mcp_index_build_progress\{/m);
  });

  it('/readyz stays 200 during a reload, says a build is under way and how far it has got', async () => {
    const server = await startGated();
    await eventually(async () => (await buildPhase(server)) === 'read', { ...WITHIN, what: 'the boot build to wait at the gate' });
    await release(gate!);
    await eventually(async () => (await readyz(server)).status === 200, { ...WITHIN, what: 'the boot build to finish' });

    server.child.kill('SIGHUP');
    await eventually(async () => (await buildPhase(server)) === 'read', { ...WITHIN, what: 'the reload to wait at the gate' });
    const during = await readyz(server);
    expect(during.status).toBe(200);
    expect(during.body).toMatchObject({ status: 'ready', generation: 1, reloading: true, build: building });
    expect(await metrics(server)).toMatch(/^corpus_mcp_index_build_progress\{phase="read"\} 0$/m);

    await release(gate!);
    await eventually(async () => (await readyz(server)).body.generation === 2, { ...WITHIN, what: 'the reload to finish' });
    expect((await readyz(server)).body).toMatchObject({ status: 'ready', reloading: false, last_reload: { trigger: 'SIGHUP', outcome: 'ok' } });
    expect((await readyz(server)).body).not.toHaveProperty('build');
  });
});
