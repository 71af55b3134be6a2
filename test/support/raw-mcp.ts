// Bare HTTP helpers for the MCP endpoint, for tests that need to see statuses and streams the SDK
// client hides (404 after eviction, an SSE stream ending).
import { request as httpRequest } from 'node:http';

export const PROTOCOL_VERSION = '2025-06-18';
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function initializeBody(id: number | string = 1) {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } } };
}

/** Opens a session with initialize + notifications/initialized; returns its id. */
export async function openSession(mcpUrl: URL | string): Promise<string> {
  const response = await fetch(mcpUrl, { method: 'POST', headers: POST_HEADERS, body: JSON.stringify(initializeBody()) });
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}: ${await response.text()}`);
  const sessionId = response.headers.get('mcp-session-id');
  await response.text();
  if (!sessionId) throw new Error('initialize answered without mcp-session-id');
  const initialized = await postMessage(mcpUrl, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return sessionId;
}

export async function postMessage(mcpUrl: URL | string, sessionId: string, message: unknown): Promise<{ status: number; body: string }> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION },
    body: JSON.stringify(message),
  });
  return { status: response.status, body: await response.text() };
}

export const ping = (mcpUrl: URL | string, sessionId: string, id = 7) => postMessage(mcpUrl, sessionId, { jsonrpc: '2.0', id, method: 'ping' });

/** Opens the session's standalone SSE stream (GET). */
export async function openSseStream(mcpUrl: URL | string, sessionId: string): Promise<{ status: number; ended: Promise<void>; cancel: () => Promise<void> }> {
  const response = await fetch(mcpUrl, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION } });
  const reader = response.body!.getReader();
  const ended = (async () => {
    for (;;) {
      const { done } = await reader.read();
      if (done) return;
    }
  })();
  return { status: response.status, ended, cancel: () => reader.cancel().catch(() => {}) };
}

/** A request with exactly these headers (fetch would replace Host). */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
