// What middleware may put on a request's context for the handlers after it. Authentication sets
// `principal` and `authInfo`; on open routes and with auth off they are unset. The MCP route sets
// `era` for the access log.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Principal } from '../auth/principal.js';
import type { McpEra } from '../mcp/mcp-service.js';

export type AppEnv = {
  Variables: {
    principal?: Principal;
    authInfo?: AuthInfo;
    /** Set by the MCP route once it has classified the request. */
    era?: McpEra;
  };
};
