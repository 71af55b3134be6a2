// GET /.well-known/mcp/server-card.json: what a directory (Smithery) or a client reads about this
// server before it connects. The shape follows the MCP Server Card draft (SEP-2127, the
// modelcontextprotocol/experimental-ext-server-card repository, schema v1): identity, and one
// streamable-http remote with the protocol revisions served. The draft leaves tools out and has no
// field for authorization, so both travel in `_meta` under the server's own name, as the draft asks
// of vendor data. The card is public and built once: the tool list and the authorization do not
// change while the process runs.
import { Hono } from 'hono';
import { etag, RETAINED_304_HEADERS } from 'hono/etag';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpService } from '../../mcp/mcp-service.js';
import { SERVED_PROTOCOL_VERSIONS } from '../../mcp/protocol-versions.js';
import { deploymentIdentity } from '../../mcp/server-identity.js';
import type { ServerIdentity } from '../../mcp/server-identity.js';
import { mcpResourceUrl, SERVER_PATHS } from '../../server-paths.js';

/** Where the card is served; the path Smithery scans. */
export const SERVER_CARD_PATH = SERVER_PATHS.serverCard;

/** The draft's media type; answered when the client asks for it, else plain JSON. */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';

const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** What a client needs to call /mcp. */
export type ServerCardAuthorization =
  | { type: 'none' }
  /** A bearer token handed out by the operator (AUTH_TOKENS, AUTH_TOKENS_FILE). */
  | { type: 'bearer' }
  /** OAuth 2.1: the client discovers the authorization server from this RFC 9728 metadata URL. */
  | { type: 'oauth2'; protectedResourceMetadata: string };

export interface ServerCardOptions {
  /** Origin clients use, e.g. https://docs.example.com; the endpoint is its /mcp. */
  publicUrl: string;
  identity: ServerIdentity;
  /** The server's version, as initialize and server/discover report it. */
  version: string;
  /** Revisions served, newest first (SERVED_PROTOCOL_VERSIONS). */
  protocolVersions: readonly string[];
  /** The tools/list entries. */
  tools: readonly Tool[];
  authorization: ServerCardAuthorization;
}

export function buildServerCard(options: ServerCardOptions): Record<string, unknown> {
  const { publicUrl, identity, version, protocolVersions, tools, authorization } = options;
  const bearerHeader = {
    name: 'Authorization',
    description: 'Bearer and an access token from the operator of this server.',
    isRequired: true,
    isSecret: true,
    value: 'Bearer {token}',
    variables: { token: { description: 'The access token', isRequired: true, isSecret: true } },
  };
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: identity.name,
    version,
    description: identity.description,
    title: identity.title,
    remotes: [
      {
        type: 'streamable-http',
        url: mcpResourceUrl(publicUrl),
        ...(authorization.type === 'bearer' ? { headers: [bearerHeader] } : {}),
        supportedProtocolVersions: [...protocolVersions],
      },
    ],
    _meta: {
      [identity.name]: {
        authorization,
        tools: tools.map(({ name, title, description, annotations }) => ({ name, title, description, annotations })),
      },
    },
  };
}

export function serverCardRoutes(options: ServerCardOptions): Hono {
  const body = JSON.stringify(buildServerCard(options));
  // The draft's CORS and caching advice: public metadata, read cross-origin, revalidated by ETag.
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET',
    'access-control-allow-headers': 'Content-Type, If-None-Match',
    'access-control-expose-headers': 'ETag',
  };
  const routes = new Hono();
  routes.options(SERVER_CARD_PATH, (c) => c.body(null, 204, cors));
  // A 304 keeps the CORS headers, or a browser could not read the revalidated card.
  const revalidate = etag({ retainedHeaders: [...RETAINED_304_HEADERS, ...Object.keys(cors)] });
  routes.get(SERVER_CARD_PATH, revalidate, function serverCard(c) {
    const type = (c.req.header('accept') ?? '').includes(SERVER_CARD_MEDIA_TYPE) ? SERVER_CARD_MEDIA_TYPE : 'application/json';
    return c.body(body, 200, { ...cors, 'content-type': type, 'cache-control': 'public, max-age=3600', vary: 'Accept' });
  });
  return routes;
}

/** The card of this server's MCP endpoint: the deployment's identity (from PUBLIC_URL), version, served revisions and the very tool table tools/list answers. */
export function endpointCardRoutes(service: McpService, { publicUrl, authorization }: Pick<ServerCardOptions, 'publicUrl' | 'authorization'>): Hono {
  return serverCardRoutes({
    publicUrl,
    identity: deploymentIdentity(publicUrl),
    version: service.serverInfo.version,
    protocolVersions: SERVED_PROTOCOL_VERSIONS,
    tools: service.listToolsResult.tools,
    authorization,
  });
}
