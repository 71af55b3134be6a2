import { CodedError } from '../coded-error.js';

/** Thrown by `loadConfig`; `problems` has one line per bad variable. */
export class ConfigError extends CodedError<'invalid_config'> {
  constructor(readonly problems: readonly string[]) {
    super('invalid_config', `invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}
