// `npm run bench:call-cost`: what one search_documents call costs, phase by phase, against an MCP
// ping, on SciFact ×N served from a snapshot. Every phase runs in this process over all training
// claims (top_k 10), its CPU time taken per phase (so the machine's load hardly moves it), after one
// warm-up pass; the HTTP, session and transport work
// that a ping pays as much as a search is not in it (bench:growth's CPU per call has it).
//
//   npm run bench:call-cost                       # ×4 and ×20
//   npm run bench:call-cost -- --copies 20 --reps 3
//
// The phases run on the index decoded in memory; one more row reads the hits' texts and records
// from the snapshot file, as a server booted from a snapshot does (src/index-service/snapshot-in-file.ts).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CallToolRequestSchema, CallToolResultSchema, JSONRPCMessageSchema, PingRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { openSnapshotFile, readSnapshotFile } from '../src/index-service/snapshot-file.js';
import { SnapshotInFile } from '../src/index-service/snapshot-in-file.js';
import { IndexHolder } from '../src/mcp/index-holder.js';
import { createMcpService } from '../src/mcp/mcp-service.js';
import { decodeIndexSnapshot } from '../src/search/index-snapshot.js';
import { cliOption } from './lib/cli-option.js';
import { readClaims, readScifactDocs, table, writeCorpusFolder } from './lib/scifact.js';

const root = resolve(import.meta.dirname, '..');
const option = cliOption;
const sizes = option('copies', '4,20').split(',').map(Number);
const reps = Number(option('reps', '3'));

/** CPU time of this process (user + system), in ms. */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const PHASES = [
  'search: tokenize + rank (BM25F, top-k)',
  'search: hits (document records)',
  'search: snippets',
  'search: the tool call (the three above, arguments, results, content text, log line)',
  'server: SDK tools/call request parse',
  'server: SDK result validation',
  'server: SSE message JSON',
  'server: UTF-8 encode',
  'client: decode + JSON.parse',
  'client: SDK JSON-RPC message parse',
  'client: SDK CallToolResult parse',
  'client: outputSchema validation (only after tools/list)',
  'ping, server: SDK request parse + SSE message JSON + encode',
  'ping, client: decode + JSON.parse + message parse',
  'search: hits + snippets, texts and records read from the file (as a snapshot boot serves them)',
] as const;

async function measure(copies: number, claims: readonly string[]): Promise<{ us: Map<string, number>; bytes: number }> {
  const corpusDir = writeCorpusFolder(readScifactDocs(), copies);
  const indexFile = join(tmpdir(), `corpus-mcp-bench-call-cost-${process.pid}-x${copies}.snapshot`);
  execFileSync(process.execPath, [join(root, 'dist/src/index-cli.js'), '--out', indexFile], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', CORPUS_DIR: corpusDir },
    stdio: 'ignore',
  });
  const { index } = decodeIndexSnapshot(readSnapshotFile(indexFile).bytes);
  const file = new SnapshotInFile(await openSnapshotFile(indexFile).readResident());
  if (!(await file.verify())) throw new Error(`snapshot ${indexFile} does not hash to its digest`);
  const served = decodeIndexSnapshot(file).index;
  // Open, the file stays readable once unlinked.
  rmSync(indexFile, { force: true });
  const service = createMcpService({ holder: IndexHolder.of({ index, skipped: [] }), indexWaitMs: 60_000 });
  const listing = service.listToolsResult.tools.find((t) => t.name === 'search_documents');
  const validate = new AjvJsonSchemaValidator().getValidator(listing?.outputSchema as Parameters<AjvJsonSchemaValidator['getValidator']>[0]);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const sse = (message: unknown): Uint8Array => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  const unSse = (bytes: Uint8Array): unknown => JSON.parse(decoder.decode(bytes).slice('event: message\ndata: '.length));

  const total = new Map<string, number>();
  let calls = 0;
  let bytes = 0;
  for (let rep = 0; rep <= reps; rep += 1) {
    const record = rep > 0;
    for (const [id, query] of claims.entries()) {
      let t = cpuMs();
      const lap = (phase: (typeof PHASES)[number]): void => {
        const now = cpuMs();
        if (record) total.set(phase, (total.get(phase) ?? 0) + now - t);
        t = now;
      };
      const { ids, scores } = index.rankChunks(query, 10);
      lap(PHASES[0]);
      const hits = index.hits(query, ids, scores);
      lap(PHASES[1]);
      for (const hit of hits) void hit.snippet;
      lap(PHASES[2]);
      const request = { jsonrpc: '2.0' as const, id, method: 'tools/call' as const, params: { name: 'search_documents', arguments: { query, top_k: 10 } } };
      const result = await service.callTool('search_documents', request.params.arguments, { era: 'legacy' });
      lap(PHASES[3]);
      CallToolRequestSchema.parse(request);
      lap(PHASES[4]);
      const validated = CallToolResultSchema.parse(result);
      lap(PHASES[5]);
      const json = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: validated })}\n\n`;
      lap(PHASES[6]);
      const wire = encoder.encode(json);
      lap(PHASES[7]);
      const message = JSON.parse(decoder.decode(wire).slice('event: message\ndata: '.length)) as { result: { structuredContent: unknown } };
      lap(PHASES[8]);
      JSONRPCMessageSchema.parse(message);
      lap(PHASES[9]);
      CallToolResultSchema.parse(message.result);
      lap(PHASES[10]);
      if (!validate(message.result.structuredContent).valid) throw new Error('structuredContent does not match the outputSchema');
      lap(PHASES[11]);
      PingRequestSchema.parse({ jsonrpc: '2.0', id, method: 'ping' });
      const ping = sse({ jsonrpc: '2.0', id, result: {} });
      lap(PHASES[12]);
      JSONRPCMessageSchema.parse(unSse(ping));
      lap(PHASES[13]);
      for (const hit of served.hits(query, ids, scores)) void hit.snippet;
      lap(PHASES[14]);
      if (record) {
        calls += 1;
        bytes += wire.length;
      }
    }
  }
  file.close();
  const us = new Map([...total].map(([phase, ms]) => [phase, (ms / calls) * 1000]));
  return { us, bytes: bytes / calls };
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const claims = readClaims().map((c) => c.text);
  const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');
  console.log(`# bench:call-cost — SciFact ×${sizes.join(', ×')}, ${claims.length} claims × ${reps}, load average ${load()}\n`);
  const results: Array<Awaited<ReturnType<typeof measure>>> = [];
  for (const copies of sizes) results.push(await measure(copies, claims));
  const rows = PHASES.map((phase) => [phase, ...results.map((r) => (r.us.get(phase) ?? 0).toFixed(0))]);
  rows.push(['search response on the wire (bytes)', ...results.map((r) => r.bytes.toFixed(0))]);
  console.log(table(['CPU µs per call', ...sizes.map((c) => `×${c}`)], rows));
  console.log(`\nload average at the end ${load()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
