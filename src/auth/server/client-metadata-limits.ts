import { errors } from 'oidc-provider';

/**
 * Size limits on a client's registered metadata. `/register` needs no authentication (RFC 7591 open
 * registration, as MCP clients expect), so these bound what one anonymous request can make the store
 * keep. A real registration is a few hundred bytes: Claude, Claude Code and mcp-remote send a name, one
 * or two redirect URIs and the grant and response types.
 */
export const CLIENT_METADATA_LIMITS = {
  /** `client_name` (and its localised `client_name#<lang>` forms), characters. */
  clientNameChars: 200,
  /** Any other string value, a URL included (`redirect_uris` entries, `client_uri`, `logo_uri`, …), characters. */
  stringChars: 2000,
  /** Entries of any list (`redirect_uris`, `grant_types`, `contacts`, …). */
  listEntries: 10,
  /** The whole metadata as JSON, bytes. */
  totalBytes: 8192,
} as const;

/** RFC 7591 §3.2.2: a redirect URI problem is `invalid_redirect_uri`, any other `invalid_client_metadata`. */
function refuse(field: string, description: string): never {
  // oidc-provider answers `invalid_redirect_uri` for a description that starts with "redirect_uris".
  throw new errors.InvalidClientMetadata(field === 'redirect_uris' ? `redirect_uris ${description}` : `${field} ${description}`);
}

const strings = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * Throws oidc-provider's InvalidClientMetadata (HTTP 400 `invalid_client_metadata`, or
 * `invalid_redirect_uri` for `redirect_uris`) naming the field, its size and the limit, when the
 * metadata breaks one of CLIENT_METADATA_LIMITS.
 */
export function checkClientMetadataLimits(metadata: Record<string, unknown>): void {
  const { clientNameChars, stringChars, listEntries, totalBytes } = CLIENT_METADATA_LIMITS;
  for (const [field, value] of Object.entries(metadata)) {
    if (Array.isArray(value) && value.length > listEntries) {
      refuse(field, `has ${value.length} entries; at most ${listEntries} are accepted`);
    }
    const limit = field === 'client_name' || field.startsWith('client_name#') ? clientNameChars : stringChars;
    for (const entry of strings(value)) {
      if (entry.length > limit) refuse(field, `has a value of ${entry.length} characters; at most ${limit} are accepted`);
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > totalBytes) {
    refuse('client metadata', `is ${bytes} bytes as JSON; at most ${totalBytes} are accepted`);
  }
}
