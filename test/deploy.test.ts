// The deployment files agree with each other and with the code: the Dockerfile builds with dev
// dependencies and runs with production ones as a non-root user; fly.toml parses and points its
// port, health check and metrics at what the image serves. (No Docker engine here: running the
// image's exact command with the production dependency set is scripts/check-deploy.ts, run by CI.)
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { loadConfig, VECTOR_SAVE_WAIT_MS } from '../src/config.js';
import { cmdOf, envOf, healthcheckOf, instructions, parseDockerfile } from '../scripts/lib/dockerfile.js';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const dockerfile = parseDockerfile(read('Dockerfile'));
const runtime = dockerfile.runtime;
const runtimeEnv = envOf(runtime);
const fly = parseToml(read('fly.toml')) as Record<string, unknown> & {
  http_service: Record<string, unknown> & {
    checks: Array<Record<string, unknown>>;
    concurrency: { type: string; soft_limit: number; hard_limit: number };
  };
  env: Record<string, string>;
  metrics: { port: number; path: string };
  build: { dockerfile: string };
  kill_timeout: string;
};

const runArgs = (stage: (typeof dockerfile.stages)[number]) => instructions(stage, 'RUN').map((i) => i.args);
const seconds = (duration: string) => {
  const match = /^(\d+)(s|m)$/.exec(duration);
  if (!match) throw new Error(`unreadable duration ${duration}`);
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
};

describe('Dockerfile', () => {
  it('builds in a stage with dev dependencies and runs from a later one', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    const build = dockerfile.stages.find((s) => s.name === 'build')!;
    expect(runArgs(build)).toEqual(expect.arrayContaining(['npm ci', 'npm run build']));
    expect(instructions(runtime, 'COPY').map((i) => i.args)).toContain('--from=build /app/dist ./dist');
  });

  it('installs only production dependencies, from the lockfile, in the runtime stage', () => {
    expect(runArgs(runtime).some((r) => /^npm ci --omit=dev\b/.test(r))).toBe(true);
    expect(runArgs(runtime).some((r) => /npm (i|install)\b/.test(r))).toBe(false);
  });

  it('builds and runs on Node 24, a supported LTS, in every stage', () => {
    for (const stage of dockerfile.stages) expect(stage.image).toMatch(/^node:24-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
  });

  it('documents how to run it locked down: read-only, no capabilities, no privilege change', () => {
    for (const text of [read('Dockerfile'), read('README.md')]) {
      expect(text).toContain('--read-only --cap-drop ALL --security-opt no-new-privileges');
    }
  });

  it('runs as the unprivileged node user', () => {
    const user = instructions(runtime, 'USER').at(-1);
    expect(user?.args).toBe('node');
    // nothing after USER switches back to root
    const last = runtime.instructions.findLastIndex((i) => i.keyword === 'USER');
    expect(runtime.instructions.slice(last).filter((i) => i.keyword === 'RUN')).toEqual([]);
  });

  it('binds all interfaces and serves the bundled corpus from /app/corpus', () => {
    expect(runtimeEnv).toMatchObject({ HOST: '0.0.0.0', CORPUS_DIR: '/app/corpus' });
    expect(instructions(runtime, 'WORKDIR').at(-1)?.args).toBe('/app');
    expect(instructions(runtime, 'COPY').map((i) => i.args)).toContain('corpus ./corpus');
    expect(existsSync(new URL('corpus/', root))).toBe(true);
  });

  it('exposes the port it listens on', () => {
    expect(instructions(runtime, 'EXPOSE').map((i) => i.args)).toEqual([runtimeEnv.PORT]);
  });

  it('starts the compiled entry point with node directly, so SIGTERM reaches the server', () => {
    const cmd = cmdOf(runtime);
    expect(cmd).toEqual(['node', pkg.main]);
    expect(pkg.main).toBe('dist/src/main.js'); // tsc: rootDir "." and outDir "dist" put src/main.ts there
    expect(existsSync(new URL('src/main.ts', root))).toBe(true);
    expect(instructions(runtime, 'STOPSIGNAL').at(-1)?.args ?? 'SIGTERM').toBe('SIGTERM');
  });

  it('checks health with node itself against /healthz on the configured port', () => {
    const { command, options } = healthcheckOf(runtime);
    expect(command[0]).toBe('node');
    expect(command.at(-1)).toContain('/healthz');
    expect(command.at(-1)).toContain('process.env.PORT||8080');
    expect(Object.keys(options)).toEqual(expect.arrayContaining(['interval', 'timeout', 'start-period', 'retries']));
  });

  it('sends the sources and lockfile to the build but keeps secrets and local artefacts out', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['.env', 'node_modules', 'dist', '.git']));
    const copied = dockerfile.stages
      .flatMap((s) => instructions(s, 'COPY'))
      .filter((i) => !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(copied.length).toBeGreaterThan(0);
    for (const path of copied) {
      expect(ignored, `${path} is copied by the Dockerfile`).not.toContain(path);
      expect(existsSync(new URL(path, root)), `${path} exists`).toBe(true);
    }
  });
});

