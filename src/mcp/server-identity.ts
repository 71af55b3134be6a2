// Who this server is to directories and clients that look before they connect: the name, title and
// description published in server.json (the MCP Registry entry), so the registry listing and the
// server card the running server serves cannot disagree.
import serverJson from '../../server.json' with { type: 'json' };

export interface ServerIdentity {
  /** Reverse-DNS name with one slash, e.g. `io.github.<owner>/corpus-mcp`. */
  name: string;
  /** Display name. */
  title: string;
  /** At most 100 characters (the registry's and the server card's limit). */
  description: string;
}

export const SERVER_IDENTITY: Readonly<ServerIdentity> = Object.freeze({
  name: serverJson.name,
  title: serverJson.title,
  description: serverJson.description,
});
