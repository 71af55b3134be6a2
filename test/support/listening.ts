// An MCP events object (src/mcp/mcp-events.ts) with one listener, for tests that build a part alone.
import { McpEvents } from '../../src/mcp/mcp-events.js';
import type { McpEventListener, McpEventName } from '../../src/mcp/mcp-events.js';

export function listening<K extends McpEventName>(name: K, listener: McpEventListener<K>): McpEvents {
  const events = new McpEvents();
  events.on(name, listener);
  return events;
}
