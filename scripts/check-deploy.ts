// Runs the container's command outside a container, as close to the image as this machine allows
// (there is no Docker engine here): compile, install the production dependency set alone from the
// lockfile into a scratch /app, copy the compiled output and the bundled corpus, then start the
// Dockerfile's exact CMD with the Dockerfile's ENV and check what an operator relies on:
// the HEALTHCHECK command passes, /readyz reports the corpus, a real MCP client can search it,
// /metrics counts the call, a SIGHUP reload serves, and SIGTERM ends the process with exit code 0.
//
//   npx tsx scripts/check-deploy.ts            (run by .ci/run)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cmdOf, envOf, healthcheckOf, parseDockerfile } from './lib/dockerfile.js';

const root = new URL('../', import.meta.url).pathname;
const started = Date.now();
const step = (what: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${what}`);
const fail = (why: string): never => {
  console.error(`check-deploy: FAILED: ${why}`);
  process.exit(1);
};

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} exited with ${result.status}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function until<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) return fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const dockerfile = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const imageEnv = envOf(dockerfile.runtime);
const cmd = cmdOf(dockerfile.runtime);
const healthcheck = healthcheckOf(dockerfile.runtime).command;
if (cmd[0] !== 'node' || healthcheck[0] !== 'node') fail(`CMD and HEALTHCHECK must run node, got ${cmd[0]} and ${healthcheck[0]}`);

step('build: npm run build');
run('npm', ['run', 'build', '--silent'], root);

const app = mkdtempSync(join(tmpdir(), 'corpus-mcp-app-'));
const cleanups: Array<() => void> = [() => rmSync(app, { recursive: true, force: true })];
process.on('exit', () => cleanups.reverse().forEach((cleanup) => cleanup()));

// The image without LOCAL_MODELS: keyword-only, no model runtime.
step(`runtime stage in ${app}: npm ci --omit=dev --ignore-scripts --omit=optional`);
cpSync(join(root, 'package.json'), join(app, 'package.json'));
cpSync(join(root, 'package-lock.json'), join(app, 'package-lock.json'));
run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], app);
for (const devOnly of ['typescript', 'vitest', 'tsx', 'eslint']) {
  if (existsSync(join(app, 'node_modules', devOnly))) fail(`dev dependency ${devOnly} was installed in the runtime stage`);
}
for (const runtime of ['@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web']) {
  if (existsSync(join(app, 'node_modules', runtime))) fail(`the model runtime (${runtime}) was installed in a keyword-only runtime stage`);
}
// As the image does: the native addon the build stage compiled, which --ignore-scripts skipped.
const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
cpSync(join(root, addon), join(app, addon));
cpSync(join(root, 'dist'), join(app, 'dist'), { recursive: true });
cpSync(join(root, 'corpus'), join(app, 'corpus'), { recursive: true });
// As the build stage does: bake the snapshot of the bundled corpus with the compiled code.
const appPath = (path: string | undefined, fallback: string) => join(app, path?.replace(/^\/app\//, '') ?? fallback);
step('bake the index snapshot: node dist/src/index-cli.js');
{
  const baked = spawnSync(process.execPath, ['dist/src/index-cli.js', '--out', appPath(imageEnv.INDEX_FILE, 'index.snapshot')], {
    cwd: app,
    env: { PATH: process.env.PATH, CORPUS_DIR: appPath(imageEnv.CORPUS_DIR, 'corpus') },
    encoding: 'utf8',
  });
  if (baked.status !== 0) fail(`baking the snapshot failed: ${baked.stderr}`);
  step(baked.stdout.trim());
}

// The image binds 0.0.0.0, so without auth (and without ALLOW_UNAUTHENTICATED) it must refuse to start.
{
  const refused = spawnSync(cmd[0]!, cmd.slice(1), {
    cwd: app,
    env: { PATH: process.env.PATH, ...imageEnv, PORT: String(await freePort()), CORPUS_DIR: join(app, 'corpus') },
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (refused.status === 0 || refused.status === null) fail(`without auth on HOST=${imageEnv.HOST} the server did not refuse to start (status ${refused.status})`);
  step(`no auth on HOST=${imageEnv.HOST}: refused to start (exit ${refused.status}): ${refused.stderr.trim().replace(/\s+/g, ' ').slice(0, 160)}`);
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
// As fly.toml deploys it: /metrics on a listener of its own, not on the public port.
const metricsPort = await freePort();
const token = randomBytes(32).toString('hex');
// The image's ENV, with the paths and port of this scratch /app; auth on, as HOST=0.0.0.0 requires.
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  NODE_ENV: 'production',
  ...imageEnv,
  PORT: String(port),
  CORPUS_DIR: appPath(imageEnv.CORPUS_DIR, 'corpus'),
  ...(imageEnv.INDEX_FILE === undefined ? {} : { INDEX_FILE: appPath(imageEnv.INDEX_FILE, 'index.snapshot') }),
  PUBLIC_URL: base,
  AUTH_TOKENS: token,
  METRICS_PORT: String(metricsPort),
};
step(`start: ${cmd.join(' ')} with HOST=${env.HOST} PORT=${env.PORT} CORPUS_DIR=${env.CORPUS_DIR}`);
const child = spawn(cmd[0]!, cmd.slice(1), { cwd: app, env, stdio: ['ignore', 'pipe', 'inherit'] });
cleanups.push(() => child.kill('SIGKILL'));
let stopping = false;
const logLines: string[] = [];
child.stdout!.setEncoding('utf8').on('data', (chunk: string) => logLines.push(...chunk.split('\n').filter(Boolean)));
const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
void exited.then((code) => {
  if (!stopping) fail(`the server exited early with code ${code}; last log lines:\n${logLines.slice(-5).join('\n')}`);
});

await until('/healthz', async () => ((await fetch(`${base}/healthz`)).ok ? true : undefined));
step('HEALTHCHECK command');
const health = spawnSync(healthcheck[0]!, healthcheck.slice(1), { env: { ...env }, timeout: 10_000 });
if (health.status !== 0) fail(`HEALTHCHECK exited with ${health.status}`);

const ready = await until('/readyz 200', async () => {
  const res = await fetch(`${base}/readyz`);
  return res.status === 200 ? ((await res.json()) as { documents: number; chunks: number; last_reload?: { origin?: string } }) : undefined;
});
step(`/readyz: ${ready.documents} documents, ${ready.chunks} chunks, index from the ${ready.last_reload?.origin}`);
if (!(ready.documents > 0 && ready.chunks >= ready.documents)) fail(`readyz reported ${JSON.stringify(ready)}`);
if (imageEnv.INDEX_FILE !== undefined && ready.last_reload?.origin !== 'snapshot') fail(`the baked snapshot was not used: ${JSON.stringify(ready.last_reload)}`);

const unauthorised = await fetch(`${base}/mcp`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
if (unauthorised.status !== 401) fail(`POST /mcp without a token answered ${unauthorised.status}, expected 401`);

const client = new Client({ name: 'check-deploy', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
);
const result = await client.callTool({ name: 'search_documents', arguments: { query: 'deploy to Fly', top_k: 3 } });
const results = (result.structuredContent as { results?: Array<{ source: string }> } | undefined)?.results ?? [];
if (result.isError || results.length === 0) fail(`search_documents returned ${JSON.stringify(result).slice(0, 300)}`);
step(`search_documents "deploy to Fly": ${results.map((r) => r.source).join(', ')}`);
await client.close();

const landing = await fetch(`${base}/`);
if (landing.status !== 200 || !(await landing.text()).includes(`${base}/mcp`)) fail('the landing page does not show the MCP URL');
// The server card imports server.json: the compiled output must carry it (the build stage copies it).
const card = await fetch(`${base}/.well-known/mcp/server-card.json`);
const cardBody = card.status === 200 ? ((await card.json()) as { name?: string; remotes?: Array<{ url?: string }> }) : undefined;
if (cardBody?.remotes?.[0]?.url !== `${base}/mcp`) fail(`the server card answered ${card.status} without the MCP URL: ${JSON.stringify(cardBody)?.slice(0, 200)}`);
step(`server card: ${cardBody!.name} at ${cardBody!.remotes![0]!.url}`);

if ((await fetch(`${base}/metrics`)).status !== 404) fail('the public port serves /metrics although METRICS_PORT is set');
const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
if (!/^corpus_mcp_tool_calls_total\{tool="search_documents",outcome="ok",era="legacy"\} 1$/m.test(metrics)) {
  fail('/metrics did not count the search_documents call');
}
step('/metrics on METRICS_PORT counted the call, the public port does not serve it; landing page shows the MCP URL');

if (logLines.some((l) => l.includes(token))) fail('a log line contains the bearer token');
for (const line of logLines) JSON.parse(line); // every stdout line is a JSON log record

// A reload runs the build in a child process started from the bundled server: its entry file must be
// found from the bundle (scripts/build.mjs), and the new index must serve.
child.kill('SIGHUP');
const reloaded = await until('/readyz after SIGHUP', async () => {
  const body = (await (await fetch(`${base}/readyz`)).json()) as { last_reload?: { trigger?: string; outcome?: string; origin?: string } };
  return body.last_reload?.trigger === 'SIGHUP' ? body.last_reload : undefined;
});
if (reloaded.outcome !== 'ok') fail(`the SIGHUP reload ended ${JSON.stringify(reloaded)}`);
step(`SIGHUP: reloaded (${reloaded.outcome}, index from the ${reloaded.origin})`);

stopping = true;
child.kill('SIGTERM');
const code = await exited;
if (code !== 0) fail(`after SIGTERM the server exited with ${code}, expected 0`);
step('SIGTERM: exit code 0');

// Team sign-in in the same production layout: the authorization server answers its metadata, and a
// client registration is written through better-sqlite3, whose addon the runtime stage copies in
// (its npm ci runs with --ignore-scripts). The upstream provider is not contacted before a sign-in.
{
  const signInPort = await freePort();
  const signInBase = `http://127.0.0.1:${signInPort}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'corpus-mcp-auth-data-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const signInEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, NODE_ENV: 'production', ...imageEnv, HOST: '127.0.0.1', PORT: String(signInPort),
    CORPUS_DIR: env.CORPUS_DIR, PUBLIC_URL: signInBase, AUTH_DATA_DIR: dataDir,
    LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: 'http://127.0.0.1:9', LOGIN_CLIENT_ID: 'check-deploy',
    LOGIN_CLIENT_SECRET: randomBytes(16).toString('hex'), ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: randomBytes(32).toString('hex'),
  };
  const signIn = spawn(cmd[0]!, cmd.slice(1), { cwd: app, env: signInEnv, stdio: ['ignore', 'ignore', 'inherit'] });
  cleanups.push(() => signIn.kill('SIGKILL'));
  const signInExited = new Promise<number | null>((resolve) => signIn.once('exit', (code) => resolve(code)));
  const metadata = await until('the authorization server metadata', async () => {
    const res = await fetch(`${signInBase}/.well-known/oauth-authorization-server`);
    return res.status === 200 ? ((await res.json()) as { issuer?: string }) : undefined;
  });
  if (metadata.issuer !== signInBase) fail(`the authorization server metadata names issuer ${metadata.issuer}, expected ${signInBase}`);
  const registered = await fetch(`${signInBase}/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://localhost:33418/callback'], token_endpoint_auth_method: 'none' }),
  });
  if (registered.status !== 201) fail(`POST /register answered ${registered.status}: ${(await registered.text()).slice(0, 200)}`);
  if (!existsSync(join(dataDir, 'auth.sqlite'))) fail(`no store was written in AUTH_DATA_DIR ${dataDir}`);
  signIn.kill('SIGTERM');
  if ((await signInExited) !== 0) fail('the sign-in server did not exit 0 on SIGTERM');
  step('team sign-in: metadata served, a registration stored in AUTH_DATA_DIR/auth.sqlite through the copied addon');
}
console.log('check-deploy: OK');
