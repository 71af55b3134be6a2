// The session registry: which MCP sessions exist, bounded in number and in idle time. Backed by
// lru-cache so the least recently used session makes room for a new one and an idle one expires on
// its own (ttlAutopurge), with every request refreshing the session's age (updateAgeOnGet).
import { LRUCache } from 'lru-cache';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { sessionLogId, silentLogger } from '../../logger.js';
import type { Logger } from '../../logger.js';
import type { McpEvents } from '../mcp-events.js';

/** Why a session ended: LRU cap, idle TTL, client DELETE, or server shutdown. */
export const SESSION_END_REASONS = ['evicted', 'expired', 'deleted', 'shutdown'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

export interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** Principal that created the session, when authentication is on; only it may use the session. */
  owner: string | undefined;
  createdAt: number;
  /** When the session's id expires (SESSION_MAX_AGE after its initialize), seconds since the epoch; undefined = never. */
  expiresAt?: number;
}

/**
 * Why a session ended. `evicted`: pushed out by MAX_SESSIONS; `expired`: idle past SESSION_IDLE_TTL;
 * `deleted`: the client sent DELETE or the transport closed; `shutdown`: the registry was closed.
 */

export type SessionEvent = { type: 'created'; session: Session } | { type: SessionEndReason; session: Session };

export interface SessionRegistryOptions {
  /** Sessions kept at once, ≥ 1. */
  maxSessions: number;
  /** Idle time in milliseconds after which a session is closed, ≥ 1. */
  idleTtlMs: number;
  /**
   * Sessions one authenticated principal may hold, ≥ 1; beyond it that principal's own least recently
   * used session is closed, so one principal opening sessions in a loop cannot push everyone else's
   * out. Sessions without an owner (authentication off) are bounded by `maxSessions` only. Default
   * `maxSessions` (no separate bound).
   */
  maxSessionsPerPrincipal?: number;
  logger?: Logger;
  /** Hears every creation and ending (`session` events, for metrics). Default none. */
  events?: McpEvents;
}

export class SessionRegistry {
  readonly #cache: LRUCache<string, Session>;
  readonly #logger: Logger;
  readonly #events: McpEvents | undefined;
  readonly #maxPerPrincipal: number;
  /** Live sessions per principal (a session's owner). */
  readonly #perPrincipal = new Map<string, number>();
  /** Ids being closed to make room under the per-owner bound, reported as evicted. */
  readonly #evicting = new Set<string>();
  #closing = false;

  constructor({ maxSessions, idleTtlMs, maxSessionsPerPrincipal = maxSessions, logger = silentLogger, events }: SessionRegistryOptions) {
    if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError(`maxSessions must be a whole number ≥ 1, got ${maxSessions}`);
    if (!Number.isFinite(idleTtlMs) || idleTtlMs < 1) throw new RangeError(`idleTtlMs must be ≥ 1, got ${idleTtlMs}`);
    if (!Number.isInteger(maxSessionsPerPrincipal) || maxSessionsPerPrincipal < 1) {
      throw new RangeError(`maxSessionsPerPrincipal must be a whole number ≥ 1, got ${maxSessionsPerPrincipal}`);
    }
    this.#maxPerPrincipal = maxSessionsPerPrincipal;
    this.#logger = logger;
    this.#events = events;
    this.#cache = new LRUCache<string, Session>({
      max: maxSessions,
      ttl: idleTtlMs,
      updateAgeOnGet: true,
      ttlAutopurge: true,
      // The global clock read at each call, not lru-cache's reference taken at import: a test's fake
      // timers then move a session's idle time and its purge timer together.
      perf: { now: () => performance.now() },
      // Closing a session from `dispose` would re-enter the cache while it is mid-update (the
      // transport's close callback deletes the entry) and corrupt it; `disposeAfter` runs once the
      // cache is consistent again.
      disposeAfter: (session, id, reason) => {
        this.#countOwner(session.owner, -1);
        const type: SessionEndReason = this.#closing
          ? 'shutdown'
          : this.#evicting.delete(id) || reason === 'evict'
            ? 'evicted'
            : reason === 'expire'
              ? 'expired'
              : 'deleted';
        this.#end(session, type);
      },
    });
  }

  get size(): number {
    return this.#cache.size;
  }

  /** Registers a new session; may evict the owner's or everyone's least recently used one. */
  add(session: Session): void {
    if (session.owner !== undefined && (this.#perPrincipal.get(session.owner) ?? 0) >= this.#maxPerPrincipal) this.#evictIdlestOf(session.owner);
    this.#countOwner(session.owner, 1);
    this.#cache.set(session.id, session);
    this.#emit({ type: 'created', session });
    this.#logger.debug({ session_id: sessionLogId(session.id), active_sessions: this.#cache.size }, 'session created');
  }

  /** The live session with this id, refreshing its idle timer; undefined if unknown, evicted or expired. */
  get(id: string): Session | undefined {
    return this.#cache.get(id);
  }

  /**
   * The live session with this id without refreshing its idle timer or recency: for checking who
   * owns it before the request is known to be the owner's.
   */
  peek(id: string): Session | undefined {
    return this.#cache.peek(id);
  }

  /** Every live session, without refreshing any idle timer or recency (e.g. to notify them all). */
  all(): Session[] {
    return [...this.#cache.values()];
  }

  /** Ends a session (DELETE, or its transport closed). Safe to call for an id that is gone. */
  delete(id: string): void {
    this.#cache.delete(id);
  }

  /** Ends this session if it is still the one registered under its id (a later one with the same id stays). */
  remove(session: Session): void {
    if (this.#cache.peek(session.id) === session) this.#cache.delete(session.id);
  }

  /** Ends every session (shutdown). */
  async closeAll(): Promise<void> {
    this.#closing = true;
    const sessions = [...this.#cache.values()];
    // One delete at a time, not clear(): clear() queues every disposeAfter, and each closing session's
    // own delete (from its transport's close callback) drains the rest of that queue from inside the
    // previous callback, nesting one level per session until the stack overflows (~2,000 sessions).
    for (const session of sessions) this.#cache.delete(session.id);
    await Promise.allSettled(sessions.map((s) => s.server.close()));
  }

  /** Closes the least recently used session of `owner` (iteration from the cold end does not touch recency). */
  #evictIdlestOf(owner: string): void {
    for (const candidate of this.#cache.rvalues()) {
      if (candidate !== undefined && candidate.owner === owner) {
        this.#evicting.add(candidate.id);
        this.#cache.delete(candidate.id);
        return;
      }
    }
  }

  #countOwner(owner: string | undefined, delta: 1 | -1): void {
    if (owner === undefined) return;
    const count = (this.#perPrincipal.get(owner) ?? 0) + delta;
    if (count > 0) this.#perPrincipal.set(owner, count);
    else this.#perPrincipal.delete(owner);
  }

  #end(session: Session, reason: SessionEndReason): void {
    this.#emit({ type: reason, session });
    this.#logger.debug({ session_id: sessionLogId(session.id), reason, active_sessions: this.#cache.size }, 'session ended');
    // Closing the server closes its transport, which ends any open SSE stream of the session.
    session.server.close().catch((error: unknown) => this.#logger.warn({ err: error, session_id: sessionLogId(session.id) }, 'closing session failed'));
  }

  #emit(event: SessionEvent): void {
    this.#events?.emit('session', event);
  }
}
