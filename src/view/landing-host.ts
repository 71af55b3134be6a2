// The landing page's own MCP Apps host (a server without authentication only): a search box whose
// query goes to this server's /mcp as search_documents, and the same view a model's host shows, run
// by the Apps SDK's AppBridge in a sandboxed iframe. The view's own tool calls (get_document) come
// back here and go to /mcp too. Requests are of the 2026-07-28 era: one POST each, no session.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';

const VERSION = '2026-07-28';
const VIEWER = 'ui://corpus-mcp/viewer';

const form = document.getElementById('try-form') as HTMLFormElement | null;
const slot = document.getElementById('try-view');
const status = document.getElementById('try-status');
const endpoint = form?.dataset.endpoint ?? '/mcp';
let nextId = 1;
let viewerHtml: Promise<string> | undefined;
let bridge: AppBridge | undefined;

interface RpcMessage {
  result?: Record<string, unknown>;
  error?: { message?: string };
}

/** One modern-era request to /mcp; the answer is JSON or a short SSE stream ending in it. */
async function rpc(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'corpus-mcp landing page', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const body = await response.text();
  const data = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    ? body.split('\n').filter((line) => line.startsWith('data:')).at(-1)?.slice(5)
    : body;
  let message: RpcMessage | undefined;
  try {
    message = data === undefined ? undefined : (JSON.parse(data) as RpcMessage);
  } catch {
    message = undefined;
  }
  if (message?.error) throw new Error(message.error.message ?? `${method} failed`);
  if (!response.ok || message?.result === undefined) throw new Error(`${method}: the server answered ${response.status}`);
  return message.result;
}

function say(text: string): void {
  if (status) status.textContent = text;
}

const theme = (): 'light' | 'dark' => (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');

async function show(toolInput: Record<string, unknown>, toolResult: Record<string, unknown>): Promise<void> {
  viewerHtml ??= rpc('resources/read', { uri: VIEWER }).then((read) => {
    const [content] = (read.contents ?? []) as { text?: string }[];
    if (typeof content?.text !== 'string') throw new Error('the server sent no view');
    return content.text;
  });
  const html = await viewerHtml;
  await bridge?.close();
  const iframe = document.createElement('iframe');
  iframe.title = 'Search results';
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.className = 'try-frame';
  slot?.replaceChildren(iframe);
  const hostContext: McpUiHostContext = { theme: theme(), displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web' };
  const current = new AppBridge(null, { name: 'corpus-mcp landing page', version: '1' }, { serverTools: {}, openLinks: {} }, { hostContext });
  bridge = current;
  current.oncalltool = async (params) => (await rpc('tools/call', { name: params.name, arguments: params.arguments ?? {} })) as never;
  current.onopenlink = async ({ url }) => {
    window.open(url, '_blank', 'noopener,noreferrer');
    return {};
  };
  current.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${Math.ceil(height)}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    current.oninitialized = () => resolve();
  });
  await current.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
  await initialized;
  await current.sendToolInput({ arguments: toolInput });
  await current.sendToolResult(toolResult as never);
}

matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => bridge?.setHostContext({ theme: theme() }));

form?.addEventListener('submit', (event) => {
  event.preventDefault();
  const query = String(new FormData(form).get('q') ?? '').trim();
  if (query === '') return;
  const toolInput = { query, top_k: 10 };
  say('Searching…');
  rpc('tools/call', { name: 'search_documents', arguments: toolInput })
    .then((result) => show(toolInput, result))
    .then(() => say(''))
    .catch((error: unknown) => say(error instanceof Error ? error.message : String(error)));
});
