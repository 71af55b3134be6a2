// Who this server is to directories and clients that look before they connect. server.json (the MCP
// Registry entry, a template its publisher fills in) gives the description and the title's stem; the
// name and title a running server serves are its deployment's, derived from PUBLIC_URL, so no
// deployment serves the template's placeholder namespace and two deployments do not share a name.
import serverJson from '../../server.json' with { type: 'json' };

export interface ServerIdentity {
  /** Reverse-DNS name with one slash, e.g. `com.example.docs/corpus-mcp`. */
  name: string;
  /** Display name, at most 100 characters. */
  title: string;
  /** At most 100 characters (the registry's and the server card's limit). */
  description: string;
}

/** The part of every deployment's name after its slash. */
const SERVER_SLUG = 'corpus-mcp';
const TITLE_MAX_CHARS = 100;
const IP_LITERAL = /^[\d.]+$|:/;

/** What server.json says, placeholder namespace included: the registry entry as published. */
const REGISTRY_IDENTITY: Readonly<ServerIdentity> = Object.freeze({
  name: serverJson.name,
  title: serverJson.title,
  description: serverJson.description,
});

/**
 * The identity of the deployment at `publicUrl`: `https://docs.example.com` is `com.example.docs/corpus-mcp`,
 * titled "Corpus at docs.example.com". A host that is no DNS name (an IP literal, `localhost`) is
 * used as it stands, its IPv6 colons as hyphens.
 */
export function deploymentIdentity(publicUrl: string): ServerIdentity {
  const host = new URL(publicUrl).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const namespace = IP_LITERAL.test(host) || !host.includes('.') ? host.replaceAll(':', '-') : host.split('.').reverse().join('.');
  return {
    name: `${namespace}/${SERVER_SLUG}`,
    title: `${REGISTRY_IDENTITY.title} at ${host}`.slice(0, TITLE_MAX_CHARS),
    description: REGISTRY_IDENTITY.description,
  };
}
