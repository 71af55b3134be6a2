// Socket-level limits against a real listening server assembled as main.ts assembles it: the cap on
// open connections (MAX_CONNECTIONS) and the write deadline (WRITE_TIMEOUT_MS). Each is driven by a
// raw TCP client doing what a careless or hostile one does, and checked from both ends: what the
// client sees, and what the server's metrics and log say it did.
import { request } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleValue } from './metrics-exposition.js';
import { startOpsServer } from './metrics-server.js';
import type { OpsServer } from './metrics-server.js';
import { openSession, ping, PROTOCOL_VERSION } from './support/raw-mcp.js';
import { eventually } from './support/eventually.js';

const servers: OpsServer[] = [];
const sockets: Socket[] = [];
async function start(env: Record<string, string>, files?: Record<string, string>): Promise<OpsServer> {
  const server = await startOpsServer({ env, ...(files ? { files } : {}) });
  servers.push(server);
  return server;
}
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const portOf = (server: OpsServer) => Number(new URL(server.url).port);
const dropped = async (server: OpsServer, reason: string) => sampleValue(await server.scrape(), 'corpus_mcp_connections_dropped_total', { reason }) ?? 0;

/** A TCP connection to the server that reads nothing until told to. */
function openSocket(server: OpsServer): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(portOf(server), '127.0.0.1', () => resolve(socket));
    socket.on('error', () => {}); // a reset is an outcome the tests look at, not a failure
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** Resolves when the socket is closed, with everything it received (reading it from now on). */
function drain(socket: Socket): Promise<Buffer> {
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  return new Promise((resolve) => {
    if (socket.closed) resolve(Buffer.concat(received));
    socket.once('close', () => resolve(Buffer.concat(received)));
  });
}

describe('MAX_CONNECTIONS', () => {
  it('closes a connection past the cap at once, keeps serving the ones it holds, and accepts again once one closes', async () => {
    const server = await start({ MAX_CONNECTIONS: '3' });
    const held = [await openSocket(server), await openSocket(server), await openSocket(server)];

    const refused = await openSocket(server);
    // A bound on a hang, not a measure: a connection still open after 20 s was not refused.
    const answer = await Promise.race([drain(refused), new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 20_000))]);
    expect(answer).toEqual(Buffer.alloc(0)); // closed without a byte of an answer

    // A held connection is still served.
    const served = drain(held[0]!);
    held[0]!.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect((await served).toString('utf8')).toMatch(/^HTTP\/1\.1 200 /);

    // Once they close there is room again: new connections are served, and the refusal was counted.
    for (const socket of held.slice(1)) socket.destroy();
    await eventually(async () => (await fetch(`${server.url}/healthz`).catch(() => undefined))?.status === 200, { timeoutMs: 5000 });
    expect(await dropped(server, 'max_connections')).toBe(1);
    expect(await dropped(server, 'write_timeout')).toBe(0);
  });
});

describe('WRITE_TIMEOUT_MS', () => {
  const WRITE_TIMEOUT_MS = 3000;
  // A million characters, mostly of three UTF-8 bytes: an answer of ~5 MB (the text is in content
  // and structuredContent), twice in a batch, well past what the kernel's socket buffers absorb
  // (~4 MB on loopback) when the client reads nothing.
  const BIG = `# Big\n\n${'€€€€ '.repeat(199_998)}`;
  const env = { WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS), MAX_DOCUMENT_CHARS: '1000000', MAX_CONCURRENT_PER_SESSION: '2' };
  const getBig = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_document', arguments: { source: 'big.md', max_chars: 1_000_000 } } });

  /** Sends a batch of two big get_document calls on the session over `socket`. */
  function requestBigAnswer(socket: Socket, server: OpsServer, session: string): void {
    const body = JSON.stringify([getBig(1), getBig(2)]);
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${portOf(server)}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nMcp-Session-Id: ${session}\r\nMcp-Protocol-Version: ${PROTOCOL_VERSION}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  it('closes the connection of a client that never reads its answer, counts and logs it, and frees the request\'s slots', async () => {
    const server = await start(env, { 'big.md': BIG });
    const session = await openSession(server.mcpUrl);
    const socket = await openSocket(server); // never read: no 'data' listener, so Node stops reading at 64 KiB
    const sent = Date.now();
    requestBigAnswer(socket, server, session);
    // The batch fills the session's budget of 2 while its answer waits.
    await eventually(async () => (await ping(server.mcpUrl, session)).status === 429, { timeoutMs: 5000 });

    await eventually(async () => (await dropped(server, 'write_timeout')) === 1, { timeoutMs: WRITE_TIMEOUT_MS + 10_000, intervalMs: 100 });
    expect(Date.now() - sent).toBeGreaterThanOrEqual(WRITE_TIMEOUT_MS);
    const line = server.lines().find((l) => l.msg === 'connection closed: its client did not take the answer in time');
    expect(line).toMatchObject({ level: 'info', write_timeout_ms: WRITE_TIMEOUT_MS, unsent_bytes: expect.any(Number) });
    expect(line!.unsent_bytes as number).toBeGreaterThan(0);

    // Reading now, the client finds its answer cut off: the server had let go of it.
    const received = await drain(socket);
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(2 * 2 * 2_600_000);
    expect(received.toString('utf8')).not.toContain('"id":2');
    // The batch's two slots are free again.
    await eventually(async () => (await ping(server.mcpUrl, session)).status === 200, { timeoutMs: 5000 });
    expect(await dropped(server, 'max_connections')).toBe(0);
  });

  it('never cuts a client that reads slowly but steadily, though its answer takes longer than the deadline', async () => {
    const server = await start(env, { 'big.md': BIG });
    const session = await openSession(server.mcpUrl);
    const body = JSON.stringify([getBig(1), getBig(2)]);
    const sent = Date.now();
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        server.mcpUrl,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL_VERSION },
        },
        (res) => {
          const chunks: Buffer[] = [];
          // Paced at 1.5 MB/s at most: the ~10 MB answer takes about 7 s to read, more than twice the
          // deadline, and each of its two ~5 MB messages alone is more than the deadline's worth.
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            res.pause();
            setTimeout(() => res.resume(), chunk.length / 1500);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(Date.now() - sent).toBeGreaterThan(WRITE_TIMEOUT_MS);
    expect(status).toBe(200);
    const messages = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { id: number; result: { structuredContent: { text: string } } });
    expect(messages.map((m) => m.id).sort()).toEqual([1, 2]);
    for (const m of messages) expect(m.result.structuredContent.text.length).toBeGreaterThan(990_000);
    expect(await dropped(server, 'write_timeout')).toBe(0);
  }, 90_000);
});
