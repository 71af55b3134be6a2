// Sessions that outlive the process that opened them. A session's id is a token (session-token.ts)
// carrying what its initialize said; a process that receives a valid id it does not hold re-creates
// the session on the spot: a fresh server and transport whose id generator returns the known id, fed
// the session's own initialize and notifications/initialized, the way the client first opened it.
// Only public SDK API is used (the 1.x transport has no public way to mark itself initialised, and
// setting its private fields would break on the next upgrade). The re-created session then lives in
// the local registry like any other, so idle eviction stays local and harmless: an evicted session is
// re-created on its next request.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { sessionLogId, silentLogger } from '../../logger.js';
import type { Logger } from '../../logger.js';
import type { SessionRevocations } from './session-revocations.js';
import type { SessionClaims, SessionTokens } from './session-token.js';
import { SessionTokenError } from './session-token.js';
import type { Session, SessionRegistry } from './session-registry.js';

/**
 * Why a request's session could not be used; every one of them is answered 404 (as for an unknown
 * id), the distinction is for logs and metrics. `foreign`: the session belongs to another principal.
 */
export const SESSION_REFUSALS = ['foreign', 'malformed', 'invalid', 'expired', 'revoked', 'restore_failed'] as const;
export type SessionRefusal = (typeof SESSION_REFUSALS)[number];

export type SessionLookup = { session: Session; restored: boolean } | { refused: SessionRefusal };

export interface DurableSessionsOptions {
  sessions: SessionRegistry;
  /** Makes the MCP server of a session (shared handlers; see createMcpServerFactory). */
  createServer: () => Server;
  tokens: SessionTokens;
  revocations: SessionRevocations;
  logger?: Logger;
  /** Clock in milliseconds, for tests. Default Date.now. */
  now?: () => number;
}

export interface DurableSessions {
  /** Opens a session for an initialize request (body already parsed) and answers it. */
  open(request: Request, body: unknown, owner: string | undefined, authInfo: AuthInfo | undefined): Promise<Response>;
  /**
   * The session named by `id` for `principal`: the live one, or one re-created from its id. Refused
   * when the id is not ours, altered, expired, revoked, or another principal's; nothing is created then.
   */
  find(id: string, principal: string | undefined, authInfo: AuthInfo | undefined): Promise<SessionLookup>;
  /**
   * Ends a session for good (DELETE): revokes its id here and, with a shared store, everywhere.
   */
  revoke(id: string, expiresAt: number): Promise<void>;
  /** Closes a live session (it leaves the registry); a later session under the same id stays. */
  end(session: Session): void;
  /** Whether this process holds a live session with this id (whoever owns it). */
  holds(id: string): boolean;
  /** Refreshes a held session's idle timer and recency; call only for its owner's requests. */
  touch(id: string): void;
  /** Reads an id's claims without re-creating anything (a DELETE for a session this process does not hold). */
  claims(id: string, principal: string | undefined): Promise<{ claims: SessionClaims } | { refused: SessionRefusal }>;
}

/** The version the SDK's server will answer the initialize with: the client's if supported, else the latest. */
const negotiated = (requested: string) => (SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION);

/** The origin of requests made up inside the process; the transport reads only headers and body. */
const INTERNAL_URL = 'http://session.internal/mcp';

