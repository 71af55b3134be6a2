// A small MCP Apps host for the browser tests, bundled with esbuild and run in the test page: the
// extension's AppBridge hosting the view in a sandboxed iframe (srcdoc, allow-scripts only), as hosts
// run it. Tool calls the view makes go to `window.hostCallTool`, which the test exposes from Node,
// where the real SDK client calls the real server. What the view asked of the host is recorded.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';

interface HostWindow {
  hostCallTool(name: string, args: unknown): Promise<Record<string, unknown>>;
  hostLog: { method: string; params: unknown }[];
  showView(options: { html: string; toolInput: Record<string, unknown>; toolResult: Record<string, unknown>; hostContext: McpUiHostContext }): Promise<void>;
  setHostContext(context: McpUiHostContext): void;
}
const host = window as unknown as Window & HostWindow;
host.hostLog = [];
let bridge: AppBridge | undefined;

host.showView = async ({ html, toolInput, toolResult, hostContext }) => {
  document.getElementById('view')?.remove();
  const iframe = document.createElement('iframe');
  iframe.id = 'view';
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.cssText = 'width:100%;border:0;display:block;height:200px';
  document.body.append(iframe);
  let context = hostContext;
  bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {}, openLinks: {} }, { hostContext });
  const record = (method: string, params: unknown) => host.hostLog.push({ method, params });
  bridge.oncalltool = async (params) => {
    record('tools/call', params);
    return (await host.hostCallTool(params.name, params.arguments ?? {})) as never;
  };
  bridge.onopenlink = async (params) => {
    record('ui/open-link', params);
    return {};
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    record('ui/request-display-mode', { mode });
    const granted = (context.availableDisplayModes ?? ['inline']).includes(mode) ? mode : (context.displayMode ?? 'inline');
    context = { ...context, displayMode: granted };
    bridge?.setHostContext(context);
    iframe.style.height = granted === 'fullscreen' ? '100vh' : iframe.style.height;
    return { mode: granted };
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined && context.displayMode !== 'fullscreen') iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge!.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult as never);
};

host.setHostContext = (context) => bridge?.setHostContext(context);
