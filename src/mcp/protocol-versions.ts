// The MCP protocol revisions this server serves, newest first: one list for what the server answers
// and what it advertises (the server card). The legacy era's are SDK 1.x's, negotiated by initialize;
// the modern era's are passed to every SDK v2 server (modern-server.ts), whose server/discover
// answers them, since SDK v2 keeps its own list internal.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** Revisions of the modern era (per-request, no initialize), served by SDK v2. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(['2026-07-28']);

/** Revisions of the legacy era (initialize and sessions), served by SDK 1.x. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([...SUPPORTED_PROTOCOL_VERSIONS]);

/** Every revision served, newest first. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]);
