// The deployment files agree with each other and with the code: the Dockerfile builds with dev
// dependencies and runs with production ones as a non-root user; fly.toml, compose.yaml and
// render.yaml parse, point their port and health check at what the image serves, set only variables
// the config reads, and demand every secret rather than carry one. (No Docker engine here: running the
// image's exact command with the production dependency set is scripts/check-deploy.ts, run by CI.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import pkg from '../package.json' with { type: 'json' };
import { loadConfig } from '../src/config/load-config.js';
import { SERVER_DEFAULTS, VECTOR_SAVE_WAIT_MS } from '../src/config/server-defaults.js';
import { cmdOf, envOf, healthcheckOf, instructions, parseDockerfile } from '../scripts/lib/dockerfile.js';
import { dollarsComposeRejects, interpolate, references } from './support/compose-interpolation.js';
import { configVariables } from './support/config-variables.js';

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

  it('copies into the build stage, before it builds, every file `npm run build` runs', () => {
    const build = dockerfile.stages.find((s) => s.name === 'build')!;
    const buildAt = build.instructions.findIndex((i) => i.keyword === 'RUN' && i.args === 'npm run build');
    const copied = build.instructions.slice(0, buildAt).filter((i) => i.keyword === 'COPY').flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    const script = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.build!;
    const files = script.split(/\s+/).filter((word) => /\.(m?js|json)$/.test(word));
    expect(files).not.toEqual([]);
    for (const file of files) expect(copied.some((source) => file === source || file.startsWith(`${source.replace(/\/$/, '')}/`))).toBe(true);
  });

  it('installs only production dependencies, from the lockfile, in the runtime stage', () => {
    expect(runArgs(runtime).some((r) => /^npm ci --omit=dev\b/.test(r))).toBe(true);
    expect(runArgs(runtime).some((r) => /npm (i|install)\b/.test(r))).toBe(false);
  });

  describe('LOCAL_MODELS, the build argument that bakes local models in', () => {
    const build = dockerfile.stages.find((s) => s.name === 'build')!;
    const fetchAt = build.instructions.findIndex((i) => i.keyword === 'RUN' && i.args.includes('models-cli.js fetch'));
    const install = runArgs(runtime).find((r) => r.startsWith('npm ci --omit=dev'))!;
    const prune = runArgs(runtime).find((r) => r.includes('onnxruntime-node/bin'))!;

    it('is declared, empty by default, in the stage that fetches the models and in the runtime stage', () => {
      for (const stage of [build, runtime]) expect(instructions(stage, 'ARG').map((i) => i.args)).toContain('LOCAL_MODELS=""');
    });

    it('fetches the named models at build time with the compiled fetcher, after the build, into /app/models', () => {
      expect(fetchAt).toBeGreaterThan(build.instructions.findIndex((i) => i.keyword === 'RUN' && i.args === 'npm run build'));
      expect(build.instructions[fetchAt]!.args).toMatch(/if \[ -n "\$LOCAL_MODELS" \]; then MODELS_DIR=\/app\/models node dist\/src\/models-cli\.js fetch \$LOCAL_MODELS; fi/);
      expect(existsSync(new URL('src/models-cli.ts', root))).toBe(true);
      expect(instructions(runtime, 'COPY').map((i) => i.args)).toContain('--from=build /app/models ./models');
    });

    it('serves them from there and never downloads at boot', () => {
      expect(runtimeEnv).toMatchObject({ MODELS_DIR: '/app/models', MODELS_DOWNLOAD: 'false' });
      expect(loadConfig({ ...runtimeEnv, HOST: '127.0.0.1', EMBEDDINGS_PROVIDER: 'local' }).semantic.local).toMatchObject({ modelsDir: '/app/models', download: false });
    });

    it('installs the model runtime (an optional dependency) only with models to run', () => {
      expect(pkg.optionalDependencies).toHaveProperty('@huggingface/transformers');
      expect(pkg.dependencies).not.toHaveProperty('@huggingface/transformers');
      const args = (localModels: string) => spawnSync('sh', ['-c', `LOCAL_MODELS="${localModels}"; echo ${install.replace(/ && .*$/, '')}`], { encoding: 'utf8' }).stdout.trim();
      expect(args('')).toBe('npm ci --omit=dev --ignore-scripts --omit=optional');
      expect(args('Xenova/bge-small-en-v1.5')).toBe('npm ci --omit=dev --ignore-scripts');
    });

    it('keeps the runtime of its own platform only', () => {
      const app = mkdtempSync(join(tmpdir(), 'corpus-mcp-image-'));
      const binaries = ['darwin/arm64', 'linux/x64', 'linux/arm64', 'win32/x64', 'win32/arm64'];
      for (const platform of binaries) mkdirSync(join(app, 'node_modules/onnxruntime-node/bin/napi-v6', platform), { recursive: true });
      mkdirSync(join(app, 'node_modules/onnxruntime-web/dist'), { recursive: true });
      const ran = (localModels: string) => spawnSync('sh', ['-c', `LOCAL_MODELS="${localModels}"; ${prune}`], { cwd: app, encoding: 'utf8' });
      expect(ran('').status).toBe(0);
      expect(binaries.every((platform) => existsSync(join(app, 'node_modules/onnxruntime-node/bin/napi-v6', platform)))).toBe(true);
      expect(ran('Xenova/bge-small-en-v1.5').status).toBe(0);
      expect(binaries.filter((platform) => existsSync(join(app, 'node_modules/onnxruntime-node/bin/napi-v6', platform)))).toEqual([`linux/${process.arch}`]);
      expect(existsSync(join(app, 'node_modules/onnxruntime-web'))).toBe(false);
    });
  });

  it('builds and runs on Node 24, a supported LTS, in every stage', () => {
    for (const stage of dockerfile.stages) expect(stage.image).toMatch(/^node:24-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
  });

  it('documents how to run it locked down: read-only, no capabilities, no privilege change', () => {
    for (const text of [read('Dockerfile'), read('docs/DEPLOY.md')]) {
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

  it('bakes the snapshot readable by the node user and by no one else, and not writable by it', () => {
    // The index is written 0600 as root in the build stage: without this the node user could not
    // read it and every container would build its index at boot.
    const build = dockerfile.stages.find((s) => s.name === 'build')!;
    expect(runArgs(build).some((r) => /index-cli\.js --out \/app\/index\.snapshot && chmod 0640 \/app\/index\.snapshot$/.test(r))).toBe(true);
    expect(instructions(runtime, 'COPY').map((i) => i.args)).toContain('--from=build --chown=root:node /app/index.snapshot ./index.snapshot');
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
    // Docker's rule: the last line naming the path or a folder above it decides; `!` sends it after all.
    const sent = (path: string): boolean => {
      let verdict = true;
      for (const rule of ignored) {
        const pattern = rule.replace(/^!/, '').replace(/\/$/, '');
        if (path === pattern || path.startsWith(`${pattern}/`)) verdict = rule.startsWith('!');
      }
      return verdict;
    };
    for (const path of copied) {
      expect(sent(path), `${path} is copied by the Dockerfile, so .dockerignore must send it`).toBe(true);
      expect(existsSync(new URL(path, root)), `${path} exists`).toBe(true);
    }
  });
});

describe('fly.toml', () => {
  it('builds a Dockerfile that exists', () => {
    expect(existsSync(new URL(fly.build.dockerfile, root))).toBe(true);
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

/** A variable whose value is a credential: it must come from the operator or the platform, never the file. */
const isSecret = (name: string) => /SECRET|TOKEN|PASSWORD|_KEY$/.test(name) || name === 'DATABASE_URL';
const CONFIG_VARIABLES = configVariables();
const secretValue = () => randomBytes(32).toString('hex');

interface ComposeService {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  read_only?: boolean;
  tmpfs?: string[];
  cap_drop?: string[];
  security_opt?: string[];
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}
const composeFiles = ['compose.yaml', 'compose.sign-in.yaml', 'compose.git.yaml'] as const;
const composeText = Object.fromEntries(composeFiles.map((f) => [f, read(f)])) as Record<(typeof composeFiles)[number], string>;
const compose = parseYaml(composeText['compose.yaml']) as ComposeFile;
const signInCompose = parseYaml(composeText['compose.sign-in.yaml']) as ComposeFile;
const server = compose.services.server!;
const db = compose.services.db!;
const serverEnvironment = { ...server.environment, ...signInCompose.services.server!.environment };
/** What an operator's .env holds: every secret generated, the rest as .env.example suggests. */
const dotEnv = (overrides: Record<string, string> = {}) => ({
  AUTH_TOKENS: secretValue(),
  SESSION_SECRET: secretValue(),
  POSTGRES_PASSWORD: secretValue(),
  ...overrides,
});
const interpolated = (environment: Record<string, string>, vars: Record<string, string>) =>
  Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, interpolate(value, vars)]));

describe('compose.yaml', () => {
  it('builds the server from the Dockerfile and mounts the corpus read-only where the image serves it from', () => {
    expect(server.build).toBe('.');
    expect(server.volumes).toContain(`\${CORPUS_PATH:-./corpus}:${runtimeEnv.CORPUS_DIR}:ro`);
  });

  it('runs PostgreSQL on a named volume, with a healthcheck of its own', () => {
    expect(db.image).toMatch(/^postgres:\d+/);
    const [volume, path] = db.volumes![0]!.split(':');
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    expect(path).toBe('/var/lib/postgresql/data');
    expect(db.healthcheck?.test.slice(0, 2)).toEqual(['CMD', 'pg_isready']);
  });

  it('points DATABASE_URL at that database, with its user, password and name', () => {
    const vars = dotEnv();
    const url = new URL(interpolate(server.environment!.DATABASE_URL!, vars));
    const dbEnv = interpolated(db.environment!, vars);
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('db');
    expect([url.username, url.password, url.pathname]).toEqual([dbEnv.POSTGRES_USER, dbEnv.POSTGRES_PASSWORD, `/${dbEnv.POSTGRES_DB}`]);
  });

  it('starts the server once the database is healthy, and checks readiness with node (the image has no curl)', () => {
    expect(server.depends_on).toEqual({ db: { condition: 'service_healthy' } });
    const [form, command, ...args] = server.healthcheck!.test;
    expect([form, command]).toEqual(['CMD', healthcheckOf(runtime).command[0]]);
    expect(args.join(' ')).toContain('/readyz');
    expect(args.join(' ')).toContain('process.env.PORT||8080');
  });

  it('runs the server locked down: read-only root, a tmpfs for /tmp, no capabilities, no privilege change', () => {
    expect(server.read_only).toBe(true);
    expect(server.tmpfs).toContain('/tmp');
    expect(server.cap_drop).toEqual(['ALL']);
    expect(server.security_opt).toContain('no-new-privileges:true');
    // The one writable path besides /tmp is a volume, and the server keeps its index file there.
    expect(server.environment!.INDEX_FILE!.startsWith(`${runtimeEnv.AUTH_DATA_DIR}/`)).toBe(true);
    expect(server.volumes).toContain(`corpus-data:${runtimeEnv.AUTH_DATA_DIR}`);
  });

  it('gives the drain time to finish before the kill', () => {
    expect(seconds(server.stop_grace_period!)).toBeGreaterThan((SERVER_DEFAULTS.drainTimeoutMs + VECTOR_SAVE_WAIT_MS) / 1000);
  });

  it.each(composeFiles)('%s sets only variables the config reads', (file) => {
    const parsed = parseYaml(composeText[file]) as ComposeFile;
    for (const name of Object.keys(parsed.services.server!.environment ?? {})) expect(CONFIG_VARIABLES, name).toContain(name);
  });

  it.each(composeFiles)('%s demands every secret with ${VAR:?message} and carries none', (file) => {
    const parsed = parseYaml(composeText[file]) as ComposeFile;
    const environments = Object.values(parsed.services).map((s) => s.environment ?? {});
    for (const [name, value] of environments.flatMap((e) => Object.entries(e)).filter(([name]) => isSecret(name))) {
      const demanded = references(value).filter((r) => r.operator === '?' && isSecret(r.name));
      expect(demanded, `${name} is demanded`).not.toEqual([]);
      for (const reference of demanded) expect(reference.text, `${reference.name}'s message`).toMatch(/\S{3}/);
      // Nothing but the references: no literal credential (the database URL's user is not one).
      expect(value.replace(/\$\{[^}]*\}/g, ''), `${name} outside its references`).not.toMatch(/[A-Za-z0-9+/=_-]{20,}/);
    }
  });

  it('demands SESSION_SECRET and AUTH_TOKENS (and AUTH_SECRET with team sign-in), and says which is missing', () => {
    for (const [file, names] of [['compose.yaml', ['SESSION_SECRET', 'AUTH_TOKENS']], ['compose.sign-in.yaml', ['AUTH_SECRET']]] as const) {
      const environment = (parseYaml(composeText[file]) as ComposeFile).services.server!.environment!;
      for (const name of names) {
        expect(references(environment[name]!)).toEqual([expect.objectContaining({ name, operator: '?' })]);
        const vars = { ...dotEnv(), [name]: '' };
        expect(() => interpolate(environment[name]!, vars)).toThrow(name);
      }
    }
  });

  it('with compose.git.yaml serves a git repository from a working copy on the writable volume, the token demanded', () => {
    const gitCompose = parseYaml(composeText['compose.git.yaml']) as ComposeFile;
    const environment = { ...server.environment, ...gitCompose.services.server!.environment };
    const token = secretValue();
    const vars = dotEnv({ CORPUS_GIT_URL: 'https://github.com/acme/handbook.git', CORPUS_GIT_TOKEN: token });
    const config = loadConfig({ ...runtimeEnv, ...interpolated(environment, vars) });
    expect(config.git).toMatchObject({ url: 'https://github.com/acme/handbook.git', pollSeconds: 60 });
    expect(config.git?.token).toBe(token);
    expect(config.corpusDir.startsWith(`${runtimeEnv.AUTH_DATA_DIR}/`)).toBe(true);
    expect(config.indexFile?.startsWith(`${config.corpusDir}/`)).toBe(false);
    expect(config.sourceUrlTemplate).toBe('https://github.com/acme/handbook/blob/{commit}/{path}#L{line}');
    expect(() => interpolate(environment.CORPUS_GIT_TOKEN!, { ...vars, CORPUS_GIT_TOKEN: '' })).toThrow('CORPUS_GIT_TOKEN');
    expect(read('compose.yaml')).toContain('-f compose.git.yaml');
  });

  it('is a configuration the server accepts, with the image\'s environment, alone and with team sign-in', () => {
    const vars = dotEnv();
    expect(() => loadConfig({ ...runtimeEnv, ...interpolated(server.environment!, vars) })).not.toThrow();
    const signInVars = dotEnv({
      PUBLIC_URL: 'https://docs.example.com', LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: 'https://accounts.google.com',
      LOGIN_CLIENT_ID: 'client', LOGIN_CLIENT_SECRET: secretValue(), AUTH_SECRET: secretValue(), ALLOWED_EMAIL_DOMAINS: 'example.com',
    });
    const config = loadConfig({ ...runtimeEnv, ...interpolated(serverEnvironment, signInVars) });
    expect(config.auth.login?.provider).toBe('oidc');
    expect(config.databaseUrl).toMatch(/^postgres:\/\/corpus:/);
  });

  it('uses no `$` that compose would refuse, and .env.example lists every variable it interpolates', () => {
    const example = read('.env.example')
      .split('\n')
      .filter((l) => /^\s*#?\s*[A-Z_]+=/.test(l) && !l.trimStart().startsWith('# '))
      .map((l) => l.split('=')[0]!.trim());
    for (const file of composeFiles) {
      const code = composeText[file].split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n');
      expect(dollarsComposeRejects(code), file).toEqual([]);
      for (const { name } of references(code)) expect(example, `${name} in .env.example`).toContain(name);
    }
  });
});

interface RenderEnvVar {
  key: string;
  value?: string;
  generateValue?: boolean;
  sync?: boolean;
  fromDatabase?: { name: string; property: string };
}
const render = parseYaml(read('render.yaml')) as {
  services: Array<{ type: string; name: string; runtime: string; dockerfilePath: string; healthCheckPath: string; envVars: RenderEnvVar[] }>;
  databases: Array<{ name: string }>;
};
const web = render.services[0]!;
const renderVar = (key: string) => web.envVars.find((v) => v.key === key);

describe('render.yaml', () => {
  it('is one web service built from the Dockerfile, checked on /readyz like fly.toml', () => {
    expect(render.services).toHaveLength(1);
    expect(web).toMatchObject({ type: 'web', runtime: 'docker', healthCheckPath: '/readyz' });
    expect(existsSync(new URL(web.dockerfilePath, root))).toBe(true);
    expect(fly.http_service.checks[0]!.path).toBe(web.healthCheckPath);
    expect(renderVar('PORT')?.value).toBe(runtimeEnv.PORT);
  });

  it('generates SESSION_SECRET and AUTH_SECRET, takes DATABASE_URL from its database and asks for PUBLIC_URL', () => {
    expect(renderVar('SESSION_SECRET')).toEqual({ key: 'SESSION_SECRET', generateValue: true });
    expect(renderVar('AUTH_SECRET')).toEqual({ key: 'AUTH_SECRET', generateValue: true });
    expect(renderVar('DATABASE_URL')?.fromDatabase).toEqual({ name: render.databases[0]!.name, property: 'connectionString' });
    expect(render.databases.map((d) => d.name)).toEqual([renderVar('DATABASE_URL')!.fromDatabase!.name]);
    expect(renderVar('PUBLIC_URL')).toEqual({ key: 'PUBLIC_URL', sync: false });
  });

  it('sets only variables the config reads, and demands every secret rather than carry one', () => {
    for (const { key, value, generateValue, sync, fromDatabase } of web.envVars) {
      expect(CONFIG_VARIABLES, key).toContain(key);
      const sources = [value !== undefined, generateValue === true, sync === false, fromDatabase !== undefined].filter(Boolean);
      expect(sources, `${key} has exactly one source`).toHaveLength(1);
      if (isSecret(key)) expect(value, `${key} is generated, asked for or taken from the database`).toBeUndefined();
    }
  });

  it('is a configuration the server accepts once the asked-for values are filled in', () => {
    const answers: Record<string, string> = {
      PUBLIC_URL: 'https://corpus-mcp.onrender.com', LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: 'https://accounts.google.com',
      LOGIN_CLIENT_ID: 'client', LOGIN_CLIENT_SECRET: secretValue(), ALLOWED_EMAIL_DOMAINS: 'example.com',
    };
    const env: Record<string, string> = { ...runtimeEnv };
    for (const v of web.envVars) {
      if (v.value !== undefined) env[v.key] = v.value;
      else if (v.generateValue) env[v.key] = randomBytes(32).toString('base64'); // Render: a base64-encoded 256-bit value
      else if (v.fromDatabase) env[v.key] = 'postgresql://corpus:pw@dpg-example-a/corpus';
      else env[v.key] = answers[v.key] ?? expect.fail(`no sample answer for ${v.key}`);
    }
    const config = loadConfig(env);
    expect(config.auth.login?.provider).toBe('oidc');
    expect(config.sessions.secret).toBe(env.SESSION_SECRET);
  });
});

describe('the git source in the deploy files', () => {
  it.each(['fly.toml', 'render.yaml', 'compose.yaml'])('%s documents it, naming only variables the config reads', (file) => {
    const text = read(file);
    expect(text).toMatch(/CORPUS_GIT_URL|compose\.git\.yaml/);
    for (const name of text.match(/\bCORPUS_GIT_[A-Z_]+/g) ?? []) expect(CONFIG_VARIABLES, name).toContain(name);
  });

  it('installs git in the image the server runs in', () => {
    expect(runArgs(runtime).some((r) => /apt-get install .*\bgit\b/.test(r))).toBe(true);
  });
});
