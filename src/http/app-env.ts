// What middleware may put on a request's context for the handlers after it. Authentication sets
// `principal` and `authInfo`; on open routes and with auth off they are unset.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Principal } from '../auth/principal.js';

export type AppEnv = {
  Variables: {
    principal?: Principal;
    authInfo?: AuthInfo;
  };
};