describe('fly.toml', () => {
  it('builds the Dockerfile', () => {
    expect(fly.build.dockerfile).toBe('Dockerfile');
  });

  it('routes to the port the image exposes, HTTPS only', () => {
    expect(fly.http_service.internal_port).toBe(Number(runtimeEnv.PORT));
    expect(fly.env.PORT).toBe(runtimeEnv.PORT);
    expect(fly.env.HOST).toBe('0.0.0.0');
    expect(fly.http_service.force_https).toBe(true);
  });

  it('checks readiness on /readyz', () => {
    expect(fly.http_service.checks.map((c) => [c.method, c.path])).toEqual([['GET', '/readyz']]);
  });

  it('may stop an idle machine (sessions survive it) while keeping one running', () => {
    expect(fly.http_service.auto_stop_machines).toBe('stop');
    expect(fly.http_service.auto_start_machines).toBe(true);
    expect(fly.http_service.min_machines_running).toBeGreaterThanOrEqual(1);
  });

  it('names the secrets two machines share, and keeps no volume a second machine could not mount', () => {
    const text = read('fly.toml');
    for (const secret of ['SESSION_SECRET', 'DATABASE_URL', 'AUTH_SECRET']) expect(text).toContain(`fly secrets set ${secret}=`);
    expect(fly.mounts).toBeUndefined();
    expect(fly.env.AUTH_DATA_DIR).toBeUndefined();
  });

  it('gives the drain time to finish before the kill', () => {
    expect(fly.kill_signal).toBe('SIGTERM');
    expect(seconds(fly.kill_timeout)).toBeGreaterThan((Number(fly.env.DRAIN_TIMEOUT_MS) + VECTOR_SAVE_WAIT_MS) / 1000);
  });

  it('scrapes the Prometheus route on METRICS_PORT, a port of its own that is not the public service port', () => {
    expect(fly.metrics).toEqual({ port: Number(fly.env.METRICS_PORT), path: '/metrics' });
    expect(fly.metrics.port).not.toBe(fly.http_service.internal_port);
    expect(loadConfig({ ...fly.env, AUTH_TOKENS: 'x'.repeat(32) }).metricsPort).toBe(fly.metrics.port);
  });

  it("sizes the proxy's concurrency against the server's caps", () => {
    const config = loadConfig({ ...fly.env, AUTH_TOKENS: 'x'.repeat(32) });
    const { type, soft_limit: soft, hard_limit: hard } = fly.http_service.concurrency;
    expect(type).toBe('requests'); // an SSE stream is one request for its whole life
    expect(hard).toBeGreaterThanOrEqual(config.maxSessions); // every session may hold its stream
    expect(hard).toBeLessThan(config.maxConnections); // the proxy holds back before the process refuses connections
    // One principal at its caps (session and listen streams + requests in progress) fills at most a tenth of it.
    expect((config.maxSessionsPerPrincipal + config.maxListenStreamsPerPrincipal + config.maxConcurrentPerPrincipal) * 10).toBeLessThanOrEqual(hard);
    expect(soft).toBeLessThan(hard);
  });

  it('keeps secrets out of [env]', () => {
    for (const name of Object.keys(fly.env)) expect(name).not.toMatch(/TOKEN|SECRET|KEY|PASSWORD/);
  });
});
