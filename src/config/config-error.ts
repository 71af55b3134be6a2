
/** Thrown by `loadConfig`; `problems` has one line per bad variable. */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
