// Constants the HTTP layer and main.ts take from the configuration without loading it.

/**
 * Defaults of the settings that the HTTP layer also takes as options (createApp, the socket limits,
 * the drain), so a server built without loadConfig (tests, benchmarks) runs with production's bounds.
 * Each field's variable, unit and range are on Config.
 */
export const SERVER_DEFAULTS = Object.freeze({
  maxSessions: 1000,
  sessionIdleTtlSeconds: 1800,
  maxSessionsPerPrincipal: 32,
  drainTimeoutMs: 10_000,
  maxBodyBytes: 1_048_576,
  requestTimeoutMs: 30_000,
  maxConcurrentPerSession: 16,
  // Two sessions' worth (2 × maxConcurrentPerSession) at once, over all of a principal's requests.
  maxConcurrentPerPrincipal: 32,
  // With authentication off, per client address: four principals' worth, since a hosted client
  // (Claude) sends all its users' requests from a handful of addresses, and behind a proxy every
  // client shares the proxy's.
  maxConcurrentPerAddress: 128,
  // subscriptions/listen streams open at once: as many as sessions per principal (a client holds
  // one per connection), and per client address with authentication off; one idle this long ends.
  maxListenStreamsPerPrincipal: 32,
  maxListenStreamsPerAddress: 256,
  listenIdleTtlSeconds: 600,
  writeTimeoutMs: 30_000,
  sessionMaxAgeSeconds: 86_400,
});

/**
 * Longest a shutdown waits, after the drain, for a save of the chunk vector cache under way (about a
 * second at 200 MB). A platform's kill timeout must exceed DRAIN_TIMEOUT_MS plus this; a save cut
 * short keeps the previous file.
 */
export const VECTOR_SAVE_WAIT_MS = 3000;
