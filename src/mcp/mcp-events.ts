// What the MCP endpoint reports as it serves, in one typed object that metrics and logs subscribe to,
// instead of a callback per event threaded through every layer. Emitting is the endpoint's business,
// listening the operator's: a listener that throws is logged here, in the one place that isolates it,
// and never turns an answer into a 500 or breaks the session registry.
import { silentLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import type { McpEra, ToolCallEvent } from './mcp-service.js';
import type { SessionRefusal } from './sessions/durable-sessions.js';
import type { SessionEvent } from './sessions/session-registry.js';

/** Every event the endpoint emits, by name, with its payload. */
export interface McpEventMap {
  /** A legacy session was created or ended (evicted, expired, deleted, shutdown). */
  session: SessionEvent;
  /** A tools/call finished, in either era. */
  toolCall: ToolCallEvent;
  /**
   * A request's session id was refused (answered 404; `foreign`: the session is another
   * principal's), or its session re-created from the id (`restored`).
   */
  sessionLookup: SessionRefusal | 'restored';
  /** A request reached the endpoint and was routed to this era. */
  request: McpEra;
}

export type McpEventName = keyof McpEventMap;
export type McpEventListener<K extends McpEventName> = (payload: McpEventMap[K]) => void;

export class McpEvents {
  readonly #listeners = new Map<McpEventName, Set<(payload: never) => void>>();
  readonly #logger: Logger;

  /** `logger` hears of listeners that throw. Default silent. */
  constructor({ logger = silentLogger }: { logger?: Logger } = {}) {
    this.#logger = logger;
  }

  /** Subscribes `listener` to `name`; returns the function that unsubscribes it. */
  on<K extends McpEventName>(name: K, listener: McpEventListener<K>): () => void {
    let set = this.#listeners.get(name);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    const stored = listener as (payload: never) => void;
    set.add(stored);
    return () => void set.delete(stored);
  }

  /** Calls every listener of `name` in turn; one that throws is logged and the others still run. */
  emit<K extends McpEventName>(name: K, payload: McpEventMap[K]): void {
    const set = this.#listeners.get(name);
    if (set === undefined) return;
    for (const listener of set) {
      try {
        (listener as McpEventListener<K>)(payload);
      } catch (error) {
        this.#logger.error({ err: error, event: name }, 'an MCP event listener threw');
      }
    }
  }
}