export function createDurableSessions({ sessions, createServer, tokens, revocations, logger = silentLogger, now = Date.now }: DurableSessionsOptions): DurableSessions {
  /** Re-creations in progress, so concurrent first requests for one id on this process make one session. */
  const restoring = new Map<string, Promise<Session | undefined>>();

  async function connect(id: string, owner: string | undefined, expiresAt: number) {
    const server = createServer();
    let session: Session | undefined;
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (sessionId) => {
        session = { id: sessionId, transport, server, owner, createdAt: now(), expiresAt };
        sessions.add(session);
      },
      onsessionclosed: () => {
        if (session) sessions.remove(session);
      },
    });
    // However the session ends (DELETE, eviction, expiry, shutdown), it leaves the registry; only
    // this session, never a later one under the same id.
    server.onclose = () => {
      if (session) sessions.remove(session);
    };
    server.onerror = (error) => logger.debug({ err: error, session_id: sessionLogId(id) }, 'mcp transport error');
    await server.connect(transport);
    return { server, transport };
  }

  async function restore(id: string, claims: SessionClaims, authInfo: AuthInfo | undefined): Promise<Session | undefined> {
    const { server, transport } = await connect(id, claims.principal, claims.expiresAt);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const initialize = {
      jsonrpc: '2.0' as const,
      id: 0,
      method: 'initialize' as const,
      params: { protocolVersion: claims.protocolVersion, capabilities: claims.capabilities, clientInfo: claims.clientInfo },
    };
    const initialized = { jsonrpc: '2.0' as const, method: 'notifications/initialized' as const };
    try {
      const answer = await transport.handleRequest(new Request(INTERNAL_URL, { method: 'POST', headers, body: JSON.stringify(initialize) }), { parsedBody: initialize, authInfo });
      await answer.text(); // the initialize result went to the client long ago
      if (answer.status !== 200 || transport.sessionId !== id) throw new Error(`replaying initialize answered ${answer.status}`);
      const note = await transport.handleRequest(
        new Request(INTERNAL_URL, { method: 'POST', headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': claims.protocolVersion }, body: JSON.stringify(initialized) }),
        { parsedBody: initialized, authInfo },
      );
      await note.text();
      if (note.status !== 202) throw new Error(`replaying notifications/initialized answered ${note.status}`);
    } catch (error) {
      logger.warn({ err: error }, 're-creating a session failed');
      await server.close().catch(() => {});
      return undefined;
    }
    const session = sessions.peek(id);
    logger.info({ session_id: sessionLogId(id), principal: claims.principal, protocol_version: claims.protocolVersion, client: claims.clientInfo.name }, 'session re-created from its id');
    return session;
  }

  async function claimsOf(id: string, principal: string | undefined): Promise<{ claims: SessionClaims } | { refused: SessionRefusal }> {
    let claims: SessionClaims;
    try {
      claims = await tokens.open(id);
    } catch (error) {
      if (error instanceof SessionTokenError) return { refused: error.code };
      throw error;
    }
    if (claims.principal !== principal) return { refused: 'foreign' };
    if (await revocations.isRevoked(id)) return { refused: 'revoked' };
    return { claims };
  }

  return {
    async open(request, body, owner, authInfo) {
      const init = (Array.isArray(body) ? body.find(isInitializeRequest) : body) as InitializeRequest;
      const { protocolVersion, clientInfo, capabilities } = init.params;
      const { id, expiresAt } = await tokens.issue({ principal: owner, protocolVersion: negotiated(protocolVersion), clientInfo, capabilities });
      const { server, transport } = await connect(id, owner, expiresAt);
      const response = await transport.handleRequest(request, { authInfo, parsedBody: body });
      // Refused before a session existed (bad headers, a batch): nothing to keep.
      if (transport.sessionId === undefined) await server.close();
      return response;
    },

    async find(id, principal, authInfo) {
      const live = sessions.peek(id);
      if (live !== undefined) {
        if (live.owner !== principal) return { refused: 'foreign' };
        if (live.expiresAt !== undefined && live.expiresAt * 1000 <= now()) {
          sessions.delete(id);
          return { refused: 'expired' };
        }
        // Ended by a DELETE here whose close has not happened yet (the id is revoked first), or by
        // another replica, which only a shared store can say.
        if (await revocations.isRevoked(id)) {
          sessions.delete(id);
          return { refused: 'revoked' };
        }
        return { session: live, restored: false };
      }
      const checked = await claimsOf(id, principal);
      if ('refused' in checked) return checked;
      // Another request may have re-created it while the id was being checked.
      const meanwhile = sessions.peek(id);
      if (meanwhile !== undefined) return { session: meanwhile, restored: false };
      let pending = restoring.get(id);
      if (pending === undefined) {
        pending = restore(id, checked.claims, authInfo).finally(() => restoring.delete(id));
        restoring.set(id, pending);
      }
      const session = await pending;
      return session === undefined ? { refused: 'restore_failed' } : { session, restored: true };
    },

    claims: claimsOf,
    end: (session) => sessions.remove(session),
    holds: (id) => sessions.peek(id) !== undefined,
    touch: (id) => void sessions.get(id),

    async revoke(id, expiresAt) {
      await revocations.revoke(id, expiresAt);
    },
  };
}
